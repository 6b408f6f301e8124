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
    private final CudaStream stream;
    final long sequence;
    private long event;

    EventMarker(CudaStream stream, long sequence, long event) {
        this.context = stream.context;
        this.stream = stream;
        this.sequence = sequence;
        this.event = event;
    }

    /**
     * One {@code cuEventQuery} (events need no current context). Once the marker has stayed not done for
     * {@link StallWatch#FAULT_CHECK_NANOS} ({@link CudaStream#faultCheckDue}), {@code cuStreamQuery} also asks
     * whether the context faulted: an event behind work that will never run (a gate, a faulted kernel) may keep
     * answering "not ready".
     */
    @Override
    public boolean isDone() {
        long e = event;
        if (e == 0) {
            return true;
        }
        int r = Cu.eventQuery(e);
        if (r == Cu.ERROR_INVALID_CONTEXT) { // this driver wants the context bound after all
            context.cu.bind();
            r = Cu.eventQuery(e);
        }
        if (r == Cu.SUCCESS) {
            return true;
        }
        if (r == Cu.ERROR_NOT_READY) {
            return stream.faultCheckDue(sequence) && stream.finishedUnlessFaulted();
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
            stream.recycle(e);
        }
    }
}
