package dev.sluice;

import dev.sluice.engine.CapturedGraph;

/**
 * Work captured from a stream with {@link DeviceStream#capture}, replayable many times at the cost of one
 * launch (CUDA graphs). Each replay uses the buffers the captured work used as an enqueue would: closing one of them
 * frees it only after the replays already enqueued, and a later replay is refused with
 * {@link ClosedResourceException}. The functions it launches must stay open while it may be launched.
 * {@link #close()} destroys it. Thread-safe: launches and {@link #close()} may be called from any
 * thread, at the same time as each other.
 *
 * <p><b>Host steps.</b> Host functions ({@link DeviceStream#enqueueHostFunction}) and waits for a
 * {@link java.util.concurrent.CompletionStage} ({@link DeviceStream#waitFor(java.util.concurrent.CompletionStage)})
 * enqueued during capture become steps of the graph (CUDA and HIP: host nodes, {@code cuLaunchHostFunc} /
 * {@code hipLaunchHostFunc} captured). Each replay runs each of them exactly once, in capture order, after the work
 * captured before it and before the work captured after it; the replays of one graph run one after another, also when
 * launched on different streams.
 * <ul>
 * <li><b>Thread:</b> a step runs on the backend's thread, not on the host executor that runs host functions outside
 * graphs: CUDA's and HIP's driver thread for host nodes (one per context or process, shared with every other host
 * node and stream callback, so a slow step delays all of them), the simulator's stream thread on the CPU backend.
 * <li><b>Errors:</b> a step cannot fail the device graph: what a host function throws, or the failure of an awaited
 * stage, fails that replay's future (the first such failure), and the replay and its later steps go on.
 * <li><b>Blocking and driver calls:</b> a step must not call blocking Sluice API on its context ({@code synchronize},
 * {@code join} of a future of it...): those calls are refused with {@link IllegalStateException}, as in host functions
 * outside graphs. Nor may it enqueue work or call anything else that reaches the driver: CUDA and HIP forbid driver
 * calls in a host node (the call may fail or hang; the CPU backend does not detect it). To start device work from a
 * step, hand it to another thread, or complete a stage that an enqueued {@code waitFor} holds work behind.
 * <li><b>Host waits:</b> a captured wait blocks the driver's thread until its stage completes (the stage is the one
 * passed at capture, so replays after it has completed pass at once); while it blocks, no other host step or
 * stream callback of that driver thread runs, and the stream waits on the device as under
 * {@link HostWaits#GATE_ON_DEVICE} (on CUDA, module loading and freeing memory may wait for it too: do not make the
 * stage's completion wait for those). Closing the context releases a wait, failing its replay with
 * {@link ClosedResourceException}.
 * </ul>
 */
public final class DeviceGraph implements AutoCloseable {

    private final DeviceContext context;
    /** The native graph, the memory its replays use, what they keep alive, and its host steps. */
    private final CapturedGraph graph;

    DeviceGraph(DeviceContext context, CapturedGraph graph) {
        this.context = context;
        this.graph = graph;
        graph.name(toString());
    }

    /**
     * Enqueues one replay of the whole graph on {@code stream} (of the graph's context) and returns at once. Ordering,
     * completion thread and cancellation as for every enqueue (see {@link DeviceStream}): the replay runs after the
     * work enqueued before it on {@code stream}, its future completes on the context's completion thread once the
     * replay has finished, and cancelling the future does not stop the replay. The graph may be closed while replays
     * are pending: they still run. Never blocks. If a host step of the graph throws (see the class comment), the
     * future fails with its exception once the replay has finished.
     *
     * @throws ClosedResourceException if the graph, the stream, the context or a buffer the captured work uses is closed
     *                                 (a launch racing with {@link #close()} either is enqueued, or throws this)
     */
    public DeviceFuture<Void> enqueueLaunch(DeviceStream stream) {
        Checks.notNull("stream", stream);
        if (graph.isClosed()) {
            throw new ClosedResourceException(toString());
        }
        if (context.isClosed()) {
            throw new ClosedResourceException(this + ": its context is closed, and the native graph went with it");
        }
        if (stream.context() != context) {
            throw new InvalidArgumentException("stream", stream + " belongs to another context than " + this);
        }
        return stream.engine.launchGraph(stream.future(null), graph);
    }

    /** Whether {@link #close()} has been called; the answer may be stale as soon as another thread closes it. */
    public boolean isClosed() {
        return graph.isClosed();
    }

    /**
     * Destroys the graph; replays already enqueued still run. Idempotent and safe from any thread, at the same time as
     * any other call: of concurrent callers exactly one destroys it, and none waits for the device. After the context
     * is closed it frees nothing: the native graph may have gone with the native context.
     */
    @Override
    public void close() {
        graph.close();
    }

    @Override
    public String toString() {
        return "DeviceGraph[" + context.backendName() + ":" + context.id() + "]";
    }
}
