package dev.sluice.micrometer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded ring of latencies, each with its operation category, between the thread that completes operations and the
 * thread that records them into timers ({@link DeviceMetrics}). One producer: a context's completion thread, the only
 * thread that completes operations successfully (failed ones are timed at once and never pass through here). One
 * consumer at a time: the recorder, or {@link DeviceMetrics#flush()}, under the binder's drain lock.
 *
 * <p>Each side publishes its position with a release store and reads the other's with an acquire load, as in Lamport's
 * single-producer queue, and the producer keeps the last consumer position it read: an offer writes the value and its
 * own position, and reads the consumer's only when the ring looks full. So an offer touches no line that the consumer
 * writes, but for that rare read, and takes no atomic instruction. The consumer gives slots back every
 * {@value #RELEASE_EVERY} entries while it drains. A full ring refuses the value (the binder then counts it as not
 * timed): the producer never blocks.
 */
final class LatencyRing {

    /** Bits of an entry holding the latency; the category lies above them. */
    private static final int LATENCY_BITS = 56;
    private static final long LATENCY_MASK = (1L << LATENCY_BITS) - 1;
    /** How many entries the consumer reads between two publications of its position. */
    static final int RELEASE_EVERY = 64;

    private static final VarHandle AT = MethodHandles.arrayElementVarHandle(long[].class);
    /**
     * Where the positions lie in {@link #positions}: the producer's (with the consumer's as the producer last read it
     * beside it) and the consumer's, {@link Counts#PAD} longs apart and from either end, so that each side writes a line
     * of its own.
     */
    private static final int TAIL = Counts.PAD;
    private static final int SEEN_HEAD = TAIL + 1;
    private static final int HEAD = 2 * Counts.PAD;

    private final long[] values;
    private final int mask;
    /**
     * The producer's position ({@code TAIL}, published to the consumer), the consumer's as the producer last read it
     * ({@code SEEN_HEAD}, the producer's own) and the consumer's position ({@code HEAD}, published to the producer;
     * read and written by the consumer under the drain lock).
     */
    private final long[] positions = new long[3 * Counts.PAD + 1];

    /** @param capacity a power of two */
    LatencyRing(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is not a power of two");
        }
        values = new long[capacity];
        mask = capacity - 1;
    }

    /** An entry: category {@code c} (0 to 127) and a latency, clamped to 0 .. 2^56 - 1 ns (about 2.3 years). */
    static long entry(int c, long latencyNanos) {
        return (long) c << LATENCY_BITS | Math.min(Math.max(latencyNanos, 0), LATENCY_MASK);
    }

    /** Adds {@code entry}; false if the ring is full. The producer thread only. */
    boolean offer(long entry) {
        long[] p = positions;
        long t = p[TAIL];
        if (t - p[SEEN_HEAD] == values.length) {
            long h = (long) AT.getAcquire(p, HEAD); // the slots the consumer has given back since
            p[SEEN_HEAD] = h;
            if (t - h == values.length) {
                return false;
            }
        }
        values[(int) t & mask] = entry;
        AT.setRelease(p, TAIL, t + 1); // publishes the value
        return true;
    }

    /** Hands every entry published so far, in order, to {@code sink}'s {@code record}. One consumer at a time. */
    void drain(Sink sink) {
        long[] p = positions;
        long h = p[HEAD];
        long t = (long) AT.getAcquire(p, TAIL);
        try {
            while (h != t) {
                long e = values[(int) h & mask];
                h++;
                if ((h & (RELEASE_EVERY - 1)) == 0) {
                    AT.setRelease(p, HEAD, h); // the slots read so far, back to the producer
                }
                sink.record((int) (e >>> LATENCY_BITS), e & LATENCY_MASK);
            }
        } finally {
            AT.setRelease(p, HEAD, h);
        }
    }

    /** Where {@link #drain} puts the entries. */
    interface Sink {
        void record(int category, long latencyNanos);
    }
}
