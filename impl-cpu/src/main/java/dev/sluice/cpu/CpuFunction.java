package dev.sluice.cpu;

import dev.sluice.JavaKernel;
import dev.sluice.Kernel;
import dev.sluice.spi.FunctionHandle;
import java.util.Optional;

/** A kernel's Java implementation, ready to run over a grid. */
record CpuFunction(Kernel kernel, JavaKernel body) implements FunctionHandle {

    @Override
    public Optional<String> assembly() {
        return Optional.empty();
    }

    @Override
    public void unload() {
    }

    /** Accepted and ignored: Java kernels have no shared-memory configuration, and portable code must run here. */
    @Override
    public void setAttribute(String name, int value) {
    }
}
