package dev.sluice.spi;

import dev.sluice.ContextOptions;

/**
 * A backend, registered in {@code META-INF/services/dev.sluice.spi.Backend} of its jar. Instances are created
 * once per JVM by {@link java.util.ServiceLoader}; constructors must be cheap and must not load native
 * libraries (do that lazily in {@link #probe()}).
 *
 * <p>A backend is known by its {@link #name()}: {@code DeviceContext.open(name, id)}, {@code -Dsluice.api=name} and
 * {@code SLUICE_API=name} select it, so a backend in a jar of its own needs nothing from Sluice's public API beyond
 * this interface. {@code DeviceContext.open()} without a name tries the built-in backends first (cuda, hip, cpu), then
 * the others by {@link #preference()}, highest first, then by name.
 */
public interface Backend {

    /**
     * The name users select this backend by: lower-case ASCII letters, digits, {@code -} and {@code _}, starting with a
     * letter ("cuda", "hip", "cpu", "level-zero"). Constant for the instance. A backend whose name breaks the pattern,
     * or repeats one found earlier on the class path, is left out with a warning in the {@code dev.sluice.Backends} log.
     */
    String name();

    /**
     * Where {@code DeviceContext.open()} tries this backend among those that are not built in: higher first, equal
     * preferences by name. 0 by default. Built-in backends are always tried first, so this orders only the others.
     */
    default int preference() {
        return 0;
    }

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
