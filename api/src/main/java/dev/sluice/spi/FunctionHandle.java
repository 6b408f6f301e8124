package dev.sluice.spi;

import java.util.Optional;

/** A kernel loaded on one context, ready to launch. */
public interface FunctionHandle {

    /**
     * Assembly of the compiled kernel where the backend has it (PTX for CUDA C++ compiled at run time),
     * like Mojo's {@code dump_asm}.
     */
    Optional<String> assembly();

    /** Backend attribute of the loaded function (registers, max threads per block...), or -1 if unknown. */
    default long attribute(String name) {
        return -1;
    }

    void unload();

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
