package dev.sluice.spi.support;

import dev.sluice.spi.Marker;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A completion marker that is a pooled native event recorded on a stream after an operation. A marker object is
 * never reused, so a stale reference (a wait racing with the completion thread's {@link #release()}) finds the event
 * gone and knows the work has finished; the lock makes "read the event, enqueue the wait" ({@link #waitOn}) atomic
 * with respect to the release, so a wait never lands on an event already recorded again for later work.
 *
 * <p>A marker may carry host work that must happen once the device work before it has finished and before its
 * future completes (copying a staged download into a Java array, giving staging buffers back): it runs in
 * {@link #isDone()}, on the polling thread, the first time the event is seen complete.
 *
 * <p>For backend authors: the stream implements {@link Events}; {@link #isDone()} costs one call of
 * {@link Events#isComplete} and allocates nothing.
 */
public final class EventMarker implements Marker {

    private static final Logger LOG = System.getLogger(EventMarker.class.getName());

    /** What a marker needs of the stream that recorded it; implemented with the backend's native calls. */
    public interface Events {

        /**
         * One non-blocking query of {@code event}.
         *
         * @param sequence the marker's number on its stream (for a backend that asks more once one marker stalls)
         * @return whether everything before the event has finished
         * @throws dev.sluice.DeviceException if the device faulted
         */
        boolean isComplete(long event, long sequence);

        /**
         * Blocks the calling thread for at most {@code timeoutNanos} or until {@code marker} is done; the marker asks
         * {@link #isComplete} once more afterwards. By default it polls the marker in pauses growing from 2 to 50 µs,
         * never waiting in the driver (a driver wait could hang on a stream held by a host gate).
         */
        default void await(EventMarker marker, long timeoutNanos) {
            long deadline = System.nanoTime() + timeoutNanos;
            long pause = 2_000;
            while (!marker.isDone()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                LockSupport.parkNanos(Math.min(pause, left));
                pause = Math.min(pause * 2, 50_000);
            }
        }

        /** Enqueues on native stream {@code stream} a wait for {@code event}. */
        void waitOnDevice(long stream, long event);

        /** Takes back the event of a released marker (for reuse: its last record has completed). */
        void recycle(long event);

        /**
         * A thread is about to wait for the marker of {@code event} ({@link Marker#awaited()}); the event may be
         * recorded again for later work by the time this runs. Nothing by default.
         */
        default void awaited(long event, long sequence) {
        }
    }

    private final Events events;
    private final long sequence;
    private long event;
    private @Nullable List<Runnable> hostWork;
    private volatile boolean done;

    /**
     * @param events   the stream that recorded it
     * @param sequence its number on that stream
     * @param event    the native event, recorded after the operation; 0 is not allowed
     * @param hostWork host work to run once the event is complete, or null
     */
    public EventMarker(Events events, long sequence, long event, @Nullable List<Runnable> hostWork) {
        this.events = Objects.requireNonNull(events, "events");
        this.sequence = sequence;
        this.event = event;
        this.hostWork = hostWork;
    }

    /** The marker's number on its stream. */
    public long sequence() {
        return sequence;
    }

    /** The native event while the marker is live, 0 once released (its work has then finished). */
    public synchronized long event() {
        return event;
    }

    /**
     * One query of the event (nothing once seen done); runs the host work the first time it is complete.
     *
     * @throws dev.sluice.DeviceException if the device faulted
     */
    @Override
    public boolean isDone() {
        if (done) {
            return true;
        }
        // A plain read: release() sets done first, so a racing release costs at worst one "not done" answer.
        long e = event;
        if (e == 0 || events.isComplete(e, sequence)) {
            runHostWork();
            done = true;
            return true;
        }
        return false;
    }

    private void runHostWork() {
        if (hostWork == null) {
            return; // no lock for markers without host work (CUDA's)
        }
        List<Runnable> work;
        synchronized (this) { // two pollers at once (completion thread, a waiting caller) run it once
            work = hostWork;
            hostWork = null;
        }
        if (work != null) {
            for (Runnable r : work) {
                try {
                    r.run();
                } catch (RuntimeException ex) {
                    LOG.log(Level.WARNING, "host work after a completion marker failed", ex);
                }
            }
        }
    }

    /** Waits through {@link Events#await} until done or {@code timeoutNanos} passed. */
    @Override
    public boolean awaitDone(long timeoutNanos) {
        if (isDone()) {
            return true;
        }
        events.await(this, timeoutNanos);
        return isDone();
    }

    /** Passes the wait on to the stream ({@link Events#awaited}), while the marker is live and not seen done. */
    @Override
    public void awaited() {
        long e = event; // a plain read, as in isDone: a racing release makes this a late call, which the stream tolerates
        if (!done && e != 0) {
            events.awaited(e, sequence);
        }
    }

    /** Makes native stream {@code stream} wait on the device for this marker (nothing once released: it is done). */
    public synchronized void waitOn(long stream) {
        if (event != 0) {
            events.waitOnDevice(stream, event);
        }
    }

    /** Gives the event back to its stream; once. */
    @Override
    public synchronized void release() {
        long e = event;
        if (e != 0) {
            done = true;
            event = 0;
            events.recycle(e);
        }
    }

    @Override
    public String toString() {
        return "EventMarker[" + sequence + (done ? ", done]" : "]");
    }
}
