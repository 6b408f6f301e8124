package dev.sluice.cuda;

import dev.sluice.spi.support.EventMarker;
import dev.sluice.spi.support.EventRing;
import dev.sluice.spi.support.StallWatch;
import dev.sluice.spi.support.StreamCounter;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import org.jspecify.annotations.Nullable;

/**
 * The completion markers of one CUDA stream: pooled events recorded on the stream, the completion counter its marker
 * stream writes after each armed marker ({@link StreamCounter}), and the fault checks of a marker that stalls. An armed
 * marker is done once the counter has reached its number, read from host memory without a driver call; a marker not
 * armed (yet), or every marker where the context has no counters, once its event is (one {@code cuEventQuery}). Either
 * way its event stays what other streams wait on. {@link #record()} runs under the engine's lock for the stream;
 * {@link #isComplete} on the pollers (the completion thread, a thread waiting for a future); {@link #awaited} on a
 * thread about to wait.
 */
final class CudaMarkers implements EventMarker.Events {

    private final CudaStream stream;
    private final CudaContext context;
    /** The sequence number of this stream's last completion marker. */
    private long markerSequence;
    /** When a marker of this stream has stayed not done long enough to ask the driver about a fault. */
    private final StallWatch stall = new StallWatch(StallWatch.FAULT_CHECK_NANOS);
    private final EventRing freeEvents = new EventRing(1024);
    /** The counter this stream's markers are read from once armed, and its marker stream. */
    private final StreamCounter counter;
    /** The marker stream's JCuda handle, for its destruction; made with the first counter write. */
    private @Nullable CUstream markerStream;

    CudaMarkers(CudaStream stream) {
        this.stream = stream;
        this.context = stream.context;
        this.counter = new StreamCounter(context.counters, context.arming, new CounterWrites(), stream.toString());
    }

    /** The driver calls of this stream's counter: a marker stream, and a wait and a write on it per armed marker. */
    private final class CounterWrites implements StreamCounter.Writer {
        @Override
        public void bind() {
            context.cu.bind();
        }

        @Override
        public long createStream() {
            CUstream ms = new CUstream();
            Jc.check(JCudaDriver.cuStreamCreate(ms, 1), "cuStreamCreate (marker stream)"); // 1: CU_STREAM_NON_BLOCKING
            markerStream = ms;
            return Jc.address(ms);
        }

        @Override
        public void writeAfter(long ms, long event, long device, int value) {
            int r = Cu.streamWaitEvent(ms, event);
            if (r == Cu.SUCCESS) {
                r = Cu.streamWriteValue32(ms, device, value, 0);
            }
            if (r != Cu.SUCCESS) {
                throw Cu.error(r, "cuStreamWaitEvent + cuStreamWriteValue32 (completion counter)");
            }
        }

        @Override
        public boolean destroyStream(long ms) {
            CUstream s = markerStream;
            markerStream = null;
            if (s == null) {
                return true;
            }
            int r = JCudaDriver.cuStreamSynchronize(s);
            JCudaDriver.cuStreamDestroy(s);
            return r == Cu.SUCCESS;
        }
    }

    /** Takes back a released marker's event (completion thread): into this stream's ring, else the context's pool. */
    @Override
    public void recycle(long event) {
        if (stream.isDestroyed() || !freeEvents.offer(event)) {
            context.markerEvents.give(event);
        }
    }

    /**
     * Whether marker {@code sequence} is done. Armed, one read of host memory: no driver call while markers keep
     * completing. Not armed, one {@code cuEventQuery} of the marker's event (events need no current context), after
     * which the counter may arm it ({@link StreamCounter#polledNotDone}). Either way, once the marker has stayed not
     * done for {@link StallWatch#FAULT_CHECK_NANOS} ({@link #faultCheckDue}), the driver is asked whether it finished or
     * the context faulted: a faulted device never writes the counter, and an event behind work that will never run (a
     * gate, a faulted kernel) may keep answering "not ready".
     */
    @Override
    public boolean isComplete(long event, long sequence) {
        if (counter.isArmed(sequence)) {
            if (counter.reached(sequence)) {
                return true;
            }
            return faultCheckDue(sequence) && done(sequence, eventComplete(event) || finishedUnlessFaulted());
        }
        if (eventComplete(event)) {
            counter.seenDone(sequence);
            return true;
        }
        counter.polledNotDone(event, sequence, stream.isCapturing() || stream.isDestroyed());
        return faultCheckDue(sequence) && done(sequence, finishedUnlessFaulted());
    }

