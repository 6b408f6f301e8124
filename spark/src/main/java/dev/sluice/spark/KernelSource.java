package dev.sluice.spark;

import dev.sluice.Kernel;
import java.io.Serializable;

/**
 * Where a stage's kernel comes from on the executor. A {@link Kernel} is not serializable, so a stage carries this
 * instead (a serializable lambda, typically returning a {@code static final} field) and calls it on the executor, once
 * per task.
 */
@FunctionalInterface
public interface KernelSource extends Serializable {

    /** The kernel; never null. */
    Kernel kernel();
}
