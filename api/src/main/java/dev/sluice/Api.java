package dev.sluice;

import java.util.Locale;

/**
 * The built-in backends, in the order {@link DeviceContext#open()} tries them. Every backend, built in or from another
 * jar, is known by its name ({@link DeviceContext#backendName()}, {@link dev.sluice.spi.Backend#name()}); these constants
 * name the three that ship with Sluice, and a backend from another jar has none.
 */
public enum Api {
    /** NVIDIA GPUs through the CUDA driver API. */
    CUDA,
    /** AMD GPUs through the HIP runtime. */
    HIP,
    /** The CPU simulator: no GPU needed; the default where none is present. */
    CPU;

    /**
     * The backend's name, as {@link DeviceContext#open(String, int)}, {@value SluiceProperties#API},
     * {@value SluiceProperties#API_ENVIRONMENT} and Mojo's {@code api()} take it: "cuda", "hip", "cpu".
     */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses "cuda", "hip" or "cpu" (any case); a backend from another jar has no {@code Api}, and
     * {@link DeviceContext#open(String, int)} takes its name directly.
     *
     * @throws InvalidArgumentException naming {@code api} and the accepted values, for null or an unknown name
     */
    public static Api of(String id) {
        Checks.notNull("api", id);
        for (Api api : values()) {
            if (api.id().equalsIgnoreCase(id.strip())) {
                return api;
            }
        }
        throw new InvalidArgumentException("api", "unknown backend '" + id + "'; expected one of cuda, hip, cpu");
    }
}
