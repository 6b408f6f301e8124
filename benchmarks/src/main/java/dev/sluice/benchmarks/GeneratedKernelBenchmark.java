package dev.sluice.benchmarks;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.Kernels;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;

/**
 * On the CPU backend, {@code y = a * x + b} over {@link #n} floats as a kernel generated from one definition
 * ({@link BenchKernels#AXPB}, {@link Kernels#elementwise}, bytecode) against the same kernel as a hand-written Java
 * lambda; both launched one thread per element with {@link LaunchConfig#forElements}. Target: the generated kernel at
 * 0.8 times the lambda's speed or better (its time at most 1.25 times the lambda's).
 *
 * <pre>./mvnw -q -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar GeneratedKernelBenchmark</pre>
 */
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class GeneratedKernelBenchmark extends StreamBenchmark {

    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /** The hand-written form: what a user wrote before kernels could be generated. */
    static final Kernel HAND_WRITTEN = Kernel.named("axpb_hand")
            .param(KernelParam.scalar("a", DType.F32))
            .param(KernelParam.pointer("x", DType.F32))
            .param(KernelParam.scalar("b", DType.F32))
            .param(KernelParam.pointer("y", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(4)) {
                    MemorySegment x = t.pointer(1);
                    t.pointer(3).setAtIndex(FLOAT, i, t.floatArg(0) * x.getAtIndex(FLOAT, i) + t.floatArg(2));
                }
            })
            .build();

    /** Elements per launch. */
    @Param({"4194304"})
    public int n;

    private DeviceFunction hand;
    private DeviceFunction generated;
    private DeviceBuffer x;
    private DeviceBuffer y;
    private LaunchConfig config;
    private final Float a = 2f;
    private final Float b = 1f;
    private Long count;

    @Override
    DeviceContext openContext() {
        return DeviceContext.open(Api.CPU, 0);
    }

    @Override
    void prepare() {
        hand = ctx.compile(HAND_WRITTEN);
        generated = ctx.compile(BenchKernels.AXPB);
        x = ctx.allocate(DType.F32, n);
        y = ctx.allocate(DType.F32, n);
        stream.enqueueMemset(x, 0x3F).join();
        config = LaunchConfig.forElements(n);
        count = (long) n;
    }

    @Benchmark
    public Void handWrittenLambda() {
        return stream.enqueueLaunch(hand, config, a, x, b, y, count).join();
    }

    @Benchmark
    public Void generatedBytecode() {
        return stream.enqueueLaunch(generated, config, a, x, b, y, count).join();
    }
}
