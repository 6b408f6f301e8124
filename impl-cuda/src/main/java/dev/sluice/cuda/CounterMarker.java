package dev.sluice.cuda;

import dev.sluice.spi.Marker;

/**
 * A completion marker that is a stream's counter reaching a sequence number (see {@link StreamCounters}).
 * {@link #isDone()} is a read of host memory; only once the marker has stayed not done for
 * {@link #FAULT_CHECK_NANOS} does it ask the driver whether the stream's context has faulted
 * ({@code cuStreamQuery}, see {@link CudaStream#faultCheckDue}), since a faulted stream never writes its counter. Other streams wait for it on the device with
 * {@code cuStreamWaitValue64} (GEQ). Nothing to release.
 */
final class CounterMarker implements Marker {

    /**
     * 100 µs: how long a marker stays not done before the completion thread asks the driver whether the context
     * faulted, and how often it asks again while the marker stays so; a fault is seen within that of the device
     * raising it. While markers complete, the completion thread makes no driver call at all: on the H100 its calls
     * slowed launches on the enqueuing thread (docs/decisions/0004-fault-checks-on-stalled-markers.md). {@code -Dsluice.cuda.faultCheckNanos}
     * changes it, a knob for measuring, not part of the API.
     */
    static final long FAULT_CHECK_NANOS = Long.getLong(dev.sluice.SluiceProperties.Measurement.CUDA_FAULT_CHECK_NANOS, 100_000L);

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
        // a faulted stream never writes its counter: ask the driver once this marker has stalled
        return stream.faultCheckDue(sequence) && stream.finishedUnlessFaulted();
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
