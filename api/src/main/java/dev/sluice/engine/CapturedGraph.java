package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import dev.sluice.OperationKind;
import dev.sluice.spi.GraphHandle;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The engine's half of a captured graph: the native graph, the memory its replays use, the objects they keep alive, and
 * its host steps, whose replays must not overlap.
 */
public final class CapturedGraph {

    private final ContextState context;
    final GraphHandle handle;
    final List<GraphCapture.Use> uses;
    final List<Object> handles;
    final @Nullable GraphHostSteps hostSteps;
    private final AtomicBoolean closed = new AtomicBoolean();
    private String name = "DeviceGraph";

    CapturedGraph(ContextState context, GraphHandle handle, List<GraphCapture.Use> uses, List<Object> handles,
            @Nullable GraphHostSteps hostSteps) {
        this.context = context;
        this.handle = handle;
        this.uses = uses;
        this.handles = handles;
        this.hostSteps = hostSteps;
    }

    /** Names the graph in messages by its public side. */
    public void name(String graphName) {
        this.name = graphName;
    }

    /**
     * Launches a replay on {@code stream}. Host steps find their replay by launch order, so replays of a graph with host
     * steps must not overlap: CUDA orders the launches of one graph, HIP does not say it does; a replay on another stream
     * than the last waits for it on the device.
     */
    public <F extends Operation<?>> F launch(F f, StreamEnqueuer stream) {
        GraphHostSteps steps = hostSteps;
        if (steps == null) {
            return launchOn(stream, f, null);
        }
        steps.launchOrder.lock();
        try {
            Operation<?> previous = steps.lastReplay;
            if (previous != null && previous.core() != stream.core) {
                previous.seal(); // a device-side wait needs its marker; before the stream's lock is taken
            } else {
                previous = null;
            }
            launchOn(stream, f, previous);
            steps.lastReplay = f;
            return f;
        } finally {
            steps.launchOrder.unlock();
        }
    }

    /** Launches a replay on {@code stream} after {@code after} (a replay on another stream), or right away. */
    private <F extends Operation<?>> F launchOn(StreamEnqueuer stream, F f, @Nullable Operation<?> after) {
        stream.begin();
        try {
            if (stream.isCapturing() && hostSteps != null) {
                // Its steps find their replay by launch order; a launch captured into another graph never runs as one.
                throw new IllegalStateException(name + " has host steps and cannot be launched while " + stream
                        + " is capturing");
            }
            // A replay uses the captured memory as the captured operations did: claimed (refused if it was closed since),
            // and noted as used, so a close() waits for the replay instead of freeing memory under it.
            for (GraphCapture.Use u : uses) {
                if (!stream.claims().claimForReplay(u)) { // a replay may read and write all it captured
                    throw new ClosedResourceException(u.what() + ", which " + name + " uses (close the graph"
                            + " before the memory its work captured)");
                }
            }
            if (after != null) {
                stream.waitMarkerLocked(after);
            }
            stream.claims().orderAfterHazards(null);
            GraphHostSteps steps = hostSteps;
            if (steps == null) {
                stream.handle.launchGraph(handle);
                // The events and functions it names live until the replay has finished, the graph closed or not.
                stream.mark(f, OperationKind.GRAPH, handles.isEmpty() ? null : handles);
            } else {
                // The replay is the future's keep-alive: its steps' failures fail the future (Operation.finish).
                GraphHostSteps.Replay replay = new GraphHostSteps.Replay();
                replay.handles = handles;
                stream.handle.launchGraph(steps.launching(handle, replay));
                stream.mark(f, OperationKind.GRAPH, replay);
            }
            for (GraphCapture.Use u : uses) {
                stream.claims().usedByReplay(u, f);
            }
            return f;
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed.get();
    }

    /** Destroys the native graph (once no replay runs its host steps); nothing if the context closed, which did. */
    public void close() {
        if (closed.compareAndSet(false, true) && !context.isClosed()) {
            GraphHostSteps steps = hostSteps;
            if (steps == null) {
                handle.destroy();
            } else {
                // The native graph goes with the callbacks of its steps: not while a replay still runs them.
                steps.destroyWhenIdle(() -> {
                    if (!context.isClosed()) {
                        handle.destroy();
                    }
                });
            }
        }
    }
}
