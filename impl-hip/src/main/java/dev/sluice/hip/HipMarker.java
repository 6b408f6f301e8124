package dev.sluice.hip;

import dev.sluice.spi.Marker;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * A completion marker: a pooled event (timing disabled) recorded after an operation; {@link #isDone()} is one
 * {@code hipEventQuery}. A marker object is never reused, so a stale reference (a wait racing with the
 * completion thread's {@link #release()}) finds the event gone and knows the work has finished; the lock makes
 * "read the event, enqueue the wait" atomic with respect to the release, so a wait never lands on an event
 * already recorded again for later work.
 *
 * <p>A marker may carry host work that must happen when the device work before it has finished and before
 * its future completes: copying a staged download into a Java array, returning staging buffers. It runs in
 * {@link #isDone()}, on the completion thread, the first time the event is seen complete.
 */
final class HipMarker implements Marker {

    private static final Logger LOG = System.getLogger(HipMarker.class.getName());

    private final HipContext context;
    private long event;
    private @Nullable List<Runnable> hostWork;
    private volatile boolean done;

    HipMarker(HipContext context, long event, @Nullable List<Runnable> hostWork) {
        this.context = context;
        this.event = event;
        this.hostWork = hostWork;
    }

    @Override
    public boolean isDone() {
        if (done) {
            return true;
        }
        long e;
        synchronized (this) {
            e = event;
        }
        if (e == 0) {
            return true;
        }
        int r = context.api.eventQuery(e);
        if (r == HipConstants.hipSuccess) {
            runHostWork();
            done = true;
            return true;
        }
        if (r == HipConstants.hipErrorNotReady) {
            return false;
        }
        context.noteStatus(r);
        throw HipErrors.exception(context.api, "hipEventQuery (completion marker on " + context + ")", r, -1);
    }

    private void runHostWork() {
        List<Runnable> work = hostWork;
        if (work != null) {
            hostWork = null;
            for (Runnable r : work) {
                try {
                    r.run();
                } catch (RuntimeException ex) {
                    LOG.log(Level.WARNING, "host work after a completion marker failed", ex);
                }
            }
        }
    }

    /** Polls until done or {@code timeoutNanos} passed; never blocks in the runtime, which could hang on a gated stream. */
    @Override
    public boolean awaitDone(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        long pause = 2_000;
        while (!isDone()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(Math.min(pause, left));
            pause = Math.min(pause * 2, 50_000);
        }
        return true;
    }

    /** Makes {@code stream} wait on the device for this marker (nothing to do once released: the work is done). */
    synchronized void waitOn(long stream) {
        if (event != 0) {
            context.api.streamWaitEvent(stream, event);
        }
    }

    @Override
    public synchronized void release() {
        long e = event;
        if (e != 0) {
            event = 0;
            context.markerEvents.give(e);
        }
    }
}
