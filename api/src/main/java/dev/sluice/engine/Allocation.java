package dev.sluice.engine;

import dev.sluice.spi.DeviceMemory;

/**
 * Device memory a context allocated: the native memory, the stream it was allocated in (and is freed in), the uses of
 * streams that have not finished with it, and whether its owner closed it. Every view of one allocation (slices,
 * reinterpretations) shares this object.
 */
public final class Allocation extends OwnedMemory {

    final DeviceMemory memory;
    /** The stream whose order the memory was allocated in, and is freed in. */
    final StreamEnqueuer home;

    Allocation(ContextState context, DeviceMemory memory, StreamEnqueuer home) {
        super(context);
        this.memory = memory;
        this.home = home;
    }

    /** The native memory. */
    public DeviceMemory memory() {
        return memory;
    }
}
