package dev.sluice.cuda;

import dev.sluice.spi.support.Lifetime;
import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.StreamHandle;
import jcuda.driver.CUgraphExec;
import jcuda.driver.JCudaDriver;

/**
 * An executable graph instantiated from stream capture. Launches run inside its {@link Lifetime}, so
 * {@code cuGraphExecDestroy} runs exactly once, never during a {@code cuGraphLaunch} of it, and a launch after
 * {@link #destroy()} throws {@link dev.sluice.ClosedResourceException}.
 */
final class CudaGraph implements GraphHandle {

    private final CudaContext context;
    private final CUgraphExec exec;
    private final Lifetime life;

    CudaGraph(CudaContext context, CUgraphExec exec) {
        this.context = context;
        this.exec = exec;
        this.life = new Lifetime(this, () -> {
            if (!context.isClosed()) { // a closed context took its graphs with it
                context.cu.bind();
                JCudaDriver.cuGraphExecDestroy(exec);
            }
        });
    }

    @Override
    public void launch(StreamHandle stream) {
        life.enter();
        try {
            context.cu.bind();
            Jc.check(JCudaDriver.cuGraphLaunch(exec, ((CudaStream) stream).stream), "cuGraphLaunch");
        } finally {
            life.exit();
        }
    }

    /** Idempotent and safe from any thread; replays already launched still run (the driver defers the free). */
    @Override
    public void destroy() {
        life.close();
    }

    @Override
    public String toString() {
        return "CudaGraph[" + context.description() + "]";
    }
}
