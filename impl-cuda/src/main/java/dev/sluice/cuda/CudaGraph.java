package dev.sluice.cuda;

import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.StreamHandle;
import jcuda.driver.CUgraphExec;
import jcuda.driver.JCudaDriver;

/** An executable graph instantiated from stream capture. */
final class CudaGraph implements GraphHandle {

    private final CudaContext context;
    private final CUgraphExec exec;

    CudaGraph(CudaContext context, CUgraphExec exec) {
        this.context = context;
        this.exec = exec;
    }

    @Override
    public void launch(StreamHandle stream) {
        context.cu.bind();
        Jc.check(JCudaDriver.cuGraphLaunch(exec, ((CudaStream) stream).stream), "cuGraphLaunch");
    }

    @Override
    public void destroy() {
        context.cu.bind();
        JCudaDriver.cuGraphExecDestroy(exec);
    }
}
