package dev.sluice.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.HostData;
import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.GpuPipeline;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

class DeviceMetricsTest {

    private DeviceContext ctx;
    private SimpleMeterRegistry registry;

    /**
     * The distribution each meter asked for, as the registry's filters see it: a {@code SimpleMeterRegistry} makes no
     * histogram buckets (it cannot aggregate them), so the request is checked here.
     */
    private final Map<String, DistributionStatisticConfig> seen = new ConcurrentHashMap<>();

    @BeforeEach
    void open() {
        ctx = DeviceContext.open(Api.CPU, 0, ContextOptions.defaults());
        registry = new SimpleMeterRegistry();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                seen.put(id.getName(), config);
                return config;
            }
        });
    }

    @AfterEach
    void close() {
        ctx.close();
        registry.close();
    }

    @Test
    void operationsCopiesAndMemoryAreCountedPerStreamAndCategory() {
        DeviceMetrics metrics = new DeviceMetrics(ctx, Tags.of("service", "test"));
        metrics.bindTo(registry);
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.F32, 1024);
        float[] host = new float[1024];
        for (int i = 0; i < 3; i++) {
            s.enqueueCopy(HostData.of(host), b);
        }
        s.enqueueCopy(b, HostData.of(host));
        s.enqueueMemset(b, 0).join();
        ctx.synchronize();

        String backend = Api.CPU.id();
        assertEquals(3, registry.get("sluice.operations.enqueued")
                .tags("backend", backend, "device", "0", "service", "test", "stream", "stream 1", "category", "upload")
                .functionCounter().count());
        assertEquals(3 * 4096, registry.get("sluice.copy.bytes").tags("stream", "stream 1", "direction", "upload").functionCounter().count());
        assertEquals(4096, registry.get("sluice.copy.bytes").tags("direction", "download").functionCounter().count());
        assertNull(registry.find("sluice.copy.bytes").tags("direction", "memset").meter(), "memsets copy nothing");
        metrics.flush(); // the recorder thread would within its period
        Timer uploads = registry.get("sluice.operation.latency").tags("stream", "stream 1", "category", "upload", "outcome", "success")
                .timer();
        assertEquals(3, uploads.count());
        assertTrue(uploads.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS) > 0);
        assertEquals(0, uploads.takeSnapshot().percentileValues().length, "no percentiles unless asked for");
        assertNotEquals(Boolean.TRUE, seen.get("sluice.operation.latency").isPercentileHistogram(),
                "no histogram unless asked for");
        assertEquals(5, registry.get("sluice.operations.completed").functionCounter().count());
        assertEquals(0, registry.get("sluice.operations.in.flight").gauge().value());
        assertEquals(4096, registry.get("sluice.memory.allocated").gauge().value());
        assertEquals(1, registry.get("sluice.memory.allocations").counter().count());
        double free = registry.get("sluice.memory.device.free").gauge().value();
        double used = registry.get("sluice.memory.device.used").gauge().value();
        assertTrue(free >= 0 && used >= 0, free + " free, " + used + " used");

        b.close();
        ctx.synchronize();
        assertEquals(0, registry.get("sluice.memory.allocated").gauge().value(), "freed in stream order");
        assertEquals(1, registry.get("sluice.memory.frees").counter().count());

        metrics.close();
        assertNull(registry.find("sluice.operations.enqueued").meter(), "close() removes the meters");
        assertNull(registry.find("sluice.memory.allocated").meter());
    }

    @Test
    void theRecorderThreadBringsLatenciesToTheTimerWithoutAFlush() throws InterruptedException {
        new DeviceMetrics(ctx).bindTo(registry);
        DeviceStream s = ctx.createStream();
        for (int i = 0; i < 50; i++) {
            s.enqueueMarker();
        }
        s.synchronize();
        Timer t = registry.get("sluice.operation.latency").tags("stream", s.name(), "category", "marker").timer();
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
        while (t.count() < 50 && System.nanoTime() < deadline) {
            Thread.sleep(DeviceMetrics.RECORD_MILLIS);
        }
        assertEquals(50, t.count(), "recorded by sluice-metrics-recorder within its period");
    }

    @Test
    void latenciesThatFindTheRingFullAreCountedNotTimedAndNoneIsLostTrackOf() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.ringCapacity = 8;
        metrics.bindTo(registry);
        DeviceStream s = ctx.createStream();
        synchronized (metrics.drainLock) { // the recorder cannot empty the ring meanwhile
            DeviceFuture<Void> last = null;
            for (int i = 0; i < 100; i++) {
                last = s.enqueueMarker();
            }
            last.join(); // its listeners have heard of it first
        }
        metrics.flush();
        Timer t = registry.get("sluice.operation.latency").tags("stream", s.name(), "category", "marker").timer();
        FunctionCounter unrecorded = registry.get("sluice.operation.latency.unrecorded")
                .tags("stream", s.name(), "category", "marker").functionCounter();
        assertEquals(8, t.count(), "the ring's worth, timed by the flush");
        assertEquals(92, unrecorded.count(), "the rest, counted");
        assertEquals(100, registry.get("sluice.operations.completed").functionCounter().count());
        metrics.close();
        assertNull(registry.find("sluice.operation.latency.unrecorded").meter(), "removed with the binder's meters");
    }

    @Test
    void aStagedPeerCopyCountsAsAPeerCopyAndEveryKindHasItsCategorysSeries() {
        // A staged peer copy's category is "peer-staged"; the binder counts it in the "peer" series.
        assertEquals(3, DeviceMetrics.index(dev.sluice.OperationKind.PEER));
        assertEquals(3, DeviceMetrics.index(dev.sluice.OperationKind.PEER_STAGED));
        assertEquals(9, DeviceMetrics.index(dev.sluice.OperationKind.MARKER));
        assertEquals(12, DeviceMetrics.index(dev.sluice.OperationKind.GRAPH));
        assertEquals(13, DeviceMetrics.index(dev.sluice.OperationKind.REPLAY_BUILT));
    }

    @Test
    void repeatedWorkCountsItsGraphLaunchesAsReplayAndItsOperationsUnderTheirOwn() {
        DeviceMetrics metrics = new DeviceMetrics(ctx, Tags.empty());
        metrics.bindTo(registry);
        assertEquals(13, DeviceMetrics.index(dev.sluice.OperationKind.REPLAY));
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.F32, 16);
        try (dev.sluice.RepeatedWork work = s.repeatedWork()) {
            for (int i = 0; i < 3; i++) {
                work.enqueue(w -> {
                    w.enqueueMemset(b, 0);
                    w.enqueueMemset(b, 1);
                }).join();
            }
            assertEquals(3, work.replays(), "every call a graph launch");
        }
        s.synchronize();
        assertEquals(3, registry.get("sluice.operations.enqueued").tags("stream", s.name(), "category", "replay")
                .functionCounter().count(), "the graph launches, the first (built) one too");
        assertEquals(6, registry.get("sluice.operations.enqueued").tags("stream", s.name(), "category", "memset")
                .functionCounter().count(), "the operations each launch ran");
    }

    @Test
    void aBinderNeverClosedLeavesTheRecorderOnceItsContextCloses() throws InterruptedException {
        DeviceContext other = DeviceContext.open(Api.CPU, 0);
        DeviceMetrics metrics = new DeviceMetrics(other);
        metrics.bindTo(new SimpleMeterRegistry());
        assertTrue(metrics.isRecorded());
        assertTrue(DeviceMetrics.recorderRunning());
        other.close(); // the binder itself is never closed
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
        while (metrics.isRecorded() && System.nanoTime() < deadline) {
            Thread.sleep(DeviceMetrics.RECORD_MILLIS);
        }
        assertFalse(metrics.isRecorded(), "dropped by the recorder: it keeps neither the binder nor its context");
    }

    @Test
    void theRecorderStopsWhenNoBinderIsLeft() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.bindTo(registry);
        assertTrue(DeviceMetrics.recorderRunning());
        metrics.close();
        assertFalse(metrics.isRecorded());
        // Other tests' binders of closed contexts may still be listed until the recorder's next period drops them.
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
        while (DeviceMetrics.recorderRunning() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertFalse(DeviceMetrics.recorderRunning(), "no binder bound: the recorder thread idles");
    }

    @Test
    void aFailedOperationIsTimedAtOnceUnderItsOutcome() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.bindTo(registry);
        DeviceStream s = ctx.createStream();
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        var waited = s.waitFor(gate); // the stream's wait for a host stage, which fails
        gate.completeExceptionally(new IllegalStateException("the stage failed"));
        assertThrows(java.util.concurrent.CompletionException.class, waited::join);
        Timer failed = registry.find("sluice.operation.latency").tags("stream", s.name(), "outcome", "failure").timer();
        org.junit.jupiter.api.Assertions.assertNotNull(failed, "a failure's timer, without a flush");
        assertTrue(failed.count() >= 1);
    }

    @Test
    void kernelCompilationsAreTimed() {
        new DeviceMetrics(ctx).bindTo(registry);
        ctx.compile(dev.sluice.Kernel.named("noop").java(t -> { }).build());
        assertEquals(1, registry.get("sluice.kernel.compilations").tags("outcome", "success").timer().count());
    }

    @Test
    void bindingTwiceIsRefused() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.bindTo(registry);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> metrics.bindTo(new SimpleMeterRegistry()));
        assertTrue(e.getMessage().contains("already bound"), e.getMessage());
    }

    @Test
    void badArgumentsAreRefusedNamingThem() {
        dev.sluice.InvalidArgumentException e = assertThrows(dev.sluice.InvalidArgumentException.class,
                () -> new DeviceMetrics(ctx).percentiles(0.5, 1.5));
        assertEquals("percentiles", e.argument());
        assertTrue(e.getMessage().contains("1.5") && e.getMessage().contains("0..1"), e.getMessage());
        e = assertThrows(dev.sluice.InvalidArgumentException.class, () -> new DeviceMetrics(null));
        assertEquals("context", e.argument());
        DeviceMetrics bound = new DeviceMetrics(ctx);
        bound.bindTo(registry);
        assertThrows(IllegalStateException.class, () -> bound.percentiles(0.5));
    }

    @Test
    void aNullRegistryOrPercentilesAreRefusedNamingThemAndTheBinderStaysUsable() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        dev.sluice.InvalidArgumentException e = assertThrows(dev.sluice.InvalidArgumentException.class,
                () -> metrics.bindTo(null));
        assertEquals("registry", e.argument());
        e = assertThrows(dev.sluice.InvalidArgumentException.class, () -> metrics.percentiles((double[]) null));
        assertEquals("percentiles", e.argument());
        metrics.bindTo(registry); // the refusals left it unbound
        assertNotNull(registry.find("sluice.operations.completed").functionCounter());
        metrics.close();
    }

    @Test
    void extraTagsHoldingANullAreRefusedNamingThem() {
        List<io.micrometer.core.instrument.Tag> withNull = Arrays.asList(io.micrometer.core.instrument.Tag.of("a", "b"),
                null);
        dev.sluice.InvalidArgumentException e = assertThrows(dev.sluice.InvalidArgumentException.class,
                () -> new DeviceMetrics(ctx, withNull));
        assertEquals("extraTags", e.argument());
        assertTrue(e.getMessage().contains("position 1"), e.getMessage());
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(1).chunkElements(256, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out))
                .build(Chunks.floats())) {
            e = assertThrows(dev.sluice.InvalidArgumentException.class, () -> new PipelineMeters(p, "copy", withNull));
            assertEquals("extraTags", e.argument());
            e = assertThrows(dev.sluice.InvalidArgumentException.class, () -> new PipelineMeters(p, "copy", null));
            assertEquals("extraTags", e.argument());
        }
    }

    @Test
    void aClosedBinderOrContextRefusesToBindAndRegistersNothing() {
        DeviceMetrics closedFirst = new DeviceMetrics(ctx);
        closedFirst.close();
        assertThrows(dev.sluice.ClosedResourceException.class, () -> closedFirst.bindTo(registry));
        assertTrue(registry.getMeters().isEmpty(), "registered by a closed binder: " + registry.getMeters());

        DeviceMetrics ofClosedContext = new DeviceMetrics(ctx);
        ctx.close();
        assertThrows(dev.sluice.ClosedResourceException.class, () -> ofClosedContext.bindTo(registry));
        assertTrue(registry.getMeters().isEmpty(), "left by a refused bind: " + registry.getMeters());
    }

    @Test
    void pipelineMetersRefuseANullRegistryAndABindAfterClose() {
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(1).chunkElements(256, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out))
                .build(Chunks.floats())) {
            PipelineMeters meters = new PipelineMeters(p, "copy");
            dev.sluice.InvalidArgumentException e = assertThrows(dev.sluice.InvalidArgumentException.class,
                    () -> meters.bindTo(null));
            assertEquals("registry", e.argument());
            meters.close();
            meters.close();
            assertThrows(dev.sluice.ClosedResourceException.class, () -> meters.bindTo(registry));
            assertTrue(registry.getMeters().isEmpty(), "registered after close: " + registry.getMeters());
        }
    }

    @Test
    void bucketsAloneLeaveNoClientPercentiles() {
        DeviceMetrics metrics = new DeviceMetrics(ctx).percentiles().percentileHistogram(true);
        metrics.bindTo(registry);
        ctx.stream().enqueueMarker().join();
        metrics.flush();
        Timer t = registry.get("sluice.operation.latency").tags("category", "marker").timer();
        assertEquals(1, t.count());
        assertEquals(0, t.takeSnapshot().percentileValues().length);
        assertEquals(Boolean.TRUE, seen.get("sluice.operation.latency").isPercentileHistogram(), "the buckets asked for");
    }

    @Test
    void percentilesAndHistogramArePublishedWhenTheBinderAsks() {
        DeviceMetrics metrics = new DeviceMetrics(ctx).percentiles(0.5, 0.99).percentileHistogram(true);
        metrics.bindTo(registry);
        ctx.stream().enqueueMarker().join();
        metrics.flush();
        Timer t = registry.get("sluice.operation.latency").tags("category", "marker").timer();
        ValueAtPercentile[] p = t.takeSnapshot().percentileValues();
        assertEquals(List.of(0.5, 0.99), Arrays.stream(p).map(ValueAtPercentile::percentile).toList());
        assertEquals(Boolean.TRUE, seen.get("sluice.operation.latency").isPercentileHistogram());
    }

    @Test
    void aRegistrysMeterFilterDecidesTheDistributionWhenTheBinderDoesNotAsk() {
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                return id.getName().equals("sluice.operation.latency")
                        ? DistributionStatisticConfig.builder().percentiles(0.9).build().merge(config)
                        : config;
            }
        });
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.bindTo(registry);
        ctx.stream().enqueueMarker().join();
        metrics.flush();
        Timer t = registry.get("sluice.operation.latency").tags("category", "marker").timer();
        ValueAtPercentile[] p = t.takeSnapshot().percentileValues();
        assertEquals(List.of(0.9), Arrays.stream(p).map(ValueAtPercentile::percentile).toList());
    }

    @Test
    void aClosedStreamsMetersAreRemovedAndItsCountsStayInTheContextsTotals() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.bindTo(registry);
        DeviceStream s = ctx.createStream();
        try (DeviceBuffer b = ctx.allocate(DType.F32, 16)) {
            s.enqueueCopy(HostData.of(new float[16]), b);
            s.enqueueMarker();
            s.synchronize();
            metrics.flush();
            assertNotNull(registry.find("sluice.operation.latency").tags("stream", s.name()).timer());
            assertNotNull(registry.find("sluice.copy.bytes").tags("stream", s.name()).functionCounter());
            s.close();
        }
        assertTrue(registry.find("sluice.operations.enqueued").tags("stream", s.name()).meters().isEmpty(),
                "the closed stream's meters are gone: " + registry.getMeters());
        assertTrue(registry.find("sluice.operation.latency").tags("stream", s.name()).meters().isEmpty());
        assertTrue(registry.find("sluice.copy.bytes").tags("stream", s.name()).meters().isEmpty());
        assertTrue(metrics.streamsMetered() <= 1, "at most the default stream, which freed the buffer, is metered still");
        assertTrue(registry.get("sluice.operations.completed").functionCounter().count() >= 2,
                "the context-wide count keeps the closed stream's operations");
        assertEquals(0, registry.get("sluice.operations.in.flight").gauge().value());
    }

    @Test
    void tenThousandStreamsOpenedAndClosedLeaveTheMeterCountBounded() {
        DeviceMetrics metrics = new DeviceMetrics(ctx).percentiles(0.5).percentileHistogram(true);
        metrics.bindTo(registry);
        int before = -1;
        for (int i = 0; i < 10_000; i++) {
            DeviceStream s = ctx.createStream();
            s.enqueueMarker();
            s.enqueueHostFunction(() -> { });
            s.close();
            if (i == 0) {
                before = registry.getMeters().size();
            }
        }
        metrics.flush();
        assertEquals(before, registry.getMeters().size(), "meters: " + registry.getMeters().size());
        assertEquals(0, metrics.streamsMetered());
        assertEquals(20_000, registry.get("sluice.operations.completed").functionCounter().count());
        assertEquals(0, registry.get("sluice.operations.in.flight").gauge().value());
    }

    @Test
    void theContextsCloseRemovesTheMetersOfTheStreamsItDestroyed() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.bindTo(registry);
        DeviceStream s = ctx.createStream();
        s.enqueueMarker().join();
        ctx.close();
        assertTrue(registry.find("sluice.operations.enqueued").tags("stream", s.name()).meters().isEmpty());
        assertEquals(0, metrics.streamsMetered());
        assertEquals(1, registry.get("sluice.operations.completed").functionCounter().count());
        metrics.close();
    }

    @Test
    void latencySamplingTimesEveryNthOperationWhileCountersCountAll() {
        DeviceMetrics metrics = new DeviceMetrics(ctx).latencySampling(10);
        metrics.bindTo(registry);
        DeviceStream s = ctx.createStream();
        for (int i = 0; i < 95; i++) {
            s.enqueueMarker();
        }
        ctx.synchronize();
        metrics.flush();
        Timer t = registry.get("sluice.operation.latency").tags("stream", s.name(), "category", "marker").timer();
        assertEquals(10, t.count(), "the 1st, 11th, ..., 91st");
        assertEquals(95, registry.get("sluice.operations.enqueued").tags("stream", s.name(), "category", "marker")
                .functionCounter().count());
        assertEquals(95, registry.get("sluice.operations.completed").functionCounter().count());
        assertEquals(0, registry.get("sluice.operations.in.flight").gauge().value());
    }

    @Test
    void latencySamplingBelowOneIsRefusedNamingIt() {
        dev.sluice.InvalidArgumentException e = assertThrows(dev.sluice.InvalidArgumentException.class,
                () -> new DeviceMetrics(ctx).latencySampling(0));
        assertEquals("oneIn", e.argument());
        assertTrue(e.getMessage().contains("0") && e.getMessage().contains("at least 1"), e.getMessage());
        DeviceMetrics bound = new DeviceMetrics(ctx);
        bound.bindTo(registry);
        assertThrows(IllegalStateException.class, () -> bound.latencySampling(4));
    }

    @Test
    void closedBinderRegistersNothingForLateCompletions() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.bindTo(registry);
        DeviceStream s = ctx.createStream();
        s.enqueueMarker();
        metrics.close();
        ctx.synchronize();
        s.enqueueMarker();
        ctx.synchronize();
        assertTrue(registry.getMeters().isEmpty(), "left behind: " + registry.getMeters());
    }

    @Test
    void memoryGaugesReadNaNOnceTheContextIsClosed() {
        new DeviceMetrics(ctx).bindTo(registry);
        ctx.close();
        assertTrue(Double.isNaN(registry.get("sluice.memory.device.free").gauge().value()));
    }

    @Test
    void pipelineChunksAndLanesAreReadFromItsCounters() {
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(256, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out))
                .build(Chunks.floats())) {
            PipelineMeters meters = new PipelineMeters(p, "copy");
            meters.bindTo(registry);
            List<float[]> out = p.process(Flux.range(0, 10).map(i -> new float[256])).collectList().block();
            assertNotNull(out);
            assertEquals(10, out.size());
            assertEquals(10, registry.get("sluice.pipeline.chunks.done").tags("pipeline", "copy").functionCounter().count());
            assertEquals(10, registry.get("sluice.pipeline.chunks.started").functionCounter().count());
            assertEquals(0, registry.get("sluice.pipeline.chunks.in.flight").gauge().value());
            // How many lanes opened depends on how fast chunks finished (a second lane opens only while the first is
            // busy); the gauge must say what the pipeline's own counters say, and the lanes are kept for reuse.
            long open = p.metrics().lanesOpened() - p.metrics().lanesClosed();
            assertTrue(open >= 1 && open <= 2, "lanes open: " + open);
            assertEquals(open, registry.get("sluice.pipeline.lanes.open").gauge().value(), "the lanes kept for reuse");
            meters.close();
            assertNull(registry.find("sluice.pipeline.chunks.done").meter());
        }
    }

    @Test
    void theMetersAreTheFiguresOfTheTable() {
        DeviceMetrics metrics = new DeviceMetrics(ctx);
        metrics.bindTo(registry);
        DeviceStream s = ctx.createStream();
        try (DeviceBuffer b = ctx.allocate(DType.F32, 16)) {
            s.enqueueCopy(HostData.of(new float[16]), b).join();
        }
        ctx.compile(dev.sluice.Kernel.named("noop").java(t -> { }).build()).close();
        ctx.synchronize();
        metrics.flush();
        java.util.Set<String> names = new java.util.TreeSet<>();
        registry.getMeters().forEach(m -> names.add(m.getId().getName()));
        java.util.Set<String> table = new java.util.TreeSet<>();
        for (dev.sluice.DeviceFigure f : dev.sluice.DeviceFigure.values()) {
            table.add(f.metricName());
        }
        assertEquals(table, names, "every figure of DeviceFigure, and no other");
        assertEquals(0, registry.get("sluice.operations.failed").functionCounter().count());
        assertEquals(1, registry.get("sluice.memory.allocations").counter().count());
        assertEquals(1, registry.get("sluice.memory.frees").counter().count());
        assertEquals("bytes", registry.get("sluice.memory.allocated").gauge().getId().getBaseUnit());
        metrics.close();
    }
}
