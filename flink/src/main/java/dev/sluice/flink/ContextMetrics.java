package dev.sluice.flink;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceFigure;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.MemoryInfo;
import dev.sluice.OperationKind;
import dev.sluice.TraceSpan;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.jspecify.annotations.Nullable;

/**
 * The figures of one shared device context, every one of {@link DeviceFigure} and no other, kept by a
 * {@link DeviceListener} that {@link SharedContexts} adds when it opens the context, and shown in the group of the
 * subtask's device ({@code sluice}, {@code device} = {@code cuda:0}) under their {@link DeviceFigure#groupName()}
 * ({@code operationsFailed}): counters and gauges as Flink gauges, {@code copyBytes} in a group {@code direction} per
 * direction, and the timers ({@code operationLatency}, {@code kernelCompilations}) as histograms of nanoseconds over the
 * latest {@value LatencyHistogram#WINDOW} operations of the context.
 *
 * <p>Flink gives a function its operator's metric group only (the TaskManager's group is not reachable from user code),
 * so each subtask registers the gauges of its context again: subtasks that share a device report the same values, which
 * are the context's, not the subtask's. The counts are the context's since it opened, of every subtask and job that used
 * it.
 */
final class ContextMetrics implements DeviceListener {

    /** The directions of {@link DeviceFigure#COPY_BYTES}, as {@code sluice-micrometer} tags them. */
    static final List<String> DIRECTIONS = List.of(TraceSpan.UPLOAD, TraceSpan.DOWNLOAD, TraceSpan.DEVICE_TO_DEVICE,
            TraceSpan.PEER);

    private final DeviceContext context;
    private final LongAdder enqueued = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder allocated = new LongAdder();
    private final LongAdder allocations = new LongAdder();
    private final LongAdder frees = new LongAdder();
    private final LongAdder faults = new LongAdder();
    private final LongAdder[] copyBytes = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()};
    private final LatencyHistogram latency = new LatencyHistogram();
    private final LatencyHistogram compilations = new LatencyHistogram();

    ContextMetrics(DeviceContext context) {
        this.context = context;
    }

    /**
     * Registers every figure of the context in {@code device}, a subtask's group of its device. The switch has no
     * default, so a figure added to the table does not compile here until it is reported.
     */
    void register(MetricGroup device) {
        for (DeviceFigure figure : DeviceFigure.values()) {
            String name = figure.groupName();
            switch (figure) {
                case OPERATIONS_ENQUEUED -> device.gauge(name, (Gauge<Long>) enqueued::sum);
                case OPERATIONS_COMPLETED -> device.gauge(name, (Gauge<Long>) completed::sum);
                case OPERATIONS_FAILED -> device.gauge(name, (Gauge<Long>) failed::sum);
                // Completed first: an operation completing between the two reads is then counted in flight, never below 0.
                case OPERATIONS_IN_FLIGHT -> device.gauge(name, (Gauge<Long>) () -> {
                    long done = completed.sum();
                    return Math.max(0, enqueued.sum() - done);
                });
                case OPERATION_LATENCY -> device.histogram(name, latency);
                case COPY_BYTES -> {
                    for (int d = 0; d < DIRECTIONS.size(); d++) {
                        device.addGroup("direction", DIRECTIONS.get(d)).gauge(name, (Gauge<Long>) copyBytes[d]::sum);
                    }
                }
                case MEMORY_ALLOCATED -> device.gauge(name, (Gauge<Long>) allocated::sum);
                case MEMORY_ALLOCATIONS -> device.gauge(name, (Gauge<Long>) allocations::sum);
                case MEMORY_FREES -> device.gauge(name, (Gauge<Long>) frees::sum);
                case MEMORY_DEVICE_USED -> device.gauge(name, (Gauge<Double>) () -> {
                    MemoryInfo m = memoryInfo();
                    return m == null ? Double.NaN : (double) (m.total() - m.free());
                });
                case MEMORY_DEVICE_FREE -> device.gauge(name, (Gauge<Double>) () -> {
                    MemoryInfo m = memoryInfo();
                    return m == null ? Double.NaN : (double) m.free();
                });
                case KERNEL_COMPILATIONS -> device.histogram(name, compilations);
                case FAULTS -> device.gauge(name, (Gauge<Long>) faults::sum);
            }
        }
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
