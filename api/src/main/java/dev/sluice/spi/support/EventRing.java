package dev.sluice.spi.support;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A stream's own free list of marker events: a single-producer single-consumer ring of native handles. The
 * completion thread gives events back ({@link #offer}), the stream takes them under its lock ({@link #poll});
 * neither side locks or allocates. What does not fit goes to, or comes from, the context's {@link EventPool}.
 *
 * <p>For backend authors: one thread at a time on each side; 0 is never a valid event.
 */
public final class EventRing {

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(EventRing.class, "head", long.class);
            TAIL = l.findVarHandle(EventRing.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] slots;
    private final int mask;
    /** Next slot to take (consumer). */
    private volatile long head;
    /** Next slot to fill (producer). */
    private volatile long tail;

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
        long t = tail;
        if (t - (long) HEAD.getAcquire(this) >= slots.length) {
            return false;
        }
        slots[(int) (t & mask)] = event;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /**
     * Consumer side: takes the oldest event.
     *
     * @return the event, or 0 if the ring is empty
     */
    public long poll() {
        long h = head;
        if (h >= (long) TAIL.getAcquire(this)) {
            return 0;
        }
        long e = slots[(int) (h & mask)];
        HEAD.setRelease(this, h + 1);
        return e;
    }
}
