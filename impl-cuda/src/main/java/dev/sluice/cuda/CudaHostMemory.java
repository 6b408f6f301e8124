package dev.sluice.cuda;

import dev.sluice.spi.HostMemory;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Pinned host memory: allocated with {@code cuMemHostAlloc}, or registered in place with {@code cuMemHostRegister}.
 * Freed (or unregistered) at most once: {@link #claimFree()} lets exactly one caller do it.
 */
final class CudaHostMemory implements HostMemory {

    private final MemorySegment segment;
    private final boolean registered;
    private final AtomicBoolean freed = new AtomicBoolean();

    CudaHostMemory(MemorySegment segment, boolean registered) {
        this.segment = segment;
        this.registered = registered;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public boolean registered() {
        return registered;
    }

    /** True for exactly one caller, the one that must free the memory. */
    boolean claimFree() {
        return freed.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return "CudaHostMemory[0x" + Long.toHexString(segment.address()) + ", " + segment.byteSize() + " bytes"
                + (registered ? ", registered]" : "]");
    }
}
