package dev.sluice.cuda;

/**
 * When a stream's completion thread should ask the driver whether the context faulted: only once one marker has
 * stayed not done for an interval, then again at that interval while it stays so. A faulted stream stops completing,
 * so its oldest marker stalls and the fault is seen within the interval; while markers keep completing, polls make
 * no such call, which on the H100 slowed launches on the enqueuing thread
 * (docs/decisions/0004-fault-checks-on-stalled-markers.md).
 *
 * <p>Not thread-safe: the completion thread is the one poller of a stream's markers. A racing {@code awaitDone} on
 * another thread costs at worst one query more, or one later.
 */
final class StallWatch {

    private final long intervalNanos;
    private long sequence = -1;
    private long since;

    StallWatch(long intervalNanos) {
        this.intervalNanos = intervalNanos;
    }

    /**
     * Called when a poll found marker {@code sequence} not done, at time {@code now} ({@link System#nanoTime}):
     * whether to check for a fault now. A marker other than the last one seen starts a new stall.
     */
    boolean due(long sequence, long now) {
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
