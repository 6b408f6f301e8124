package dev.sluice.micrometer;

import dev.sluice.ClosedResourceException;
import dev.sluice.InvalidArgumentException;
import dev.sluice.reactive.GpuPipeline;
import dev.sluice.reactive.PipelineMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Binds a {@link GpuPipeline}'s counters ({@link GpuPipeline#metrics()}) to a {@link MeterRegistry}, tagged
 * {@code pipeline} with the name given (and the extra tags): chunks started and done, chunks in flight
 * (the lanes busy), lanes open and reused, and buffers allocated and live. Every meter reads the pipeline's counters
 * when the registry is scraped, so binding costs the pipeline nothing per chunk. Needs {@code sluice-reactive} on the
 * class path.
 */
public final class PipelineMeters implements MeterBinder, AutoCloseable {

    private final PipelineMetrics metrics;
    private final Tags tags;
    private final List<Meter> meters = new ArrayList<>();
    private @Nullable MeterRegistry registry;
    private boolean closed;

    /**
     * Meters for {@code pipeline}, tagged {@code pipeline=name} and {@code extraTags}.
     *
     * @throws InvalidArgumentException naming the argument for a null pipeline, name or tags, or {@code extraTags} if
     *                                  it holds a null
     */
    public PipelineMeters(GpuPipeline<?, ?> pipeline, String name, Iterable<Tag> extraTags) {
        if (pipeline == null || name == null) {
            throw new InvalidArgumentException(pipeline == null ? "pipeline" : "name", "is null");
        }
        this.metrics = pipeline.metrics();
        this.tags = Tags.of(DeviceMetrics.checkTags(extraTags)).and("pipeline", name);
    }

    /** Meters for {@code pipeline}, tagged {@code pipeline=name}. */
    public PipelineMeters(GpuPipeline<?, ?> pipeline, String name) {
        this(pipeline, name, Tags.empty());
    }

    /**
     * Registers the meters in {@code registry}.
     *
     * @throws InvalidArgumentException naming {@code registry} if it is null
     * @throws IllegalStateException    if already bound
     * @throws ClosedResourceException  once {@link #close()} was called: its meters would stay until a second close
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (registry == null) {
            throw new InvalidArgumentException("registry", "is null");
        }
        if (this.registry != null) {
            throw new IllegalStateException("PipelineMeters already bound to " + this.registry);
        }
        if (closed) {
            throw new ClosedResourceException("PipelineMeters " + tags);
        }
        this.registry = registry;
        PipelineMetrics m = metrics;
        meters.add(FunctionCounter.builder("sluice.pipeline.chunks.started", m, PipelineMetrics::chunksStarted).tags(tags)
                .description("Chunks whose upload was enqueued").register(registry));
        meters.add(FunctionCounter.builder("sluice.pipeline.chunks.done", m, PipelineMetrics::chunksEmitted).tags(tags)
                .description("Chunks whose result was emitted downstream").register(registry));
        meters.add(Gauge.builder("sluice.pipeline.chunks.in.flight", m, PipelineMetrics::inFlight).tags(tags)
                .description("Chunks on the device now: the lanes busy").register(registry));
        meters.add(Gauge.builder("sluice.pipeline.lanes.open", m, x -> x.lanesOpened() - x.lanesClosed()).tags(tags)
                .description("Lanes (a stream and its buffers) open, busy or kept idle").register(registry));
        meters.add(FunctionCounter.builder("sluice.pipeline.lanes.reused", m, PipelineMetrics::lanesReused).tags(tags)
                .description("Lanes a subscription took from those kept by an earlier one").register(registry));
        meters.add(FunctionCounter.builder("sluice.pipeline.allocations", m, PipelineMetrics::allocations).tags(tags)
                .description("Device and pinned host buffers allocated for lanes").register(registry));
        meters.add(Gauge.builder("sluice.pipeline.allocations.live", m, PipelineMetrics::liveAllocations).tags(tags)
                .description("Lane buffers allocated and not yet released").register(registry));
    }

    /** Removes the meters from the registry. Idempotent and thread-safe. */
    @Override
    public synchronized void close() {
        closed = true;
        MeterRegistry r = registry;
        if (r != null) {
            meters.forEach(r::remove);
        }
        meters.clear();
    }
}
