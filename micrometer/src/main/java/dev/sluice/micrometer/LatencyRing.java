package dev.sluice.micrometer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A bounded ring of latencies, each with its operation category, from the thread that completes a stream's operations
 * to the thread that records them into timers ({@link DeviceMetrics}). One producer: the first thread that offers (the
 * context's completion thread); any other thread's offer is refused, and that thread (rarely one: a context failing
 * operations as it closes) records the latency itself. One consumer at a time (the recorder, or
 * {@link DeviceMetrics#flush()}, under the binder's drain lock). A single-producer, single-consumer ring whose producer
 * caches the consumer's position: an offer is a few plain stores and one release store, and the memory moves between
 * the two threads about once per eight entries. A full ring refuses the value: nothing blocks and nothing is lost.
 */
final class LatencyRing {

    /** Bits of an entry holding the latency; the category lies above them. */
    private static final int LATENCY_BITS = 56;
    private static final long LATENCY_MASK = (1L << LATENCY_BITS) - 1;
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(LatencyRing.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] values;
    private final int mask;
    /** The producer: set once, by the first offer. */
    @SuppressWarnings("unused") // through OWNER
    private volatile @Nullable Thread owner;
    /** The producer's own: the next position to write, and the consumer's position as last read. */
    private long tail;
    private long headSeen;
    /** Entries written so far, published by the producer (release) for the consumer. */
    private final AtomicLong written = new AtomicLong();
    /** Entries taken so far, published by the consumer (release) for the producer. */
    private final AtomicLong taken = new AtomicLong();
    /** Entries a drain takes before recording them. */
    private static final int BATCH = 64;
    /** The consumer's: the entries taken and not yet recorded. */
    private final long[] batch = new long[BATCH];

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

    /** Adds {@code entry}; false if the ring is full or the caller is not its producer. */
    boolean offer(long entry) {
        Thread me = Thread.currentThread();
        Thread o = owner;
        if (o != me && (o != null || !OWNER.compareAndSet(this, null, me))) {
            return false;
        }
        long t = tail;
        if (t - headSeen == values.length) {
            headSeen = taken.getAcquire();
            if (t - headSeen == values.length) {
                return false;
            }
        }
        values[(int) t & mask] = entry;
        tail = t + 1;
        written.setRelease(t + 1); // publishes the value
        return true;
    }

    /**
     * Hands every written entry, in order, to {@code sink}'s {@code record}. One consumer at a time. Entries are taken
     * {@value #BATCH} at a time and their slots given back before they are recorded, so that the producer, which may
     * write on while a long drain records, finds room.
     */
    void drain(Sink sink) {
        long h = taken.getPlain();
        long end = written.getAcquire();
        while (h < end) {
            int n = (int) Math.min(BATCH, end - h);
            for (int k = 0; k < n; k++) {
                batch[k] = values[(int) (h + k) & mask];
            }
            h += n;
            taken.setRelease(h); // the slots are the producer's again
            for (int k = 0; k < n; k++) {
                long e = batch[k];
                sink.record((int) (e >>> LATENCY_BITS), e & LATENCY_MASK);
            }
        }
    }

    /** Where {@link #drain} puts the entries. */
    interface Sink {
        void record(int category, long latencyNanos);
    }
}
