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
}
