package dev.sluice.spark;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.MemoryInfo;
import dev.sluice.OperationKind;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The figures of one executor device: its context's operations, memory and faults (a {@link DeviceListener} added when
 * the context opens), and the GPU stages' tasks, batches and rows on it. {@link SluiceSparkPlugin} registers them as
 * Dropwizard gauges in the plugin's metric registry, so Spark's metric sinks (JMX, Prometheus servlet, CSV...) report
 * them, under {@code plugin.dev.sluice.spark.SluiceSparkPlugin.} followed by the names below, in which {@code DEVICE}
 * is {@code backend-ordinal} ({@code cuda-0}).
 */
final class DeviceFigures implements DeviceListener {

    /** Gauge: the context's operations whose futures completed, normally or not. */
    static final String OPERATIONS_COMPLETED = "operations.completed";
    /** Gauge: of those, the operations that failed. */
    static final String OPERATIONS_FAILED = "operations.failed";
    /** Gauge: operations enqueued and not yet completed. */
    static final String OPERATIONS_IN_FLIGHT = "operations.inFlight";
    /** Gauge, bytes: device memory the context allocated and has not freed. */
    static final String MEMORY_ALLOCATED = "memory.allocated";
    /** Gauge, bytes: the device's free memory as the driver reports it; -1 once the context is closed or faulted. */
    static final String MEMORY_DEVICE_FREE = "memory.deviceFree";
    /** Gauge: the context's sticky faults, 0 or 1 (a faulted context stays unusable). */
    static final String FAULTS = "faults";
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

    /** Every gauge's name, in registration order. */
    static final List<String> NAMES = List.of(OPERATIONS_COMPLETED, OPERATIONS_FAILED, OPERATIONS_IN_FLIGHT,
            MEMORY_ALLOCATED, MEMORY_DEVICE_FREE, FAULTS, TASKS_RUNNING, TASKS_ENDED, TASKS_FAILED, BATCHES, ROWS, GRAPH_REPLAYS);

    private final DeviceContext context;
    private final LongAdder enqueued = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder allocated = new LongAdder();
    private final LongAdder faults = new LongAdder();
    final LongAdder tasksRunning = new LongAdder();
    final LongAdder tasksEnded = new LongAdder();
    final LongAdder tasksFailed = new LongAdder();
    final LongAdder batches = new LongAdder();
    final LongAdder rows = new LongAdder();
    final LongAdder graphReplays = new LongAdder();

    DeviceFigures(DeviceContext context) {
        this.context = context;
    }

    /** Registers the gauges under {@code prefix} ({@code device.cuda-0}) in {@code registry}. */
    void register(MetricRegistry registry, String prefix) {
        gauge(registry, prefix, OPERATIONS_COMPLETED, completed::sum);
        gauge(registry, prefix, OPERATIONS_FAILED, failed::sum);
        // Completed first: an operation completing between the two reads is then counted in flight, never below 0.
        gauge(registry, prefix, OPERATIONS_IN_FLIGHT, () -> {
            long done = completed.sum();
            return Math.max(0, enqueued.sum() - done);
        });
        gauge(registry, prefix, MEMORY_ALLOCATED, allocated::sum);
        gauge(registry, prefix, MEMORY_DEVICE_FREE, () -> {
            MemoryInfo m = memoryInfo();
            return m == null ? -1 : m.free();
        });
        gauge(registry, prefix, FAULTS, faults::sum);
        gauge(registry, prefix, TASKS_RUNNING, tasksRunning::sum);
        gauge(registry, prefix, TASKS_ENDED, tasksEnded::sum);
        gauge(registry, prefix, TASKS_FAILED, tasksFailed::sum);
        gauge(registry, prefix, BATCHES, batches::sum);
        gauge(registry, prefix, ROWS, rows::sum);
        gauge(registry, prefix, GRAPH_REPLAYS, graphReplays::sum);
    }

    /** Removes what {@link #register} registered. */
    static void unregister(MetricRegistry registry, String prefix) {
        for (String name : NAMES) {
            registry.remove(MetricRegistry.name(prefix, name));
        }
    }

    private static void gauge(MetricRegistry registry, String prefix, String name, Gauge<Long> gauge) {
        String full = MetricRegistry.name(prefix, name);
        registry.remove(full); // a plugin initialised again in the same JVM (tests, local mode) registers afresh
        registry.register(full, gauge);
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
    }

    @Override
    public void operationCompleted(DeviceStream stream, OperationKind kind, long bytes, long latencyNanos,
            @Nullable Throwable failure) {
        completed.increment();
        if (failure != null) {
            failed.increment();
        }
    }

    @Override
    public void memoryAllocated(DeviceContext context, long bytes) {
        allocated.add(bytes);
    }

    @Override
    public void memoryFreed(DeviceContext context, long bytes) {
        allocated.add(-bytes);
    }

    @Override
    public void faulted(DeviceContext context, Throwable fault) {
        faults.increment();
    }

    /** The value of gauge {@code name} now (for tests). */
    long value(String name) {
        return switch (name) {
            case OPERATIONS_COMPLETED -> completed.sum();
            case OPERATIONS_FAILED -> failed.sum();
            case FAULTS -> faults.sum();
            case TASKS_RUNNING -> tasksRunning.sum();
            case TASKS_ENDED -> tasksEnded.sum();
            case TASKS_FAILED -> tasksFailed.sum();
            case BATCHES -> batches.sum();
            case ROWS -> rows.sum();
            case GRAPH_REPLAYS -> graphReplays.sum();
            case MEMORY_ALLOCATED -> allocated.sum();
            default -> throw new IllegalArgumentException(name);
        };
    }
}
