package dev.sluice.spi.support;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A stream's own free list of marker events: a single-producer single-consumer ring of native handles. The
 * completion thread gives events back ({@link #offer}), the stream takes them under its lock ({@link #poll});
 * neither side locks or allocates. What does not fit goes to, or comes from, the context's {@link EventPool}.
 *
 * <p>For backend authors: one thread at a time on each side; 0 is never a valid event. Any nonzero longs pass the same
 * way ({@code sluice-micrometer} hands operation latencies from the completion thread to its recorder through one).
 */
public final class EventRing {

    private static final VarHandle AT = MethodHandles.arrayElementVarHandle(long[].class);
    /**
     * Where the positions lie in {@link #positions}, 32 longs (256 bytes) apart and from either end: each side writes
     * lines of its own. Side by side in one object, the producer's writes and the consumer's would take the line from
     * each other's core for every marker. Each side keeps, beside its own position, the other's as it last read it, and
     * reads the other's again only when the ring looks full or empty.
     */
    private static final int PAD = 32;
    private static final int TAIL = PAD;
    private static final int SEEN_HEAD = TAIL + 1;
    private static final int HEAD = 2 * PAD;
    private static final int SEEN_TAIL = HEAD + 1;

    private final long[] slots;
    private final int mask;
    /** The producer's next slot to fill ({@code TAIL}) and the consumer's next slot to take ({@code HEAD}), as above. */
    private final long[] positions = new long[3 * PAD];

    /**
     * @param capacity a power of two, at least 1
     * @throws IllegalArgumentException naming the capacity otherwise
     */
    public EventRing(int capacity) {
        if (capacity < 1 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity " + capacity + " must be a power of two of at least 1");
        }
        slots = new long[capacity];
        mask = capacity - 1;
    }

    /**
     * Producer side: adds {@code event} unless the ring is full.
     *
     * @return false if full (the caller gives the event to the pool instead)
     */
    public boolean offer(long event) {
        long[] p = positions;
        long t = p[TAIL];
        if (t - p[SEEN_HEAD] >= slots.length) {
            p[SEEN_HEAD] = (long) AT.getAcquire(p, HEAD);
            if (t - p[SEEN_HEAD] >= slots.length) {
                return false;
            }
        }
        slots[(int) (t & mask)] = event;
        AT.setRelease(p, TAIL, t + 1);
        return true;
    }

    /**
     * Consumer side: takes the oldest event.
     *
     * @return the event, or 0 if the ring is empty
     */
    public long poll() {
        long[] p = positions;
        long h = p[HEAD];
        if (h >= p[SEEN_TAIL]) {
            p[SEEN_TAIL] = (long) AT.getAcquire(p, TAIL);
            if (h >= p[SEEN_TAIL]) {
                return 0;
            }
        }
        long e = slots[(int) (h & mask)];
        AT.setRelease(p, HEAD, h + 1);
        return e;
    }
}
