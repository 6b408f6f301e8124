package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.LaunchConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;

/**
 * Completion latency on an idle stream: enqueue, then wait until the future has completed (like
 * {@code latency} of {@code benchmarks/native}, whose C figure spins on {@code cuEventQuery}). Sampled, so
 * JMH prints percentiles (p50, p99...). {@link #kernel} launches a kernel that writes one int;
 * {@link #marker} enqueues only a completion marker. {@code -p waitStrategy=SPIN,YIELD,PARK,BLOCKING}
 * compares the completion thread's wait strategies.
 */
@BenchmarkMode(Mode.SampleTime)
public class LatencyBenchmark extends StreamBenchmark {

    @Param({"PARK"})
    public String waitStrategy;

    private DeviceFunction writeOne;
    private DeviceBuffer out;
    private final LaunchConfig one = LaunchConfig.of(1, 1);
    private int value;

    @Override
    DeviceContext openContext() {
        return Bench.open(false, waitStrategy);
    }

    @Override
    void prepare() {
        writeOne = ctx.compile(BenchKernels.WRITE_ONE);
        out = ctx.allocate(DType.I32, 1);
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