    /** A thread is about to wait for marker {@code sequence}: the counter may arm it now ({@link StreamCounter#awaited}). */
    @Override
    public void awaited(long event, long sequence) {
        counter.awaited(event, sequence, stream.isCapturing() || stream.isDestroyed());
    }

    /** {@code done}, noting marker {@code sequence} as seen done if it is. */
    private boolean done(long sequence, boolean done) {
        if (done) {
            counter.seenDone(sequence);
        }
        return done;
    }

    /** One {@code cuEventQuery}: whether the event completed; a sticky error marks the context faulted and is thrown. */
    private boolean eventComplete(long event) {
        int r = Cu.eventQuery(event);
        if (r == Cu.ERROR_INVALID_CONTEXT) { // this driver wants the context bound after all
            context.cu.bind();
            r = Cu.eventQuery(event);
        }
        if (r == Cu.SUCCESS) {
            return true;
        }
        if (r == Cu.ERROR_NOT_READY) {
            return false;
        }
        context.cu.markFaulted();
        throw Cu.fault(r, "cuEventQuery (completion marker on " + context.description() + ")");
    }

    /** Sleeps through the context's {@link MarkerWaiter} (the BLOCKING wait strategy's helper thread). */
    @Override
    public void await(EventMarker marker, long timeoutNanos) {
        context.waiter().await(marker, timeoutNanos);
    }

    @Override
    public void waitOnDevice(long stream, long event) {
        Cu.check(Cu.streamWaitEvent(stream, event), "cuStreamWaitEvent (marker)");
    }

    /**
     * Whether a poll that found marker {@code sequence} not done should also ask the driver whether the context
     * faulted ({@code cuStreamQuery}): once that marker has stayed not done for {@link StallWatch#FAULT_CHECK_NANOS}
     * ({@link StallWatch}). Never while capturing (a query would invalidate the capture) or once destroyed.
     */
    boolean faultCheckDue(long sequence) {
        return stall.due(sequence, System.nanoTime()) && !stream.isDestroyed() && !stream.isCapturing();
    }

    /**
     * The fault check of a marker of this stream once {@link #faultCheckDue} says so ({@code cuStreamQuery}): true if
     * everything enqueued on the stream has finished, the marker included; false while work is still running, or on
     * an error that does not stop the context; a sticky error marks the context faulted and is thrown.
     */
    boolean finishedUnlessFaulted() {
        context.cu.bind();
        int r = Cu.streamQuery(stream.address);
        if (r == Cu.SUCCESS) {
            return true;
        }
        if (r == Cu.ERROR_NOT_READY || !Cu.isSticky(r)) {
            return false;
        }
        context.cu.markFaulted();
        throw Cu.fault(r, "cuStreamQuery (completion marker on " + context.description() + ")");
    }

    /**
     * A pooled event recorded on the stream: from this stream's ring of released marker events, else the context's
     * pool. No lock and no allocation but the marker itself while the ring has events.
     */
    EventMarker record() {
        long e = freeEvents.poll();
        if (e == 0) {
            context.cu.bind();
            e = context.markerEvents.take();
        }
        int r = Cu.eventRecord(e, stream.address);
        if (r == Cu.ERROR_INVALID_CONTEXT) { // a thread that never enqueued (a completion thread recording a batch)
            context.cu.bind();
            r = Cu.eventRecord(e, stream.address);
        }
        if (r != Cu.SUCCESS) {
            context.markerEvents.give(e);
            throw Cu.error(r, "cuEventRecord (completion marker)");
        }
        long sequence = ++markerSequence;
        counter.recorded(e, sequence, stream.isCapturing()); // the context is current here: the record just succeeded
        return new EventMarker(this, sequence, e, null);
    }

    /** Gives the events of this stream's ring back to the context's pool; when the stream is destroyed. */
    void giveBackEvents() {
        for (long e; (e = freeEvents.poll()) != 0; ) {
            context.markerEvents.give(e);
        }
    }

    /**
     * Stops arming, synchronises and destroys the marker stream, then gives the counter back
     * ({@link StreamCounter#close()}); when the stream is destroyed.
     */
    void destroyMarkerStream() {
        counter.close();
    }
}
