package dev.sluice.arrow;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ReferenceManager;

/**
 * Arrow memory from {@code java.lang.foreign}: each allocation a segment of its own shared arena, closed when Arrow
 * releases it. What {@link ArrowDefaults} makes Arrow's default allocation manager where the application has neither
 * {@code arrow-memory-unsafe} nor {@code arrow-memory-netty}, so that {@code arrow-vector} and {@code arrow-memory-core}
 * suffice: no {@code sun.misc.Unsafe}, no JDK flag (a shared arena's allocation is not a restricted method).
 */
final class ForeignAllocationManager extends AllocationManager {

    /** Arrow buffers start on a cache line, as Arrow's format recommends. */
    private static final long ALIGNMENT = 64;

    /** The factory: each {@code create} a new arena and segment. */
    static final AllocationManager.Factory FACTORY = new AllocationManager.Factory() {
        @Override
        public AllocationManager create(BufferAllocator accountingAllocator, long size) {
            return new ForeignAllocationManager(accountingAllocator, size);
        }

        @Override
        public ArrowBuf empty() {
            return Empty.BUFFER;
        }
    };

    /** Arrow's zero-length buffer, made at first use: making an {@link ArrowBuf} initializes Arrow's allocators. */
    private static final class Empty {
        static final ArrowBuf BUFFER = new ArrowBuf(ReferenceManager.NO_OP, null, 0,
                Arena.global().allocate(8, 8).address());
    }

    private final Arena arena;
    private final MemorySegment memory;
    private final long size;

    private ForeignAllocationManager(BufferAllocator accountingAllocator, long size) {
        super(accountingAllocator);
        Arena a = Arena.ofShared(); // released from whichever thread drops the last reference: not confined
        try {
            this.memory = a.allocate(Math.max(size, 1), ALIGNMENT);
        } catch (RuntimeException | OutOfMemoryError e) {
            a.close();
            throw e;
        }
        this.arena = a;
        this.size = size;
    }

    @Override
    public long getSize() {
        return size;
    }

    @Override
    protected long memoryAddress() {
        return memory.address();
    }

    @Override
    protected void release0() {
        arena.close();
    }
}
