package dev.sluice.spi.support;

import dev.sluice.spi.DeviceMemory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One device allocation of a native backend, freed at most once: every free path claims it first
 * ({@link #claimFree()}), so a second free of the same memory, from whatever thread, never reaches the driver.
 *
 * <p>For backend authors: the CUDA and HIP backends hand these out as their {@link DeviceMemory}.
 */
public final class DeviceAllocation implements DeviceMemory {

    private final long address;
    private final long byteSize;
    private final boolean streamOrdered;
    private final int device;
    private final AtomicBoolean freed;

    /**
     * @param address       the device pointer
     * @param byteSize      its size in bytes
     * @param streamOrdered whether it came from the device's stream-ordered pool ({@code cuMemAllocAsync},
     *                      {@code hipMallocAsync}), so that any stream may free it in its order
     * @param device        the device ordinal it lives on
     */
    public DeviceAllocation(long address, long byteSize, boolean streamOrdered, int device) {
        this(address, byteSize, streamOrdered, device, false);
    }

    private DeviceAllocation(long address, long byteSize, boolean streamOrdered, int device, boolean freed) {
        this.address = address;
        this.byteSize = byteSize;
        this.streamOrdered = streamOrdered;
        this.device = device;
        this.freed = new AtomicBoolean(freed);
    }

    /** Memory a loaded module owns (a {@code __device__} or {@code __constant__} variable): never freed by a backend. */
    public static DeviceAllocation moduleVariable(long address, long byteSize, int device) {
        return new DeviceAllocation(address, byteSize, false, device, true);
    }

    /**
     * {@code memory} as an allocation of a native backend.
     *
     * @throws IllegalArgumentException naming the memory if another backend made it
     */
    public static DeviceAllocation of(DeviceMemory memory) {
        if (memory instanceof DeviceAllocation a) {
            return a;
        }
        throw new IllegalArgumentException("memory " + memory + " was not allocated by this backend");
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    /** Whether it came from the stream-ordered pool (free it in a stream's order) rather than a plain allocation. */
    public boolean streamOrdered() {
        return streamOrdered;
    }

    /** The device ordinal it lives on. */
    public int device() {
        return device;
    }

    /** True for exactly one caller, the one that must free the memory; false once claimed (or for module variables). */
    public boolean claimFree() {
        return freed.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return "DeviceAllocation[0x" + Long.toHexString(address) + ", " + byteSize + " bytes, device " + device
                + (streamOrdered ? ", stream-ordered]" : "]");
    }
}
