package dev.sluice;

import dev.sluice.spi.GraphHandle;

/**
 * Work captured from a stream with {@link DeviceStream#capture}, replayable many times at the cost of one
 * launch (CUDA graphs). Each replay uses the buffers the captured work used as an enqueue would: closing one of them
 * frees it only after the replays already enqueued, and a later replay is refused with
 * {@link ClosedResourceException}. The functions it launches must stay open while it may be launched.
 * {@link #close()} destroys it. Thread-safe: launches and {@link #close()} may be called from any
 * thread, at the same time as each other.
 */
public final class DeviceGraph implements AutoCloseable {

    private final DeviceContext context;
    final GraphHandle handle;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    /** The memory the captured work uses: each replay claims it and notes its use, so it is not freed under a replay. */
    final java.util.List<DeviceStream.CapturedUse> uses;

    DeviceGraph(DeviceContext context, GraphHandle handle, java.util.List<DeviceStream.CapturedUse> uses) {
        this.context = context;
        this.handle = handle;
        this.uses = uses;
    }

    /**
     * Enqueues one replay of the whole graph on {@code stream} (of the graph's context) and returns at once. Ordering,
     * completion thread and cancellation as for every enqueue (see {@link DeviceStream}): the replay runs after the
     * work enqueued before it on {@code stream}, its future completes on the context's completion thread once the
     * replay has finished, and cancelling the future does not stop the replay. The graph may be closed while replays
     * are pending: they still run. Never blocks.
     *
     * @throws ClosedResourceException if the graph, the stream, the context or a buffer the captured work uses is closed
     *                                 (a launch racing with {@link #close()} either is enqueued, or throws this)
     */
    public DeviceFuture<Void> enqueueLaunch(DeviceStream stream) {
        Checks.notNull("stream", stream);
        if (closed.get()) {
            throw new ClosedResourceException(toString());
        }
        if (stream.context() != context) {
            throw new InvalidArgumentException("stream", stream + " belongs to another context than " + this);
        }
        return stream.launchGraph(this);
    }

    /** Whether {@link #close()} has been called; the answer may be stale as soon as another thread closes it. */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Destroys the graph; replays already enqueued still run. Idempotent and safe from any thread, at the same time as
     * any other call: of concurrent callers exactly one destroys it, and none waits for the device. After the context
     * is closed it frees nothing: the native graph may have gone with the native context.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && !context.isClosed()) {
            handle.destroy();
        }
    }

    @Override
    public String toString() {
        return "DeviceGraph[" + context.backendName() + ":" + context.id() + "]";
    }
}
