package dev.sluice;

import dev.sluice.engine.Allocation;
import dev.sluice.engine.CapturedGraph;
import dev.sluice.engine.ContextRuntime;
import dev.sluice.engine.ContextRuntimeAccess;
import dev.sluice.engine.StreamEnqueuer;
import dev.sluice.spi.GraphHandle;

/** The engine behind public handles, for the engine's own tests. */
public final class EngineAccess {

    private EngineAccess() {
    }

    /** The engine half of {@code context}. */
    public static ContextRuntime core(DeviceContext context) {
        return context.core;
    }

    /** The engine half of {@code stream}. */
    public static StreamEnqueuer engine(DeviceStream stream) {
        return stream.engine;
    }

    /** A captured graph of {@code context} over {@code graph}, with no memory, kept objects or host steps. */
    public static CapturedGraph capturedGraph(DeviceContext context, GraphHandle graph) {
        return ContextRuntimeAccess.graph(context.core, graph);
    }

    /** The allocation {@code buffer} views. */
    public static Allocation allocation(DeviceBuffer buffer) {
        return buffer.allocation();
    }
}
