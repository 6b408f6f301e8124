package dev.sluice.hip;

import java.util.Arrays;

/**
 * Events with timing disabled ({@code hipEventDisableTiming}), reused as completion markers: creating an
 * event per operation would cost more than the operation's future is worth. Events belong to the context's
 * device; the pool creates them with the device bound.
 */
final class HipEventPool {

    private final HipContext context;
    private long[] free = new long[64];
    private int count;
    private int created;
    private boolean destroyed;

    HipEventPool(HipContext context) {
        this.context = context;
    }

    /** An event ready to record. */
    long take() {
        synchronized (this) {
            if (destroyed) {
                throw new IllegalStateException("event pool of " + context + " destroyed");
            }
            if (count > 0) {
                return free[--count];
            }
            created++;
        }
        context.bind();
        return context.api.eventCreateWithFlags(HipConstants.hipEventDisableTiming);
    }

    /** Returns an event whose last record has completed (or that no one waits on any more). */
    void give(long event) {
        synchronized (this) {
            if (!destroyed) {
                if (count == free.length) {
                    free = Arrays.copyOf(free, count * 2);
                }
                free[count++] = event;
                return;
            }
        }
        destroyQuietly(event);
    }

    /** Destroys the pooled events; events still out are destroyed as they come back. */
    void destroy() {
        long[] events;
        int n;
        synchronized (this) {
            destroyed = true;
            events = free;
            n = count;
            count = 0;
        }
        for (int i = 0; i < n; i++) {
            destroyQuietly(events[i]);
        }
    }

    synchronized int created() {
        return created;
    }

    private void destroyQuietly(long event) {
        try {
            context.api.eventDestroy(event);
        } catch (RuntimeException e) {
            // the context is going away; a fault may make every call fail
        }
    }
}
