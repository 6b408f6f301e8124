package dev.sluice.hip;

import dev.sluice.spi.support.PinnedMemory;

/**
 * Handles layer: page-locked host memory from the HIP runtime for one device, as the backend kit uses it (host
 * flags, staging buffers): {@code hipHostMalloc}, mapped and portable for flags, default for staging. Allocating
 * binds the device.
 */
final class RuntimePinnedMemory implements PinnedMemory {

    private final HipApi api;
    private final int device;

    RuntimePinnedMemory(HipApi api, int device) {
        this.api = api;
        this.device = device;
    }

    @Override
    public long allocate(long bytes, boolean mapped) {
        api.setDevice(device);
        return api.hostMalloc(bytes, mapped ? HipApiConstants.hipHostMallocMapped | HipApiConstants.hipHostMallocPortable
                : HipApiConstants.hipHostMallocDefault);
    }

    @Override
    public long devicePointer(long host) {
        return api.hostGetDevicePointer(host);
    }

    @Override
    public void free(long host) {
        api.hostFree(host);
    }
}
