package dev.sluice;

import dev.sluice.spi.GraphHandle;

/**
 * Work captured from a stream with {@link DeviceStream#capture}, replayable many times at the cost of one
 * launch (CUDA graphs). The buffers and functions the captured work used must stay open while the graph
 * may be launched. {@link #close()} destroys it.
 */
public final class DeviceGraph implements AutoCloseable {

    private final DeviceContext context;
    final GraphHandle handle;
    private volatile boolean closed;

    DeviceGraph(DeviceContext context, GraphHandle handle) {
        this.context = context;
        this.handle = handle;
    }

    /**
     * Enqueues one replay of the whole graph on {@code stream} (of the graph's context). Ordering, completion
     * thread and cancellation as for every enqueue (see {@link DeviceStream}).
     */
    public DeviceFuture<Void> enqueueLaunch(DeviceStream stream) {
        Checks.notNull("stream", stream);
        if (closed) {
            throw new ClosedResourceException(toString());
        }
        if (stream.context() != context) {
            throw new InvalidArgumentException("stream", stream + " belongs to another context than " + this);
        }
        return stream.launchGraph(this);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            handle.destroy();
        }
    }

    @Override
    public String toString() {
        return "DeviceGraph[" + context.api().id() + ":" + context.id() + "]";
    }
}
