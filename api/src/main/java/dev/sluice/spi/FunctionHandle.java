package dev.sluice.spi;

import java.util.Optional;

/** A kernel loaded on one context, ready to launch. */
public interface FunctionHandle {

    /**
     * Assembly of the compiled kernel where the backend has it (PTX for CUDA C++ compiled at run time),
     * like Mojo's {@code dump_asm}.
     */
    Optional<String> assembly();

    /** {@link #UNKNOWN} where a backend does not report an attribute. */
    long UNKNOWN = Long.MIN_VALUE;

    /**
     * Backend attribute of the loaded function (registers, max threads per block...) by the driver's name without
     * prefix ({@code NUM_REGS}, {@code PREFERRED_SHARED_MEMORY_CARVEOUT}...), or {@link #UNKNOWN}.
     */
    default long attribute(String name) {
        return UNKNOWN;
    }

    /** Unloads the compiled module; called once, when the public function is closed. */
    void unload();

    /**
     * Sets a settable attribute ({@code MAX_DYNAMIC_SHARED_SIZE_BYTES}, {@code PREFERRED_SHARED_MEMORY_CARVEOUT}, by the
     * driver's name without prefix); the value is already checked against the device's limits.
     *
     * @throws dev.sluice.UnsupportedOnBackendException where the backend cannot set it
     */
    default void setAttribute(String name, int value) {
        throw new dev.sluice.UnsupportedOnBackendException("setting the function attribute " + name);
    }

    /**
     * The module-scope variable {@code name} ({@code __constant__} or {@code __device__}) of the module this function
     * was loaded from.
     *
     * @throws dev.sluice.InvalidArgumentException      naming {@code name} if the module has no variable of that name
     * @throws dev.sluice.UnsupportedOnBackendException where kernels have no module variables
     */
    default DeviceMemory global(String name) {
        throw new dev.sluice.UnsupportedOnBackendException("module variables (\"" + name + "\"): Java kernels have none;"
                + " pass the values in a DeviceBuffer argument instead");
    }
}
