package dev.sluice.engine;

import org.jspecify.annotations.Nullable;

/**
 * What decides, beside the device, whether an operation failed: a group whose marker the backend refused, held work the
 * backend refused when it was submitted, a graph replay whose host step threw. {@link Operation#finish} asks each that
 * applies to it through this one interface.
 */
public interface Outcome {

    /** The failure, or null while there is none. Read after the device has finished the operation. */
    @Nullable Throwable failure();
}
