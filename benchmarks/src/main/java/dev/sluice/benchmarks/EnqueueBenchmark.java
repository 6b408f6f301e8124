package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceListener;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import dev.sluice.SluiceProperties;
import java.time.Duration;
import jdk.jfr.Recording;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;

/**
 * Host cost of one enqueue, the stream never drained in between (like {@code launch} and {@code event} of
 * {@code benchmarks/native}): a launch of an empty kernel with 0 and with 5 arguments, a 256-byte copy from
 * pinned memory to the device, and an event record. Each call goes the whole way: argument checks, the
 * stream lock, the backend call, the completion marker, and the future handed to the completion engine. The
 * work in flight is bounded ({@link Backlog}); the stream is drained after each iteration, outside the timing.
 *
 * <p>{@code -p tracing=false,true} compares tracing off (the default) with tracing on; {@code -p waitStrategy=...}
 * sets the completion thread's wait strategy (on a machine of few cores, {@code BLOCKING} keeps it from
 * competing with the enqueuing thread for a core); {@code -p markerBatch=1,16} compares a completion marker per
 * operation with one per 16 (marker batches, ContextOptions.withMarkerBatch, docs/architecture.md).
 *
 * <p>{@code -p observe=none,listener,jfr} measures the observation hook: {@code none}, nobody observes (the hook's
 * cost when off: one volatile read); {@code listener}, a {@link DeviceListener} that does nothing is registered (the
 * hook's own cost with a listener: the calls and a completion stage per operation); {@code jfr}, a Flight Recorder
 * recording enables {@code dev.sluice.Operation} at its default 1 ms threshold, so events are made but not committed.
 * The {@code sluice-micrometer} binder's cost is measured by {@link MeterBenchmark}.
 */
public class EnqueueBenchmark extends BacklogBenchmark {

    @Param({"false"})
    public boolean tracing;

    @Param({"PARK"})
    public String waitStrategy;

    /** Operations per completion marker: 1 (the default), or more with the marker-batching experiment. */
    @Param({"1"})
    public int markerBatch;

    @Param({"none"})
    public String observe;

    private @Nullable Recording recording;
    private DeviceFunction empty0;
    private DeviceFunction empty5;
    private DeviceBuffer a;
    private DeviceBuffer b;
    private DeviceBuffer small;
    private HostBuffer pinned;
    private DeviceEvent event;
    private final LaunchConfig one = LaunchConfig.of(1, 1);
    private final Long n = 1024L;
    private final Float s = 2.5f;
    private final Integer k = 7;

    @Override
    DeviceContext openContext() {
        // read by ContextOptions.defaults(), which Bench.open builds the options from
        System.setProperty(SluiceProperties.MARKER_BATCH, Integer.toString(markerBatch));
        try {
            return Bench.open(tracing, waitStrategy);
        } finally {
            System.clearProperty(SluiceProperties.MARKER_BATCH);
        }
    }

    @Override
    void prepare() {
        switch (observe) {
            case "none" -> { }
            case "listener" -> ctx.addListener(new DeviceListener() { });
            case "jfr" -> {
                recording = new Recording();
                recording.enable("dev.sluice.Operation").withThreshold(Duration.ofMillis(1));
                recording.start();
            }
            default -> throw new IllegalArgumentException("observe=" + observe + ": none, listener or jfr");
        }
        empty0 = ctx.compile(BenchKernels.EMPTY0);
        empty5 = ctx.compile(BenchKernels.EMPTY5);
        a = ctx.allocate(DType.F32, 1024);
        b = ctx.allocate(DType.F32, 1024);
        small = ctx.allocate(DType.F32, 64);
        pinned = ctx.allocateHost(DType.F32, 64);
        event = ctx.createEvent();
    }

    @Override
    void release() {
        if (recording != null) {
            recording.close();
        }
    }

    @Benchmark
    public DeviceFuture<Void> launch0() {
        return backlog.add(stream.enqueueLaunch(empty0, one));
    }

    @Benchmark
    public DeviceFuture<Void> launch5() {
        return backlog.add(stream.enqueueLaunch(empty5, one, a, n, s, k, b));
    }

    @Benchmark
    public DeviceFuture<Void> copyHostToDevice() {
        return backlog.add(stream.enqueueCopy(pinned, small));
    }

    @Benchmark
    public DeviceFuture<Void> record() {
        return backlog.add(stream.enqueueRecord(event));
    }
}
