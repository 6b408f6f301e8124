package dev.sluice.cuda;

import dev.sluice.spi.DeviceMemory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One device allocation, freed at most once: every free path claims it first ({@link #claimFree()}), so a second
 * free of the same memory, from whatever thread, never reaches the driver.
 */
final class CudaDeviceMemory implements DeviceMemory {

    private final long address;
    private final long byteSize;
    private final boolean pooled;
    private final AtomicBoolean freed;

    /**
     * @param pooled whether it came from the device's stream-ordered memory pool ({@code cuMemAllocAsync}), so
     *               that any stream can free it with {@code cuMemFreeAsync}
     */
    CudaDeviceMemory(long address, long byteSize, boolean pooled) {
        this(address, byteSize, pooled, false);
    }

    private CudaDeviceMemory(long address, long byteSize, boolean pooled, boolean freed) {
        this.address = address;
        this.byteSize = byteSize;
        this.pooled = pooled;
        this.freed = new AtomicBoolean(freed);
    }

    /** Memory the module owns (a {@code __device__} or {@code __constant__} variable): never freed through Sluice. */
    static CudaDeviceMemory moduleVariable(long address, long byteSize) {
        return new CudaDeviceMemory(address, byteSize, false, true);
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

    /** True for exactly one caller, the one that must free the memory; false once it was claimed. */
    boolean claimFree() {
        return freed.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return "CudaDeviceMemory[0x" + Long.toHexString(address) + ", " + byteSize + " bytes" + (pooled ? ", pooled]" : "]");
    }
}
