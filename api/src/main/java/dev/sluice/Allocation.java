package dev.sluice;

import dev.sluice.spi.DeviceMemory;
import java.util.concurrent.atomic.AtomicBoolean;

/** The root of a {@link DeviceBuffer} and its slices: the memory, where it was allocated, who used it. */
final class Allocation {

    final DeviceContext context;
    final DeviceMemory memory;
    /** The stream whose order the memory was allocated in, and is freed in. */
    final DeviceStream home;
    final UseTracker uses = new UseTracker();
    final AtomicBoolean closed = new AtomicBoolean();

    Allocation(DeviceContext context, DeviceMemory memory, DeviceStream home) {
        this.context = context;
        this.memory = memory;
        this.home = home;
    }
}
