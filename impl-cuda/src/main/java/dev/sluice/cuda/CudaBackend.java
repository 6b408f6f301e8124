package dev.sluice.cuda;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import dev.sluice.spi.ContextHandle;
import java.util.List;

/**
 * The CUDA backend: the CUDA driver API through JCuda and {@code java.lang.foreign}, NVRTC through
 * {@code java.lang.foreign}. Registered in {@code META-INF/services/dev.sluice.spi.Backend}; the constructor
 * loads nothing, {@link #probe()} looks for the driver once and never throws.
 */
public final class CudaBackend implements Backend {

    /** The service, created by {@link java.util.ServiceLoader}; loads nothing. */
    public CudaBackend() {
    }

    @Override
    public String name() {
        return Api.CUDA.id();
    }

    @Override
    public BackendProbe probe() {
        try {
            return CuLibrary.probe();
        } catch (Throwable t) {
            return BackendProbe.unavailable("probing the CUDA driver failed: " + t, List.of());
        }
    }

    @Override
    public ContextHandle open(int deviceId, ContextOptions options) {
        return CudaContext.open(deviceId, options);
    }
}
