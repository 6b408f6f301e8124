package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceListener;
import dev.sluice.HostBuffer;
import dev.sluice.micrometer.DeviceMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;

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
public class MeterBenchmark extends BacklogBenchmark {

    /** {@code meters=sampled}: the timer records one operation in this many of each stream and category. */
    static final int SAMPLING = 16;

    @Param({"none", "listener", "simple", "buckets", "sampled"})
    public String meters;

    private DeviceBuffer small;
    private HostBuffer pinned;
    private SimpleMeterRegistry registry;
    private DeviceMetrics metrics;
    private DeviceListener.Registration listening;

    @Override
    DeviceContext openContext() {
        return Bench.open(false);
    }

    @Override
    void prepare() {
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

    @Override
    void release() {
        if (metrics != null) {
            metrics.close();
        }
        if (listening != null) {
            listening.close();
        }
    }

    @Benchmark
    public DeviceFuture<Void> copyHostToDevice() {
        return backlog.add(stream.enqueueCopy(pinned, small));
    }

    @Benchmark
    public DeviceFuture<Void> marker() {
        return backlog.add(stream.enqueueMarker());
    }
}
