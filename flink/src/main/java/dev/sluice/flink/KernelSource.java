package dev.sluice.flink;

import dev.sluice.Kernel;
import java.io.Serializable;

/**
 * Gives a {@link Kernel}, which is not serializable itself, on the TaskManager: a serializable lambda, typically
 * returning a {@code static final} field ({@code () -> SQUARE}), called once per subtask.
 */
@FunctionalInterface
public interface KernelSource extends Serializable {
    /**
     * The kernel.
     *
     * @return the kernel the stage compiles on its subtask's device; not null
     */
    Kernel kernel();
}
