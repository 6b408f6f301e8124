package dev.sluice.flink;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * What the tests of jobs on the embedded cluster share: their environment, the check that they let go of every context,
 * and their kernel.
 */
final class TestJobs {

    private TestJobs() {
    }

    /**
     * An environment of {@code parallelism} whose jobs fail at the first failure (no restarts), their functions on
     * {@link TestBackend}'s backend.
     */
    static StreamExecutionEnvironment environment(int parallelism) {
        TestBackend.select();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    /**
     * Every shared device context is closed, within 10 s: a job's functions close when its tasks end, which may be a
     * moment after the client saw the job end.
     */
    static void assertEveryContextClosed() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (SharedContexts.openCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, SharedContexts.openCount(), "shared device contexts left open");
    }

    /** {@code out[i] = in[i] * in[i]} for {@code i} below {@code n}, in CUDA C++ and Java, named {@code name}. */
    static Kernel squareKernel(String name) {
        return Kernel.named(name)
                .param(KernelParam.pointer("in", DType.F32))
                .param(KernelParam.pointer("out", DType.F32))
                .param(KernelParam.scalar("n", DType.I64))
                .cudaSource("""
                        extern "C" __global__ void %s(const float* in, float* out, long long n) {
                            long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x;
                            if (i < n) {
                                out[i] = in[i] * in[i];
                            }
                        }
                        """.formatted(name))
                .java(t -> {
                    long i = t.globalIdX();
                    if (i < t.longArg(2)) {
                        float v = t.pointer(0).getAtIndex(JAVA_FLOAT, i);
                        t.pointer(1).setAtIndex(JAVA_FLOAT, i, v * v);
                    }
                })
                .build();
    }
}
