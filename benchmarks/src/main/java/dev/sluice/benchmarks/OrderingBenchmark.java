package dev.sluice.benchmarks;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The host cost of automatic ordering across streams ({@link ContextOptions#withAutoOrdering}): launches of an empty
 * kernel with three buffer arguments (two read, one written) on one stream, so no launch ever has to wait, with
 * ordering on and off in the same run ({@code -p ordering=true,false}). The difference, divided by three, is the
 * bookkeeping per buffer argument when there is no hazard.
 *
 * <p>The launches go in bursts of {@value #BURST}, the stream drained between bursts outside the timing: on the CPU
 * simulator, whose "device" runs an empty kernel more slowly than the host enqueues it, a bounded backlog (as in
 * {@link EnqueueBenchmark}) would time the simulator instead of the enqueue. On a GPU both forms time the enqueue.
 */
public class OrderingBenchmark extends StreamBenchmark {

    /** An empty kernel reading {@code a} and {@code b} and writing {@code c}. */
    static final Kernel EMPTY_3_BUFFERS = Kernel.named("empty_3_buffers")
            .param(KernelParam.input("a", DType.F32))
            .param(KernelParam.input("b", DType.F32))
            .param(KernelParam.output("c", DType.F32))
            .cudaSource("extern \"C\" __global__ void empty_3_buffers(const float *a, const float *b, float *c) {}\n")
            .java(t -> { })
            .build();

    /** Launches per timed invocation. */
    static final int BURST = 1000;

    @Param({"true", "false"})
    public boolean ordering;

    private DeviceFunction kernel;
    private DeviceBuffer a;
    private DeviceBuffer b;
    private DeviceBuffer c;
    private final LaunchConfig one = LaunchConfig.of(1, 1);

    @Override
    DeviceContext openContext() {
        return DeviceContext.open(ContextOptions.defaults().withAutoOrdering(ordering));
    }

    @Override
    void prepare() {
        kernel = ctx.compile(EMPTY_3_BUFFERS);
        a = ctx.allocate(DType.F32, 1024);
        b = ctx.allocate(DType.F32, 1024);
        c = ctx.allocate(DType.F32, 1024);
    }

    @TearDown(Level.Invocation)
    public void drain() {
        stream.synchronize();
    }

    /** {@value #BURST} launches with three buffer arguments, none of which another stream uses; timed per launch. */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public DeviceFuture<Void> launch3Buffers() {
        DeviceFuture<Void> f = null;
        for (int i = 0; i < BURST; i++) {
            f = stream.enqueueLaunch(kernel, one, a, b, c);
        }
        return f;
    }
}
