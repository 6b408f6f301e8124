package dev.sluice.hip;

import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.StreamHandle;

/** An executable graph from stream capture ({@code hipGraphInstantiate}) and the graph it came from. */
final class HipGraph implements GraphHandle {

    private final HipApi api;
    private final long graph;
    private final long exec;

    HipGraph(HipApi api, long graph, long exec) {
        this.api = api;
        this.graph = graph;
        this.exec = exec;
    }

    @Override
    public void launch(StreamHandle stream) {
        api.graphLaunch(exec, ((HipStream) stream).handle);
    }

    @Override
    public void destroy() {
        try {
            api.graphExecDestroy(exec);
        } finally {
            api.graphDestroy(graph);
        }
    }
}
