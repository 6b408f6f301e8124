package dev.sluice.hip;

import dev.sluice.spi.HostMemory;
import java.lang.foreign.MemorySegment;

/**
 * Page-locked host memory: from {@code hipHostMalloc} (portable, mapped), or existing memory pinned in place
 * with {@code hipHostRegister} ({@code registered}).
 */
record HipHostMemory(MemorySegment segment, boolean registered) implements HostMemory {
}
