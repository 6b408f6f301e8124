package dev.sluice.micrometer;

import dev.sluice.spi.support.EventRing;

/**
 * A bounded ring of latencies, each with its operation category, between the thread that completes operations and the
 * thread that records them into timers ({@link DeviceMetrics}). One producer: a context's completion thread, the only
 * thread that completes operations successfully (failed ones are timed at once and never pass through here). One
 * consumer at a time: the recorder, or {@link DeviceMetrics#flush()}, under the binder's drain lock.
 *
 * <p>The entries travel through an {@link EventRing}, the single-producer ring the backends use for marker events:
 * each side writes lines of its own and reads the other's position only when the ring looks full or empty, so an offer
 * takes no atomic instruction and touches no line the consumer writes, but for that rare read. A full ring refuses
 * the value (the binder then counts it as not timed): the producer never blocks.
 */
final class LatencyRing {

    /** Bits of an entry holding the latency; the category lies above them. */
    private static final int LATENCY_BITS = 56;
    private static final long LATENCY_MASK = (1L << LATENCY_BITS) - 1;
    /** Bits of an entry holding the category, above the latency. */
    private static final long CATEGORY_MASK = 0x7F;
    /** Set in every entry: the ring answers 0 for empty, and a category-0 latency of 0 ns would be 0 without it. */
    private static final long PRESENT = Long.MIN_VALUE;

    private final EventRing ring;
    private final int capacity;

    /**
     * @param capacity a power of two
     * @throws IllegalArgumentException otherwise
     */
    LatencyRing(int capacity) {
        this.ring = new EventRing(capacity);
        this.capacity = capacity;
    }

    /** An entry: category {@code c} (0 to 127) and a latency, clamped to 0 .. 2^56 - 1 ns (about 2.3 years). */
    static long entry(int c, long latencyNanos) {
        return PRESENT | (c & CATEGORY_MASK) << LATENCY_BITS | Math.min(Math.max(latencyNanos, 0), LATENCY_MASK);
    }

    /** Adds {@code entry}; false if the ring is full. The producer thread only. */
    boolean offer(long entry) {
        return ring.offer(entry);
    }

    /**
     * Hands the entries published so far, in order, to {@code sink}'s {@code record}, giving each slot back as it goes.
     * At most a ringful: a producer that keeps the ring filled cannot hold the consumer here for ever. One consumer at
     * a time.
     */
    void drain(Sink sink) {
        for (int i = 0; i < capacity; i++) {
            long e = ring.poll();
            if (e == 0) {
                return;
            }
            sink.record((int) (e >>> LATENCY_BITS & CATEGORY_MASK), e & LATENCY_MASK);
        }
    }

    /** Where {@link #drain} puts the entries. */
    interface Sink {
        void record(int category, long latencyNanos);
    }
}
