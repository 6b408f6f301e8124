package dev.sluice.engine;

import dev.sluice.spi.GraphHandle;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The engine's half of a captured graph: the native graph, the memory its replays use, the objects they keep alive, and
 * its host steps, whose replays must not overlap. A replay is enqueued by its stream ({@link StreamEnqueuer#launchGraph}).
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

    /** The graph's name in messages. */
    String name() {
        return name;
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
