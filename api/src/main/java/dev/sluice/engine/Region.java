package dev.sluice.engine;

import dev.sluice.spi.DeviceMemory;

/**
 * The part of an allocation one device buffer views: what the engine claims, orders and notes uses of for an operation
 * on that buffer.
 *
 * @param allocation the memory
 * @param byteOffset where the view begins in it
 * @param byteSize   how many bytes it views
 * @param ordered    whether automatic ordering applies to it
 * @param what       the buffer, named in messages
 */
public record Region(Allocation allocation, long byteOffset, long byteSize, boolean ordered, PublicMemory what) {

    /** The native memory. */
    public DeviceMemory memory() {
        return allocation.memory;
    }
}
