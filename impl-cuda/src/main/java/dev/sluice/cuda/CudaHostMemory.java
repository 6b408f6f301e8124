package dev.sluice.cuda;

import dev.sluice.spi.HostMemory;
import java.lang.foreign.MemorySegment;

/** Pinned host memory: allocated with {@code cuMemHostAlloc}, or registered in place with {@code cuMemHostRegister}. */
record CudaHostMemory(MemorySegment segment, boolean registered) implements HostMemory {
}
