package dev.sluice.hip;

import dev.sluice.spi.support.Lifetime;
import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.StreamHandle;

/**
 * An executable graph from stream capture ({@code hipGraphInstantiate}) and the graph it came from. Launches run
 * inside its {@link Lifetime}, so both are destroyed exactly once, never during a {@code hipGraphLaunch} of it, and
 * a launch after {@link #destroy()} throws {@link dev.sluice.ClosedResourceException}.
 */
final class HipGraph implements GraphHandle {

    private final HipApi api;
    private final long graph;
    private final long exec;
    private final Lifetime life;

    HipGraph(HipApi api, long graph, long exec) {
        this.api = api;
        this.graph = graph;
        this.exec = exec;
        this.life = new Lifetime(this, () -> {
            try {
                api.graphExecDestroy(exec);
            } finally {
                api.graphDestroy(graph);
            }
        });
    }

    @Override
    public void launch(StreamHandle stream) {
        life.enter();
        try {
            api.graphLaunch(exec, ((HipStream) stream).handle);
        } finally {
            life.exit();
        }
    }

    /** Idempotent and safe from any thread. */
    @Override
    public void destroy() {
        life.close();
    }

    @Override
    public String toString() {
        return "HipGraph[0x" + Long.toHexString(exec) + "]";
    }
}
