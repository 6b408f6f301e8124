package dev.sluice.cuda;

import dev.sluice.spi.support.PinnedMemory;

/**
 * Handles layer: page-locked host memory from the CUDA driver for one context, as the backend kit uses it (host
 * flags, staging buffers): {@code cuMemHostAlloc} with {@code CU_MEMHOSTALLOC_PORTABLE}, plus
 * {@code CU_MEMHOSTALLOC_DEVICEMAP} when mapped. Binds the context first.
 */
final class DriverPinnedMemory implements PinnedMemory {

    private final DriverContext cu;

    DriverPinnedMemory(DriverContext cu) {
        this.cu = cu;
    }

    @Override
    public long allocate(long bytes, boolean mapped) {
        cu.bind();
        return Cu.memHostAlloc(bytes, mapped ? 1 | 2 : 1); // PORTABLE (| DEVICEMAP)
    }

    @Override
    public long devicePointer(long host) {
        cu.bind();
        return Cu.memHostGetDevicePointer(host);
    }

    @Override
    public void free(long host) {
        cu.bind();
        Cu.check(Cu.memFreeHost(host), "cuMemFreeHost");
    }
}
