package dev.sluice.spark;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingWindowReservoir;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFigure;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.MemoryInfo;
import dev.sluice.OperationKind;
import dev.sluice.TraceSpan;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The figures of one executor device: its context's, every one of {@link DeviceFigure} under its
 * {@link DeviceFigure#metricName() canonical name} (a {@link DeviceListener} added when the context opens), and the GPU
 * stages' tasks, batches and rows on it. {@link SluiceSparkPlugin} registers them in the plugin's metric registry, so
 * Spark's metric sinks (JMX, Prometheus servlet, CSV...) report them, under
 * {@code plugin.dev.sluice.spark.SluiceSparkPlugin.} followed by the names below, in which {@code DEVICE} is
 * {@code backend-ordinal} ({@code cuda-0}): the context's counters and gauges as Dropwizard gauges,
 * {@code sluice.copy.bytes} once per direction ({@code sluice.copy.bytes.upload}), its timers as histograms of
 * nanoseconds over the latest {@value #WINDOW} observations.
 */
final class DeviceFigures implements DeviceListener {

    /** The observations a timer figure's histogram keeps. */
    static final int WINDOW = 1024;
    /** The directions of {@link DeviceFigure#COPY_BYTES}, as sluice-micrometer tags them. */
    static final List<String> DIRECTIONS = List.of(TraceSpan.UPLOAD, TraceSpan.DOWNLOAD, TraceSpan.DEVICE_TO_DEVICE,
            TraceSpan.PEER);

    /** Gauge: GPU stage tasks running on the device now. */
    static final String TASKS_RUNNING = "tasks.running";
    /** Gauge: GPU stage tasks that ended on the device, successfully or not. */
    static final String TASKS_ENDED = "tasks.ended";
    /** Gauge: of those, the tasks that failed (input, stage, device or a kill). */
    static final String TASKS_FAILED = "tasks.failed";
    /** Gauge: Arrow batches whose results the GPU stages emitted. */
    static final String BATCHES = "batches";
    /** Gauge: rows of those batches. */
    static final String ROWS = "rows";
    /**
     * Gauge: batches whose device work a lane replayed as a graph (the batch had the shape of the one before it on that
     * lane), counted when each task ends.
     */
    static final String GRAPH_REPLAYS = "graphReplays";
    /**
     * Gauge: graphs the lanes built for the batches they replayed (a lane's first batch, and one whose shape changed),
     * counted when each task ends; far fewer than {@link #GRAPH_REPLAYS} when lanes replay what they built.
     */
    static final String GRAPH_BUILDS = "graphBuilds";

    /** The stages' own figures, beside the context's. */
    static final List<String> STAGE_NAMES = List.of(TASKS_RUNNING, TASKS_ENDED, TASKS_FAILED, BATCHES, ROWS, GRAPH_REPLAYS,
            GRAPH_BUILDS);

    /** Every metric's name, the context's figures' first, in registration order. */
    static final List<String> NAMES = names();

    private static List<String> names() {
        List<String> names = new ArrayList<>();
        for (DeviceFigure f : DeviceFigure.values()) {
            if (f == DeviceFigure.COPY_BYTES) {
                DIRECTIONS.forEach(d -> names.add(f.metricName() + "." + d));
            } else {
                names.add(f.metricName());
            }
        }
        names.addAll(STAGE_NAMES);
        return List.copyOf(names);
    }

    private final DeviceContext context;
    private final LongAdder enqueued = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder allocated = new LongAdder();
    private final LongAdder faults = new LongAdder();
    private final LongAdder allocations = new LongAdder();
    private final LongAdder frees = new LongAdder();
    private final LongAdder[] copyBytes = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()};
    private final Histogram latency = new Histogram(new SlidingWindowReservoir(WINDOW));
    private final Histogram compilations = new Histogram(new SlidingWindowReservoir(WINDOW));
    final LongAdder tasksRunning = new LongAdder();
    final LongAdder tasksEnded = new LongAdder();
    final LongAdder tasksFailed = new LongAdder();
    final LongAdder batches = new LongAdder();
    final LongAdder rows = new LongAdder();
    final LongAdder graphReplays = new LongAdder();
    final LongAdder graphBuilds = new LongAdder();

    DeviceFigures(DeviceContext context) {
        this.context = context;
    }

    /**
     * Registers the figures under {@code prefix} ({@code device.cuda-0}) in {@code registry}. The switch has no default,
     * so a figure added to {@link DeviceFigure} does not compile here until it is reported.
     */
    void register(MetricRegistry registry, String prefix) {
        for (DeviceFigure figure : DeviceFigure.values()) {
            String name = figure.metricName();
            switch (figure) {
                case OPERATIONS_ENQUEUED -> gauge(registry, prefix, name, enqueued::sum);
                case OPERATIONS_COMPLETED -> gauge(registry, prefix, name, completed::sum);
                case OPERATIONS_FAILED -> gauge(registry, prefix, name, failed::sum);
                // Completed first: an operation completing between the two reads is then counted in flight, never below 0.
                case OPERATIONS_IN_FLIGHT -> gauge(registry, prefix, name, () -> {
                    long done = completed.sum();
                    return Math.max(0, enqueued.sum() - done);
                });
                case OPERATION_LATENCY -> metric(registry, prefix, name, latency);
                case COPY_BYTES -> {
                    for (int d = 0; d < DIRECTIONS.size(); d++) {
                        gauge(registry, prefix, name + "." + DIRECTIONS.get(d), copyBytes[d]::sum);
                    }
                }
                case MEMORY_ALLOCATED -> gauge(registry, prefix, name, allocated::sum);
                case MEMORY_ALLOCATIONS -> gauge(registry, prefix, name, allocations::sum);
                case MEMORY_FREES -> gauge(registry, prefix, name, frees::sum);
                case MEMORY_DEVICE_USED -> metric(registry, prefix, name, (Gauge<Double>) () -> {
                    MemoryInfo m = memoryInfo();
                    return m == null ? Double.NaN : (double) (m.total() - m.free());
                });
                case MEMORY_DEVICE_FREE -> metric(registry, prefix, name, (Gauge<Double>) () -> {
                    MemoryInfo m = memoryInfo();
                    return m == null ? Double.NaN : (double) m.free();
                });
                case KERNEL_COMPILATIONS -> metric(registry, prefix, name, compilations);
                case FAULTS -> gauge(registry, prefix, name, faults::sum);
            }
        }
        gauge(registry, prefix, TASKS_RUNNING, tasksRunning::sum);
        gauge(registry, prefix, TASKS_ENDED, tasksEnded::sum);
        gauge(registry, prefix, TASKS_FAILED, tasksFailed::sum);
        gauge(registry, prefix, BATCHES, batches::sum);
        gauge(registry, prefix, ROWS, rows::sum);
        gauge(registry, prefix, GRAPH_REPLAYS, graphReplays::sum);
        gauge(registry, prefix, GRAPH_BUILDS, graphBuilds::sum);
    }

    /** Removes what {@link #register} registered. */
    static void unregister(MetricRegistry registry, String prefix) {
        for (String name : NAMES) {
            registry.remove(MetricRegistry.name(prefix, name));
        }
    }

    private static void gauge(MetricRegistry registry, String prefix, String name, Gauge<Long> gauge) {
        metric(registry, prefix, name, gauge);
    }

    private static void metric(MetricRegistry registry, String prefix, String name, Metric metric) {
        String full = MetricRegistry.name(prefix, name);
        registry.remove(full); // a plugin initialised again in the same JVM (tests, local mode) registers afresh
        registry.register(full, metric);
    }

    private @Nullable MemoryInfo memoryInfo() {
        if (context.isClosed() || context.isFaulted()) {
            return null;
        }
        try {
            return context.memoryInfo();
        } catch (RuntimeException closedMeanwhile) {
            return null;
        }
    }

    @Override
    public void operationEnqueued(DeviceStream stream, OperationKind kind, long bytes) {
        enqueued.increment();
        if (bytes > 0) {
            // A staged peer copy counts as peer, as sluice-micrometer counts it: one series for bytes between devices.
            int d = DIRECTIONS.indexOf(kind == OperationKind.PEER_STAGED ? TraceSpan.PEER : kind.category());
            if (d >= 0) {
                copyBytes[d].add(bytes);
            }
        }
    }

    @Override
    public void operationCompleted(DeviceStream stream, OperationKind kind, long bytes, long latencyNanos,
            @Nullable Throwable failure) {
        completed.increment();
        if (failure != null) {
            failed.increment();
        }
        latency.update(latencyNanos);
    }

    @Override
    public void memoryAllocated(DeviceContext context, long bytes) {
        allocated.add(bytes);
        allocations.increment();
    }

    @Override
    public void memoryFreed(DeviceContext context, long bytes) {
        allocated.add(-bytes);
        frees.increment();
    }

    @Override
    public void kernelCompiled(DeviceContext context, String kernel, long nanos, @Nullable Throwable failure) {
        compilations.update(nanos);
    }

    @Override
    public void faulted(DeviceContext context, Throwable fault) {
        faults.increment();
    }

    /** The value of the count {@code name} now (for tests). */
    long value(String name) {
        return switch (name) {
            case "sluice.operations.completed" -> completed.sum();
            case "sluice.operations.failed" -> failed.sum();
            case "sluice.faults" -> faults.sum();
            case "sluice.memory.allocated" -> allocated.sum();
            case TASKS_RUNNING -> tasksRunning.sum();
            case TASKS_ENDED -> tasksEnded.sum();
            case TASKS_FAILED -> tasksFailed.sum();
            case BATCHES -> batches.sum();
            case ROWS -> rows.sum();
            case GRAPH_REPLAYS -> graphReplays.sum();
            case GRAPH_BUILDS -> graphBuilds.sum();
            default -> throw new IllegalArgumentException(name);
        };
    }
}
