package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.micrometer.DeviceMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
 * Host cost per operation of {@code sluice-micrometer}'s {@link DeviceMetrics}: a 256-byte copy from pinned memory to the
 * device and an event-free marker, enqueued without draining (like {@link EnqueueBenchmark}), with
 * {@code -p meters=none} (no binder), {@code meters=listener} (a {@link DeviceListener} that does nothing: the hook's own
 * cost), {@code meters=simple} (a {@link SimpleMeterRegistry} bound to the context, the latency timer computing
 * percentiles), {@code meters=buckets} (the same with histogram buckets alone) and {@code meters=sampled} (percentiles,
 * the timer fed one operation in {@value #SAMPLING}, {@link DeviceMetrics#latencySampling}). The
 * difference of the two scores is the binder's cost on the enqueuing thread; its timer records run on the completion
 * thread, which on a machine of few cores competes for the same ones.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class MeterBenchmark {

    /** {@code meters=sampled}: the timer records one operation in this many of each stream and category. */
    static final int SAMPLING = 16;

    @Param({"none", "listener", "simple", "buckets", "sampled"})
    public String meters;

    private DeviceContext ctx;
    private DeviceStream stream;
    private DeviceBuffer small;
    private HostBuffer pinned;
    private SimpleMeterRegistry registry;
    private DeviceMetrics metrics;
    private DeviceListener.Registration listening;
    private final Backlog backlog = new Backlog(4096);

    @Setup(Level.Trial)
    public void open() {
        ctx = Bench.open(false);
        stream = ctx.createStream();
        small = ctx.allocate(DType.F32, 64);
        pinned = ctx.allocateHost(DType.F32, 64);
        switch (meters) {
            case "none" -> { }
            case "listener" -> listening = ctx.addListener(new DeviceListener() { });
            case "simple", "buckets", "sampled" -> {
                registry = new SimpleMeterRegistry();
                metrics = new DeviceMetrics(ctx);
                if (meters.equals("buckets")) {
                    metrics.percentiles();
                }
                if (meters.equals("sampled")) {
                    metrics.latencySampling(SAMPLING);
                }
                metrics.bindTo(registry);
            }
            default -> throw new IllegalArgumentException("meters=" + meters + ": none, listener, simple, buckets or sampled");
        }
    }

    @TearDown(Level.Iteration)
    public void drain() {
        backlog.drain();
        stream.synchronize();
    }

    @TearDown(Level.Trial)
    public void close() {
        if (metrics != null) {
            metrics.close();
        }
        if (listening != null) {
            listening.close();
        }
        ctx.close();
    }

    @Benchmark
    public DeviceFuture<Void> copyHostToDevice() {
        DeviceFuture<Void> f = stream.enqueueCopy(pinned, small);
        backlog.add(f);
        return f;
    }

    @Benchmark
    public DeviceFuture<Void> marker() {
        DeviceFuture<Void> f = stream.enqueueMarker();
        backlog.add(f);
        return f;
    }
}
