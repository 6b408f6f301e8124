package dev.sluice.engine;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What device and host memory a context owns have in common: the context, the uses of streams that have not finished
 * with the memory (a free waits for them), and whether its owner closed it.
 */
abstract sealed class OwnedMemory implements ContextOwned permits Allocation, HostAllocation {

    final ContextState context;
    final UseTracker uses = new UseTracker();
    final AtomicBoolean closed = new AtomicBoolean();

    OwnedMemory(ContextState context) {
        this.context = context;
    }

    /** Whether its owner closed it (its free is then enqueued or done). */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Marks it closed; true for the one caller that did, who then releases it ({@link ContextRuntime#release}) or
     * enqueues its free.
     */
    public boolean close() {
        return closed.compareAndSet(false, true);
    }

    /** The closed flag, for the leak detector, which sets it when it releases the memory of an unreachable owner. */
    public AtomicBoolean closedFlag() {
        return closed;
    }
}
