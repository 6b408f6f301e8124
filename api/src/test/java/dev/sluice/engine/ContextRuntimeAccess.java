package dev.sluice.engine;

import dev.sluice.spi.GraphHandle;
import java.util.List;

/** Engine objects the engine alone makes, made for tests of the public side. */
public final class ContextRuntimeAccess {

    private ContextRuntimeAccess() {
    }

    /** A captured graph of {@code context} over {@code graph}, with no memory, kept objects or host steps. */
    public static CapturedGraph graph(ContextRuntime context, GraphHandle graph) {
        return new CapturedGraph(context, graph, List.of(), List.of(), null);
    }
}
