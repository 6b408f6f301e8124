package dev.sluice.spi;

/**
 * One device allocation as the backend sees it. The public {@code DeviceBuffer} and its slices refer to
 * it with a byte offset; the backend frees it when the public layer calls
 * {@link StreamHandle#free(DeviceMemory)} or {@link ContextHandle#free(DeviceMemory)}.
 */
public interface DeviceMemory {

    /** Size of the allocation in bytes. */
    long byteSize();

    /**
     * The device address of the first byte, for backends that have one (CUDA, HIP), or 0 where device
     * memory has no numeric address visible to the host (CPU backend).
     */
    long address();
}
