package dev.sluice.cuda;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A stream's own free list of marker events: a single-producer single-consumer ring. The completion thread
 * gives events back ({@link #offer}), the stream takes them under its lock ({@link #poll}); neither side locks
 * or allocates. What does not fit goes to, or comes from, the context's {@link EventPool}.
 */
final class EventRing {

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

    EventRing(int capacity) {
        slots = new long[capacity];
        mask = capacity - 1;
    }

    /** Producer side (one thread at a time). @return false if full */
    boolean offer(long event) {
        long t = tail;
        if (t - (long) HEAD.getAcquire(this) >= slots.length) {
            return false;
        }
        slots[(int) (t & mask)] = event;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /** Consumer side (one thread at a time). @return the event, or 0 if empty */
    long poll() {
        long h = head;
        if (h >= (long) TAIL.getAcquire(this)) {
            return 0;
        }
        long e = slots[(int) (h & mask)];
        HEAD.setRelease(this, h + 1);
        return e;
    }
}
