package dev.sluice.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.Kernel;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.GpuPipeline;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * docs/observability.md's Micrometer snippets, written out as a new user would from the page, and its tables of meters:
 * each meter's type and tags as the page states them.
 */
class ObservabilitySnippetsTest {

    /** The tables' meters: the type the page names and the tags beyond backend, device and the binder's own. */
    private static final Map<String, String> DEVICE_METERS = Map.ofEntries(
            Map.entry("sluice.operations.enqueued", "function counter [category, stream]"),
            Map.entry("sluice.operations.completed", "function counter []"),
            Map.entry("sluice.operations.failed", "function counter []"),
            Map.entry("sluice.operations.in.flight", "gauge []"),
            Map.entry("sluice.operation.latency", "timer [category, outcome, stream]"),
            Map.entry("sluice.copy.bytes", "function counter [direction, stream]"),
            Map.entry("sluice.memory.device.free", "gauge []"),
            Map.entry("sluice.memory.device.used", "gauge []"),
            Map.entry("sluice.memory.allocated", "gauge []"),
            Map.entry("sluice.memory.allocations", "counter []"),
            Map.entry("sluice.memory.frees", "counter []"),
            Map.entry("sluice.kernel.compilations", "timer [outcome]"),
            Map.entry("sluice.faults", "counter []"));

    private static final Map<String, String> PIPELINE_METERS = Map.of(
            "sluice.pipeline.chunks.started", "function counter [pipeline]",
            "sluice.pipeline.chunks.done", "function counter [pipeline]",
            "sluice.pipeline.chunks.in.flight", "gauge [pipeline]",
            "sluice.pipeline.lanes.open", "gauge [pipeline]",
            "sluice.pipeline.lanes.reused", "function counter [pipeline]",
            "sluice.pipeline.allocations", "function counter [pipeline]",
            "sluice.pipeline.allocations.live", "gauge [pipeline]");

    private static String describe(Meter m) {
        String type = switch (m.getId().getType()) {
            case COUNTER -> m instanceof FunctionCounter ? "function counter" : "counter";
            case GAUGE -> "gauge";
            case TIMER -> "timer";
            default -> m.getId().getType().toString();
        };
        Set<String> tags = new TreeSet<>();
        for (Tag t : m.getId().getTags()) {
            tags.add(t.getKey());
        }
        tags.removeAll(Set.of("backend", "device", "service"));
        return type + " " + tags;
    }

    @Test
    void theSnippetsRegisterTheMetersOfTheTables() {
        MeterRegistry registry = new SimpleMeterRegistry();
        registry.config().meterFilter(new MeterFilter() {          // or the registry decides, for binders that ask nothing
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                return id.getName().equals("sluice.operation.latency")
                        ? DistributionStatisticConfig.builder().percentilesHistogram(true).build().merge(config) : config;
            }
        });
        try (DeviceContext ctx = DeviceContext.open();
                GpuPipeline<float[], float[]> pipeline = GpuPipeline.builder(ctx).lanes(2).chunkElements(16, DType.F32)
                        .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out)).build(Chunks.floats())) {
            DeviceMetrics metrics = new DeviceMetrics(ctx, Tags.of("service", "images"));
            metrics.bindTo(registry);                        // a DeviceListener on ctx from here on
            PipelineMeters pipe = new PipelineMeters(pipeline, "resize");
            pipe.bindTo(registry);                           // reads pipeline.metrics() at each scrape
            pipeline.process(Flux.range(0, 4).map(i -> new float[16])).blockLast();
            ctx.compile(Kernel.named("noop").java(t -> { }).build()).close();
            ctx.synchronize();
            metrics.flush();
            Map<String, String> seen = new TreeMap<>();
            registry.getMeters().forEach(m -> {
                if (m.getId().getName().startsWith("sluice.pipeline.")) {
                    assertEquals("resize", m.getId().getTag("pipeline"));
                } else {
                    assertEquals("images", m.getId().getTag("service"), m.getId().toString());
                    assertEquals("cpu", m.getId().getTag("backend"), m.getId().toString());
                    assertEquals("0", m.getId().getTag("device"), m.getId().toString());
                }
                seen.merge(m.getId().getName(), describe(m), (a, b) -> a.equals(b) ? a : a + " | " + b);
            });
            Map<String, String> table = new TreeMap<>(DEVICE_METERS);
            table.putAll(PIPELINE_METERS);
            assertEquals(table, seen);
            metrics.close();                                 // stops listening, removes its meters
            assertNull(registry.find("sluice.operations.completed").meter());
            pipe.close();
        }
    }
}
