package dev.sluice;

/**
 * A launch attribute passed with a kernel launch (CUDA's {@code CUlaunchAttribute}). Backends that do not
 * support an attribute refuse the launch with {@link UnsupportedOnBackendException}; the CPU backend
 * accepts and ignores scheduling hints, since they do not change results.
 */
public sealed interface LaunchAttribute {

    /** Lets the kernel start before the previous one on the stream has finished (programmatic dependent launch). */
    record ProgrammaticStreamSerialization(boolean allowed) implements LaunchAttribute {
    }

    /** Scheduling priority of this launch, within the device's stream priority range. */
    record Priority(int priority) implements LaunchAttribute {
    }

    /** Cooperative launch: all blocks resident at once, grid-wide synchronisation allowed. */
    record Cooperative(boolean cooperative) implements LaunchAttribute {
    }
}
