package dev.sluice.cuda;

import dev.sluice.spi.support.EventMarker;
import java.util.concurrent.locks.LockSupport;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * The BLOCKING wait strategy's helper: a daemon thread that sleeps in {@code cuEventSynchronize} on the
 * marker the completion thread waits for (marker events are then made with {@code CU_EVENT_BLOCKING_SYNC},
 * so the driver puts the thread to sleep instead of spinning) and wakes the completion thread when it
 * returns. The completion thread itself only parks with a timeout, so it never blocks for ever: a stream held
 * by a host gate that only a completion stage can open would otherwise deadlock it.
 */
final class MarkerWaiter {

    private static final Logger LOG = System.getLogger(MarkerWaiter.class.getName());

    private final DriverContext cu;
    private final Thread thread;
    private volatile @Nullable EventMarker target;
    private volatile @Nullable Thread requester;
    private volatile boolean stopped;

    MarkerWaiter(DriverContext cu) {
        this.cu = cu;
        this.thread = Thread.ofPlatform().daemon().name("sluice-cuda-waiter-" + cu.ordinal).unstarted(this::run);
        thread.start();
    }

    /** Parks the caller until {@code marker} is done or {@code timeoutNanos} passed. */
    void await(EventMarker marker, long timeoutNanos) {
        EventMarker busy = target;
        if (busy == null) {
            requester = Thread.currentThread();
            target = marker;
            LockSupport.unpark(thread);
            LockSupport.parkNanos(this, timeoutNanos);
        } else {
            // The helper still sleeps on an older marker (its stream is held up): poll with short pauses.
            LockSupport.parkNanos(this, Math.min(timeoutNanos, 50_000));
        }
    }

    private void run() {
        while (!stopped) {
            EventMarker m = target;
            if (m == null) {
                LockSupport.park(this);
                continue;
            }
            try {
                long e = m.event();
                if (e != 0) {
                    cu.bind();
                    Cu.eventSynchronize(e); // errors surface through the marker's own query
                }
            } catch (Throwable t) {
                LOG.log(Level.DEBUG, "marker wait failed", t);
            }
            target = null;
            Thread r = requester;
            if (r != null) {
                LockSupport.unpark(r);
            }
        }
    }

    void stop() {
        stopped = true;
        LockSupport.unpark(thread);
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
