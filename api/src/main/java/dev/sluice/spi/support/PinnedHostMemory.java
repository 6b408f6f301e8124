package dev.sluice.spi.support;

import dev.sluice.spi.HostMemory;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Page-locked host memory of a native backend, allocated by it or registered in place, and freed (or unregistered)
 * at most once: {@link #claimFree()} lets exactly one caller do it.
 *
 * <p>For backend authors: the CUDA and HIP backends hand these out as their {@link HostMemory}.
 */
public final class PinnedHostMemory implements HostMemory {

    private final MemorySegment segment;
    private final boolean registered;
    private final AtomicBoolean freed = new AtomicBoolean();

    /**
     * @param segment    the memory
     * @param registered whether the caller's memory was registered in place (unregister it) rather than allocated
     *                   (free it)
     */
    public PinnedHostMemory(MemorySegment segment, boolean registered) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.registered = registered;
    }

    /**
     * {@code memory} as host memory of a native backend.
     *
     * @throws IllegalArgumentException naming the memory if another backend made it
     */
    public static PinnedHostMemory of(HostMemory memory) {
        if (memory instanceof PinnedHostMemory a) {
            return a;
        }
        throw new IllegalArgumentException("host memory " + memory + " was not allocated by this backend");
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public boolean registered() {
        return registered;
    }

    /** True for exactly one caller, the one that must free (or unregister) the memory. */
    public boolean claimFree() {
        return freed.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return "PinnedHostMemory[0x" + Long.toHexString(segment.address()) + ", " + segment.byteSize() + " bytes"
                + (registered ? ", registered]" : "]");
    }
}
