package dev.sluice.spi.support;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.Objects;

/**
 * A context's pool of events for completion markers and internal ordering: creating an event per operation would
 * cost more than the operation's future is worth. {@link #take()} reuses a returned event or creates one; the pool
 * grows to the number of events out at once and never shrinks; {@link #destroy()} destroys every event it ever
 * created, given back or not (the context has finished its work by then), and events given back later are dropped.
 *
 * <p>For backend authors: thread-safe under one lock; {@link #take()} calls the driver only when no event is free.
 * A stream that records a marker per operation keeps its own {@link EventRing} in front of the pool.
 */
public final class EventPool {

    private static final Logger LOG = System.getLogger(EventPool.class.getName());

    private final NativeEvents events;
    private long[] free = new long[64];
    private int freeCount;
    private long[] all = new long[64];
    private int allCount;
    private boolean destroyed;

    /** @param events how the backend creates and destroys an event */
    public EventPool(NativeEvents events) {
        this.events = Objects.requireNonNull(events, "events");
    }

    /**
     * An event that is unrecorded or whose last record has completed.
     *
     * @throws IllegalStateException after {@link #destroy()}
     */
    public synchronized long take() {
        if (destroyed) {
            throw new IllegalStateException("event pool destroyed");
        }
        if (freeCount > 0) {
            return free[--freeCount];
        }
        long e = events.create();
        if (allCount == all.length) {
            all = Arrays.copyOf(all, all.length * 2);
        }
        all[allCount++] = e;
        return e;
    }

    /** Returns an event of this pool whose last record has completed (or that no one will wait on again). */
    public synchronized void give(long event) {
        if (destroyed) {
            return; // destroyed with the pool already
        }
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = event;
    }

    /** How many events the pool has created (given back or not), for tests and diagnostics. */
    public synchronized int created() {
        return allCount;
    }

    /** Destroys every event the pool created, once; failures (a faulted device) are logged and the rest still go. */
    public synchronized void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (int i = 0; i < allCount; i++) {
            try {
                events.destroy(all[i]);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "destroying a pooled event failed", e);
            }
        }
        allCount = 0;
        freeCount = 0;
    }
}
