package dev.sluice.arrow;

import dev.sluice.HostBuffer;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One Arrow allocation held in one Sluice pinned host buffer. Arrow calls {@link #release0()} when the last reference
 * to the memory is released; closing the host buffer frees it only once every copy already enqueued on it has
 * finished, so a vector closed while its copy is in flight keeps its memory for the copy.
 */
final class PinnedAllocationManager extends AllocationManager {

    private final HostBuffer bytes;

    PinnedAllocationManager(BufferAllocator accountingAllocator, HostBuffer bytes) {
        super(accountingAllocator);
        this.bytes = bytes;
    }

    /** The pinned memory, as {@link dev.sluice.DType#U8} elements. */
    HostBuffer bytes() {
        return bytes;
    }

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
        bytes.close();
    }
}
