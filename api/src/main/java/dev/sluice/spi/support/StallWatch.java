package dev.sluice.spi.support;

/**
 * When a stream's completion thread should ask the driver whether the context faulted: only once one marker has
 * stayed not done for an interval, then again at that interval while it stays so. A faulted stream stops completing,
 * so its oldest marker stalls and the fault is seen within the interval; while markers keep completing, polls make
 * no such call, which on the H100 slowed launches on the enqueuing thread
 * (docs/decisions/0004-fault-checks-on-stalled-markers.md).
 *
 * <p>For backend authors. Not thread-safe: the completion thread is the one poller of a stream's markers. A racing {@code awaitDone} on
 * another thread costs at worst one query more, or one later.
 */
public final class StallWatch {

    /**
     * 100 µs: how long a marker stays not done before the completion thread asks the driver whether the context
     * faulted, and how often it asks again while the marker stays so; a fault is seen within that of the device
     * raising it. While markers complete, the completion thread makes no driver call at all: on the H100 its calls
     * slowed launches on the enqueuing thread (docs/gpu-runs.md). {@code -Dsluice.cuda.faultCheckNanos}
     * changes it for every backend that asks, a knob for measuring, not part of the API.
     */
    public static final long FAULT_CHECK_NANOS = Long.getLong(dev.sluice.SluiceProperties.Measurement.CUDA_FAULT_CHECK_NANOS, 100_000L);

    private final long intervalNanos;
    private long sequence = -1;
    private long since;

    /** @param intervalNanos how long a marker stays not done before a check, and how often while it stays so */
    public StallWatch(long intervalNanos) {
        this.intervalNanos = intervalNanos;
    }

    /**
     * Called when a poll found marker {@code sequence} not done, at time {@code now} ({@link System#nanoTime}):
     * whether to check for a fault now. A marker other than the last one seen starts a new stall.
     */
    public boolean due(long sequence, long now) {
        if (sequence != this.sequence) {
            this.sequence = sequence;
            this.since = now;
            return false;
        }
        if (now - since < intervalNanos) {
            return false;
        }
        since = now;
        return true;
    }
}
