package dev.sluice.spi.support;

import dev.sluice.ClosedResourceException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The life of one native object that several threads may use and destroy at once (an event, a graph): one atomic
 * word counts the calls using it and says whether it is closed. {@link #close()} destroys it exactly once, however
 * many threads call it, and never under a call that is still using it: the last of those destroys it as it leaves.
 * A call that starts after {@link #close()} throws {@link ClosedResourceException} before touching the driver.
 *
 * <p>For backend authors: the CUDA and HIP backends guard their events and graphs with it.
 */
public final class Lifetime {

    private static final System.Logger LOG = System.getLogger(Lifetime.class.getName());
    private static final long CLOSED = 1;
    private static final long USER = 2;

    private final AtomicLong state = new AtomicLong();
    private final Object owner;
    private final Runnable destroy;

    /**
     * @param owner   the object guarded, named in exceptions
     * @param destroy frees the native object; run once
     */
    public Lifetime(Object owner, Runnable destroy) {
        this.owner = owner;
        this.destroy = destroy;
    }

    /** Marks a call as using the object; pair it with {@link #exit()} in a {@code finally}. */
    public void enter() {
        while (true) {
            long s = state.get();
            if ((s & CLOSED) != 0) {
                throw new ClosedResourceException(owner.toString());
            }
            if (state.compareAndSet(s, s + USER)) {
                return;
            }
        }
    }

    /** Ends a call that {@link #enter()} admitted; the last call out after {@link #close()} destroys the object. */
    public void exit() {
        if (state.addAndGet(-USER) == CLOSED) {
            try {
                destroy.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "destroying " + owner + " failed", e);
            }
        }
    }

    /**
     * Closes: destroys the object now if no call is using it, else when the last one leaves.
     *
     * @return whether this call closed it (false if it was closed already)
     */
    public boolean close() {
        while (true) {
            long s = state.get();
            if ((s & CLOSED) != 0) {
                return false;
            }
            if (state.compareAndSet(s, s | CLOSED)) {
                if (s == 0) {
                    destroy.run();
                }
                return true;
            }
        }
    }

    /** Whether {@link #close()} was called (the object may still be destroyed when its last call leaves). */
    public boolean isClosed() {
        return (state.get() & CLOSED) != 0;
    }
}
