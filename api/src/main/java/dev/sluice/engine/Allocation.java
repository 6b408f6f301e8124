package dev.sluice.engine;

import dev.sluice.spi.DeviceMemory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Device memory a context allocated: the native memory, the stream it was allocated in (and is freed in), the uses of
 * streams that have not finished with it, and whether its owner closed it. Every view of one allocation (slices,
 * reinterpretations) shares this object.
 */
public final class Allocation {

    final ContextCore context;
    final DeviceMemory memory;
    /** The stream whose order the memory was allocated in, and is freed in. */
    final StreamEngine home;
    final UseTracker uses = new UseTracker();
    final AtomicBoolean closed = new AtomicBoolean();

    Allocation(ContextCore context, DeviceMemory memory, StreamEngine home) {
        this.context = context;
        this.memory = memory;
        this.home = home;
    }

    /** The native memory. */
    public DeviceMemory memory() {
        return memory;
    }

    /** Whether its owner closed it (its free is then enqueued or done). */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Marks it closed; true for the one caller that did, who then {@linkplain ContextCore#release(Allocation) releases}
     * it or enqueues its free.
     */
    public boolean close() {
        return closed.compareAndSet(false, true);
    }

    /** The closed flag, for the leak detector, which sets it when it releases the memory of an unreachable buffer. */
    public AtomicBoolean closedFlag() {
        return closed;
    }
}
