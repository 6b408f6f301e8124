package dev.sluice.cuda;

import dev.sluice.spi.DeviceMemory;

/**
 * One device allocation.
 *
 * @param pooled whether it came from the device's stream-ordered memory pool ({@code cuMemAllocAsync}), so
 *               that any stream can free it with {@code cuMemFreeAsync}
 */
record CudaDeviceMemory(long address, long byteSize, boolean pooled) implements DeviceMemory {

    @Override
    public String toString() {
        return "CudaDeviceMemory[0x" + Long.toHexString(address) + ", " + byteSize + " bytes" + (pooled ? ", pooled]" : "]");
    }
}
