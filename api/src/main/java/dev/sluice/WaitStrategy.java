package dev.sluice;

/**
 * How a context's completion thread waits for device work while futures are pending, trading CPU time
 * for completion latency, in the spirit of the LMAX Disruptor's wait strategies. With nothing pending the
 * thread always parks until the next enqueue wakes it.
 */
public enum WaitStrategy {
    /**
     * Polls, about a microsecond apart: lowest latency, one core fully busy while work is pending. The
     * microsecond keeps the polls (driver calls on CUDA) from slowing the threads that enqueue (docs/architecture.md).
     */
    SPIN,
    /** Polls, yielding the core between polls. */
    YIELD,
    /**
     * Spins for a few microseconds, then yields, then parks with a growing pause (up to
     * {@link ContextOptions#maxParkNanos()}): near-spin latency for short waits, little CPU for long ones.
     * The default.
     */
    PARK,
    /** Blocks in the driver on the oldest pending marker (a blocking-sync event on GPUs): least CPU, most latency. */
    BLOCKING
}
