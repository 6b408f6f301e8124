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
     * One {@code cuEventQuery} (events need no current context). With a backlog, a marker seen done also
     * queries the stream's newest marker: if that one is done too, every marker up to it is known done and is
     * answered without a driver call ({@link CudaStream#doneSequence}), so a burst of finished work costs two
     * queries, not one per operation.
     */
    @Override
    public boolean isDone() {
        long e = event;
        if (e == 0 || sequence <= stream.doneSequence) {
            return true;
        }
        int r = Cu.eventQuery(e);
        if (r == 201) { // CUDA_ERROR_INVALID_CONTEXT: this driver wants the context bound after all
            context.cu.bind();
            r = Cu.eventQuery(e);
        }
        if (r == Cu.SUCCESS) {
            stream.doneSequence = sequence;
            EventMarker newest = stream.newestMarker;
            if (newest != null && newest.sequence > sequence + 8) {
                long ne = newest.eventIfLive();
                if (ne != 0 && Cu.eventQuery(ne) == Cu.SUCCESS) {
                    stream.doneSequence = newest.sequence;
                }
            }
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

    /** The event without the lock, for the completion thread (the only one that releases markers). */
    long eventIfLive() {
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
