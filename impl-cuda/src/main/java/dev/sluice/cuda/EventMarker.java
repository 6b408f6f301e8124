package dev.sluice.cuda;

import dev.sluice.spi.Marker;

/**
 * A completion marker: a pooled event (timing disabled) recorded after an operation. {@link #isDone()} is
 * one {@code cuEventQuery}; {@link #release()} returns the event to the pool. A marker object is never
 * reused, so a stale reference (a {@code waitFor} racing with the completion thread's release) finds
 * {@code event == 0} and knows the work is done; the lock makes "read the event, enqueue the wait" atomic
 * with respect to the release, so a wait never lands on an event already recorded for later work.
 */
final class EventMarker implements Marker {

    private final CudaContext context;
    private long event;

    EventMarker(CudaContext context, long event) {
        this.context = context;
        this.event = event;
    }

    @Override
    public boolean isDone() {
        long e = event;
        if (e == 0) {
            return true;
        }
        context.cu.bind();
        int r = Cu.eventQuery(e);
        if (r == Cu.SUCCESS) {
            return true;
        }
        if (r == Cu.ERROR_NOT_READY) {
            return false;
        }
        context.cu.markFaulted();
        throw Cu.fault(r, "cuEventQuery (completion marker on " + context.description() + ")");
    }

    @Override
    public boolean awaitDone(long timeoutNanos) {
        if (isDone()) {
            return true;
        }
        context.waiter().await(this, timeoutNanos);
        return isDone();
    }

    /** The event while the marker is live, 0 once released. */
    synchronized long event() {
        return event;
    }

    /** Makes {@code stream} wait for this marker on the device (nothing to do once released: the work is done). */
    synchronized void waitOn(long stream) {
        if (event != 0) {
            Cu.check(Cu.streamWaitEvent(stream, event), "cuStreamWaitEvent (marker)");
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
