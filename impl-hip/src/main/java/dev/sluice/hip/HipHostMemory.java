package dev.sluice.hip;

import dev.sluice.spi.HostMemory;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Page-locked host memory: from {@code hipHostMalloc} (portable, mapped), or existing memory pinned in place
 * with {@code hipHostRegister} ({@code registered}). Freed (or unregistered) at most once: {@link #claimFree()} lets
 * exactly one caller do it.
 */
final class HipHostMemory implements HostMemory {

    private final MemorySegment segment;
    private final boolean registered;
    private final AtomicBoolean freed = new AtomicBoolean();

    HipHostMemory(MemorySegment segment, boolean registered) {
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
        return "HipHostMemory[0x" + Long.toHexString(segment.address()) + ", " + segment.byteSize() + " bytes"
                + (registered ? ", registered]" : "]");
    }
}
