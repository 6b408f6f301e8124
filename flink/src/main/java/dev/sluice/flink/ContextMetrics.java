package dev.sluice.flink;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.OperationKind;
import dev.sluice.MemoryInfo;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.jspecify.annotations.Nullable;

/**
 * The figures of one shared device context, kept by a {@link DeviceListener} that {@link SharedContexts} adds when it
 * opens the context, and shown as Flink gauges in the {@code device} group of every subtask on that context, under the
 * names {@code sluice-micrometer}'s {@code DeviceMetrics} gives them: operations completed (normally or not), failed and
 * in flight, the context's device memory allocated and not freed, the device's memory used and free, and faults.
 *
 * <p>Flink gives a function its operator's metric group only (the TaskManager's group is not reachable from user code),
 * so each subtask registers the gauges of its context again: subtasks that share a device report the same values, which
 * are the context's, not the subtask's. The counts are the context's since it opened, of every subtask and job that used
 * it.
 */
final class ContextMetrics implements DeviceListener {

    /** Gauge: the context's operations whose futures completed, normally or not. */
    static final String OPERATIONS_COMPLETED = "sluice.operations.completed";
    /** Gauge: of those, the operations that failed (a device fault, the context closed first). */
    static final String OPERATIONS_FAILED = "sluice.operations.failed";
    /** Gauge: the context's operations enqueued and not yet completed. */
    static final String OPERATIONS_IN_FLIGHT = "sluice.operations.in.flight";
    /** Gauge, bytes: device memory the context allocated and has not freed. */
    static final String MEMORY_ALLOCATED = "sluice.memory.allocated";
    /** Gauge, bytes: the device's memory in use, by every process (total minus free); NaN once closed or faulted. */
    static final String MEMORY_DEVICE_USED = "sluice.memory.device.used";
    /** Gauge, bytes: the device's free memory as the driver reports it; NaN once the context is closed or faulted. */
    static final String MEMORY_DEVICE_FREE = "sluice.memory.device.free";
    /** Gauge: the context's device faults, 0 or 1 (a faulted context stays unusable). */
    static final String FAULTS = "sluice.faults";

    private final DeviceContext context;
    private final LongAdder enqueued = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder allocated = new LongAdder();
    private final LongAdder faults = new LongAdder();

    ContextMetrics(DeviceContext context) {
        this.context = context;
    }

    /** Registers the gauges of the context in {@code device}, a subtask's group of its device. */
    void register(MetricGroup device) {
        device.gauge(OPERATIONS_COMPLETED, (Gauge<Long>) completed::sum);
        device.gauge(OPERATIONS_FAILED, (Gauge<Long>) failed::sum);
        // Completed first: an operation completing between the two reads is then counted in flight, never below 0.
        device.gauge(OPERATIONS_IN_FLIGHT, (Gauge<Long>) () -> {
            long done = completed.sum();
            return Math.max(0, enqueued.sum() - done);
        });
        device.gauge(MEMORY_ALLOCATED, (Gauge<Long>) allocated::sum);
        device.gauge(MEMORY_DEVICE_USED, (Gauge<Double>) () -> {
            MemoryInfo m = memoryInfo();
            return m == null ? Double.NaN : (double) (m.total() - m.free());
        });
        device.gauge(MEMORY_DEVICE_FREE, (Gauge<Double>) () -> {
            MemoryInfo m = memoryInfo();
            return m == null ? Double.NaN : (double) m.free();
        });
        device.gauge(FAULTS, (Gauge<Long>) faults::sum);
    }

    /** The device's memory now, or null where the context can no longer ask (closed, faulted). */
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

    /** Operations completed, normally or not (for tests). */
    long completed() {
        return completed.sum();
    }

    /** Operations failed (for tests). */
    long failed() {
        return failed.sum();
    }

    /** Device memory the context allocated and has not freed (for tests). */
    long allocated() {
        return allocated.sum();
    }

    /** Faults (for tests). */
    long faults() {
        return faults.sum();
    }
}
