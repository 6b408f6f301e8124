package dev.sluice.cuda;

import java.util.Arrays;

/**
 * Layer 2: a pool of events of one set of flags (timing disabled) for completion markers and internal
 * ordering. {@link #take()} reuses a returned event or creates one; the pool grows to the number of
 * markers in flight and never shrinks; every event is destroyed with the pool.
 */
final class EventPool {

    private final int flags;
    private long[] free = new long[64];
    private int freeCount;
    private long[] all = new long[64];
    private int allCount;
    private boolean destroyed;

    /** @param flags {@code CU_EVENT_*} flags; {@code CU_EVENT_DISABLE_TIMING} (2) is always added */
    EventPool(int flags) {
        this.flags = flags | 2;
    }

    /** An unrecorded or completed event; the caller's thread must have the context bound when it must create one. */
    synchronized long take() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (destroyed) {
            throw new IllegalStateException("event pool destroyed");
        }
        long e = Cu.eventCreate(flags);
        if (allCount == all.length) {
            all = Arrays.copyOf(all, all.length * 2);
        }
        all[allCount++] = e;
        return e;
    }

    /** Returns an event whose last record has completed (or that will not be waited for again). */
    synchronized void give(long event) {
        if (destroyed) {
            return;
        }
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = event;
    }

    /** Destroys every event the pool ever created, given back or not. The context must be bound. */
    synchronized void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (int i = 0; i < allCount; i++) {
            Cu.eventDestroy(all[i]);
        }
        allCount = 0;
        freeCount = 0;
    }
}
