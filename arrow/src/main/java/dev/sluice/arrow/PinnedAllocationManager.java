package dev.sluice.arrow;

import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One Arrow allocation held in the first bytes of one Sluice pinned host buffer of a {@link HostBufferPool}, which may be
 * larger (its size class).
 * Arrow calls {@link #release0()} when the last reference to the memory is released; the buffer then goes back to the
 * factory's pool, reusable once every copy already enqueued on it has finished, or is closed (freed once they have), so
 * a vector closed while its copy is in flight keeps its memory for the copy.
 */
final class PinnedAllocationManager extends AllocationManager {

    private final HostBuffer bytes;
    private final HostBufferPool pool;

    /** {@code bytes}, taken from {@code pool}, which goes back to it when Arrow releases them. */
    PinnedAllocationManager(BufferAllocator accountingAllocator, HostBuffer bytes, HostBufferPool pool) {
        super(accountingAllocator);
        this.bytes = bytes;
        this.pool = pool;
    }

    /** The pinned memory Arrow allocated, as {@link dev.sluice.DType#U8} elements. */
    HostBuffer bytes() {
        return bytes;
    }

    /** The size Arrow asked for, which its accounting counts (not the size class of the buffer behind it). */
    @Override
    public long getSize() {
        return bytes.byteSize();
    }

    @Override
    protected long memoryAddress() {
        return bytes.segment().address();
    }

    @Override
    protected void release0() {
        pool.give(bytes);
    }
}
