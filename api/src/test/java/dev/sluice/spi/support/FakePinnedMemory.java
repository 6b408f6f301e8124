package dev.sluice.spi.support;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * Pinned memory for kit tests: real host memory from a shared arena, "mapped" at a fixed distance, so that the device
 * addresses the kit computes can be checked. Counts allocations and frees, and refuses a double free.
 */
final class FakePinnedMemory implements PinnedMemory, AutoCloseable {

    static final long DEVICE_OFFSET = 0x7000_0000_0000L;

    private final Arena arena = Arena.ofShared();
    private final Map<Long, Long> live = new HashMap<>();
    int allocations;
    int mappedAllocations;
    int frees;
    /** When set, the next {@link #devicePointer} fails. */
    boolean failMapping;
    /** When set, every {@link #allocate} fails. */
    boolean failAllocation;

    @Override
    public synchronized long allocate(long bytes, boolean mapped) {
        if (failAllocation) {
            throw new IllegalStateException("out of pinned memory (test)");
        }
        MemorySegment s = arena.allocate(bytes, 4096);
        s.fill((byte) 0x5a); // the kit must clear what it relies on
        live.put(s.address(), bytes);
        allocations++;
        if (mapped) {
            mappedAllocations++;
        }
        return s.address();
    }

    @Override
    public synchronized long devicePointer(long host) {
        if (failMapping) {
            failMapping = false;
            throw new IllegalStateException("mapping refused (test)");
        }
        return host + DEVICE_OFFSET;
    }

    @Override
    public synchronized void free(long host) {
        if (live.remove(host) == null) {
            throw new AssertionError("free of 0x" + Long.toHexString(host) + ", which is not allocated");
        }
        frees++;
    }

    synchronized int live() {
        return live.size();
    }

    @Override
    public void close() {
        arena.close();
    }
}
