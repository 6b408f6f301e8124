package dev.sluice.spi.support;

/**
 * What {@link HostFlagSlots} and {@link StagingPool} need of a native API: page-locked host memory. A backend
 * implements it with its driver calls (CUDA: {@code cuMemHostAlloc}, {@code cuMemHostGetDevicePointer},
 * {@code cuMemFreeHost}; HIP: {@code hipHostMalloc}, {@code hipHostGetDevicePointer}, {@code hipHostFree}), binding
 * its device first where the API wants one current.
 *
 * <p>For backend authors.
 */
public interface PinnedMemory {

    /**
     * Allocates {@code bytes} of page-locked host memory (the backend picks the native flags).
     *
     * @param mapped whether the device must also be able to address it ({@link #devicePointer})
     * @return the host address, never 0
     * @throws dev.sluice.SluiceException (or a subclass) naming the native call when the driver refuses
     */
    long allocate(long bytes, boolean mapped);

    /** The device's address of mapped memory at host address {@code host}, from {@link #allocate} with mapped set. */
    long devicePointer(long host);

    /** Frees memory from {@link #allocate}; called once per allocation. */
    void free(long host);
}
