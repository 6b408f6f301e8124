package dev.sluice.micrometer;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A bounded ring of latencies, each with its operation category, between the thread that completes operations and the
 * thread that records them into timers ({@link DeviceMetrics}). One producer: a context's completion thread, the only
 * thread that completes operations successfully (failed ones are timed at once and never pass through here). One
 * consumer at a time: the recorder, or {@link DeviceMetrics#flush()}, under the binder's drain lock. Each slot has a
 * sequence, as in Dmitry Vyukov's bounded queue: the producer writes the value at its position and publishes it with a
 * release store of the slot's sequence; the consumer reads slots in order while their sequence says they are written,
 * and gives each back with a release store. No compare-and-set on either side. A full ring refuses the value (the
 * binder then counts it as not timed): the producer never blocks.
 */
final class LatencyRing {

    /** Bits of an entry holding the latency; the category lies above them. */
    private static final int LATENCY_BITS = 56;
    private static final long LATENCY_MASK = (1L << LATENCY_BITS) - 1;

    private final long[] values;
    /** Per slot: its position while free for a producer at that position, the position + 1 once written. */
    private final AtomicLongArray sequences;
    private final int mask;
    /** The producer's position; read and written by the producer only. */
    private long tail;
    /** The consumer's position; read and written under the binder's drain lock only. */
    private long head;

    /** @param capacity a power of two */
    LatencyRing(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is not a power of two");
        }
        values = new long[capacity];
        sequences = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            sequences.setPlain(i, i);
        }
        mask = capacity - 1;
    }

    /** An entry: category {@code c} (0 to 127) and a latency, clamped to 0 .. 2^56 - 1 ns (about 2.3 years). */
    static long entry(int c, long latencyNanos) {
        return (long) c << LATENCY_BITS | Math.min(Math.max(latencyNanos, 0), LATENCY_MASK);
    }

    /** Adds {@code entry}; false if the ring is full. The producer thread only. */
    boolean offer(long entry) {
        long pos = tail;
        int i = (int) pos & mask;
        if (sequences.getAcquire(i) != pos) {
            return false; // the slot still holds the value of one lap ago, not yet drained: full
        }
        values[i] = entry;
        sequences.setRelease(i, pos + 1); // publishes the value
        tail = pos + 1;
        return true;
    }

    /** Hands every written entry, in order, to {@code sink}'s {@code record}. One consumer at a time. */
    void drain(Sink sink) {
        long h = head;
        try {
            while (true) {
                int i = (int) h & mask;
                if (sequences.getAcquire(i) != h + 1) {
                    return;
                }
                long e = values[i];
                sequences.setRelease(i, h + values.length); // free for the producer one lap on
                h++;
                sink.record((int) (e >>> LATENCY_BITS), e & LATENCY_MASK);
            }
        } finally {
            head = h;
        }
    }

    /** Where {@link #drain} puts the entries. */
    interface Sink {
        void record(int category, long latencyNanos);
    }
}
