package dev.sluice.spi;

import dev.sluice.Api;
import dev.sluice.ContextOptions;

/**
 * A backend, registered in {@code META-INF/services/dev.sluice.spi.Backend}. Instances are created
 * once per JVM by {@link java.util.ServiceLoader}; constructors must be cheap and must not load native
 * libraries (do that lazily in {@link #probe()}).
 */
public interface Backend {

    /** The API this backend programs. */
    Api api();

    /**
     * Looks for the native library and devices. Never throws: a missing library or driver is reported
     * in the returned probe, with every name and path tried, so {@code DeviceContext.detect()} can print it.
     * Implementations cache the result.
     */
    BackendProbe probe();

    /**
     * Opens device {@code deviceId} (already checked against {@link BackendProbe#deviceCount()}).
     *
     * @throws dev.sluice.SluiceException with the native error if the device cannot be opened
     */
    ContextHandle open(int deviceId, ContextOptions options);
}
