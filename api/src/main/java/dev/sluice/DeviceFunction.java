package dev.sluice;

import dev.sluice.spi.FunctionHandle;
import java.util.Optional;

/**
 * A {@link Kernel} compiled and loaded on one context, ready to launch with
 * {@link DeviceStream#enqueueLaunch}. Thread-safe; launch it from any stream of its context, any number of
 * times. {@link #close()} unloads it; launches already enqueued still run.
 */
public final class DeviceFunction implements AutoCloseable {

    private final DeviceContext context;
    private final Kernel kernel;
    final FunctionHandle handle;
    private volatile boolean closed;

    DeviceFunction(DeviceContext context, Kernel kernel, FunctionHandle handle) {
        this.context = context;
        this.kernel = kernel;
        this.handle = handle;
    }

    public DeviceContext context() {
        return context;
    }

    public Kernel kernel() {
        return kernel;
    }

    /** The compiled assembly (PTX on CUDA when compiled from source), where the backend has it: Mojo's {@code dump_asm}. */
    public Optional<String> assembly() {
        return handle.assembly();
    }

    void checkUsableOn(DeviceContext c) {
        if (closed) {
            throw new ClosedResourceException(toString());
        }
        if (c != context) {
            throw new InvalidArgumentException("function", this + " was compiled for another context than " + c);
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            context.forget(this);
            handle.unload();
        }
    }

    @Override
    public String toString() {
        return "DeviceFunction[" + kernel.name() + " on " + context.api().id() + ":" + context.id() + "]";
    }
}
