package dev.sluice.cuda;

import dev.sluice.spi.Marker;

/**
 * A completion marker that is a stream's counter reaching a sequence number (see {@link StreamCounters}).
 * {@link #isDone()} is a read of host memory; only while the marker is not done does it ask the driver, at
 * most every {@link #FAULT_CHECK_NANOS}, whether the stream's context has faulted ({@code cuStreamQuery}),
 * since a faulted stream never writes its counter. Other streams wait for it on the device with
 * {@code cuStreamWaitValue64} (GEQ). Nothing to release.
 */
final class CounterMarker implements Marker {

    /**
     * 20 µs: a fault is seen within that of the device raising it. {@code -Dsluice.cuda.faultCheckNanos} changes it, a
     * knob for measuring whether these queries slow enqueues on other threads (scripts/gpu-run.sh percall).
     */
    static final long FAULT_CHECK_NANOS = Long.getLong("sluice.cuda.faultCheckNanos", 20_000L);

    private final CudaStream stream;
    final long sequence;

    CounterMarker(CudaStream stream, long sequence) {
        this.stream = stream;
        this.sequence = sequence;
    }

    long counterAddress() {
        return stream.counter.device();
    }

    @Override
    public boolean isDone() {
        if (stream.counter.value() - sequence >= 0) {
            return true;
        }
        long now = System.nanoTime();
        if (now - stream.lastFaultCheck < FAULT_CHECK_NANOS || stream.isDestroyed() || stream.isCapturing()) {
            return false; // a capturing stream must not be queried: the query would invalidate the capture
        }
        stream.lastFaultCheck = now;
        stream.context.cu.bind();
        int r = Cu.streamQuery(stream.address);
        if (r == Cu.SUCCESS) {
            return true; // everything enqueued so far finished, the counter write included
        }
        if (r == Cu.ERROR_NOT_READY) {
            return false;
        }
        stream.context.cu.markFaulted();
        throw Cu.fault(r, "cuStreamQuery (completion marker on " + stream.context.description() + ")");
    }

    /** Polls with short pauses (counter markers have no event to sleep on; BLOCKING contexts use event markers). */
    @Override
    public boolean awaitDone(long timeoutNanos) {
        long end = System.nanoTime() + timeoutNanos;
        while (!isDone()) {
            if (System.nanoTime() - end >= 0) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(timeoutNanos, 20_000));
        }
        return true;
    }

    @Override
    public void release() {
    }
}
