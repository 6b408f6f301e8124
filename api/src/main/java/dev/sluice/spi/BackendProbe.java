package dev.sluice.spi;

import java.util.List;

/**
 * What a backend found when it looked for its library and devices.
 *
 * @param deviceCount devices usable through this backend (0 when {@code available} is false)
 * @param available   whether the native library loaded and at least the driver answered
 * @param version     library or driver version as the backend prints it, or a reason it has none
 * @param tried       every library name or path tried, and what happened, for error messages
 * @param devices     one line per device: id, name, memory, compute capability
 */
public record BackendProbe(boolean available, int deviceCount, String version, List<String> tried, List<String> devices) {

    /** Copies {@code tried} and {@code devices}. */
    public BackendProbe {
        tried = List.copyOf(tried);
        devices = List.copyOf(devices);
    }

    /** A probe of a backend whose library could not be loaded. */
    public static BackendProbe unavailable(String why, List<String> tried) {
        return new BackendProbe(false, 0, why, tried, List.of());
    }
}
