package dev.sluice.hip;

import dev.sluice.spi.DeviceMemory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One device allocation, freed at most once: every free path claims it first ({@link #claimFree()}), so a second
 * free of the same memory, from whatever thread, never reaches the runtime.
 */
final class HipDeviceMemory implements DeviceMemory {

    private final long address;
    private final long byteSize;
    private final boolean pooled;
    private final int device;
    private final AtomicBoolean freed;

    /**
     * @param address  the device pointer
     * @param byteSize its size
     * @param pooled   whether it came from {@code hipMallocAsync} (freed with {@code hipFreeAsync}) rather than
     *                 {@code hipMalloc}
     * @param device   the HIP device id it lives on
     */
    HipDeviceMemory(long address, long byteSize, boolean pooled, int device) {
        this(address, byteSize, pooled, device, false);
    }

    private HipDeviceMemory(long address, long byteSize, boolean pooled, int device, boolean freed) {
        this.address = address;
        this.byteSize = byteSize;
        this.pooled = pooled;
        this.device = device;
        this.freed = new AtomicBoolean(freed);
    }

    /** Memory the module owns (a {@code __device__} or {@code __constant__} variable): never freed through Sluice. */
    static HipDeviceMemory moduleVariable(long address, long byteSize, int device) {
        return new HipDeviceMemory(address, byteSize, false, device, true);
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    boolean pooled() {
        return pooled;
    }

    int device() {
        return device;
    }

    /** True for exactly one caller, the one that must free the memory; false once it was claimed. */
    boolean claimFree() {
        return freed.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return "HipDeviceMemory[0x" + Long.toHexString(address) + ", " + byteSize + " bytes, device " + device
                + (pooled ? ", stream-ordered" : "") + "]";
    }
}
