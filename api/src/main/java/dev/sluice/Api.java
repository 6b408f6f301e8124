package dev.sluice;

import java.util.Locale;

/** The native API a {@link DeviceContext} programs, in the order {@link DeviceContext#open()} prefers them. */
public enum Api {
    /** NVIDIA GPUs through the CUDA driver API. */
    CUDA,
    /** AMD GPUs through the HIP runtime. */
    HIP,
    /** The CPU simulator: no GPU needed; the default where none is present. */
    CPU;

    /** The lower-case name used by {@code sluice.api}, {@code SLUICE_API} and Mojo's {@code api()}: "cuda", "hip", "cpu". */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses "cuda", "hip" or "cpu" (any case).
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
