package dev.sluice.hip;

import dev.sluice.spi.DeviceMemory;

/**
 * One device allocation.
 *
 * @param address  the device pointer
 * @param byteSize its size
 * @param pooled   whether it came from {@code hipMallocAsync} (freed with {@code hipFreeAsync}) rather than
 *                 {@code hipMalloc}
 * @param device   the HIP device id it lives on
 */
record HipDeviceMemory(long address, long byteSize, boolean pooled, int device) implements DeviceMemory {

    @Override
    public String toString() {
        return "HipDeviceMemory[0x" + Long.toHexString(address) + ", " + byteSize + " bytes, device " + device
                + (pooled ? ", stream-ordered" : "") + "]";
    }
}
