package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.LaunchConfig;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Completion latency on an idle stream: enqueue, then wait until the future has completed (like
 * {@code latency} of {@code benchmarks/native}, whose C figure spins on {@code cuEventQuery}). Sampled, so
 * JMH prints percentiles (p50, p99...). {@link #kernel} launches a kernel that writes one int;
 * {@link #marker} enqueues only a completion marker. {@code -p waitStrategy=SPIN,YIELD,PARK,BLOCKING}
 * compares the completion thread's wait strategies.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class LatencyBenchmark {

    @Param({"PARK"})
    public String waitStrategy;

    private DeviceContext ctx;
    private DeviceStream stream;
    private DeviceFunction writeOne;
    private DeviceBuffer out;
    private final LaunchConfig one = LaunchConfig.of(1, 1);
    private int value;

    @Setup(Level.Trial)
    public void open() {
        ctx = Bench.open(false, waitStrategy);
        stream = ctx.createStream();
        writeOne = ctx.compile(BenchKernels.WRITE_ONE);
        out = ctx.allocate(DType.I32, 1);
    }

    @TearDown(Level.Trial)
    public void close() {
        ctx.close();
    }

    @Benchmark
    public Void kernel() {
        return stream.enqueueLaunch(writeOne, one, out, ++value).join();
    }

    @Benchmark
    public Void marker() {
        return stream.enqueueMarker().join();
    }
}
