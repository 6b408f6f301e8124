package dev.sluice.flink;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.OperationKind;
import dev.sluice.TraceSpan;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.jspecify.annotations.Nullable;

/**
 * One subtask's metrics, in the group {@code sluice}, {@code device} = the device's name ({@code cuda:0}) of its
 * operator's metric group, named in camelCase as Flink names its own: elements in flight, completed and failed, the
 * elements' latency, and the bytes its lanes' copies moved by direction ({@code laneCopyBytes} in the group
 * {@code direction} = {@code upload} or {@code download}), and beside them the figures of its shared context
 * ({@link ContextMetrics}, named after {@link dev.sluice.DeviceFigure}).
 *
 * <p>The bytes come from a {@link DeviceListener} on the shared context that keeps the operations of this subtask's lane
 * streams: a {@link GpuStage} enqueues its copies on {@link GpuLane#stream()} itself, so no code of this module sees a
 * custom stage's copies, while the context reports every one, with its size, as it completes. The element counts and
 * latency come from the function, which alone knows where an element starts and ends.
 */
final class StageMetrics implements DeviceListener {

    /** Gauge: elements on the subtask's lanes now. */
    static final String IN_FLIGHT = "elementsInFlight";
    /** Counter: elements whose result was emitted. */
    static final String COMPLETED = "elementsCompleted";
    /** Counter: elements that failed (the stage threw or its future failed, or they timed out). */
    static final String FAILED = "elementsFailed";
    /** Histogram, microseconds: from an element's arrival at the function to its result, of completed elements. */
    static final String LATENCY = "elementLatency";
    /** Counter, bytes: of the lanes' copies that completed, in the group {@code direction} = upload or download. */
    static final String COPY_BYTES = "laneCopyBytes";
    /** The group of every metric of Sluice in an operator's group. */
    static final String GROUP = "sluice";

    private final Counter completed = new AdderCounter();
    private final Counter failed = new AdderCounter();
    private final Counter uploaded = new AdderCounter();
    private final Counter downloaded = new AdderCounter();
    private final LatencyHistogram latency = new LatencyHistogram();
    /** The subtask's lane streams: at most a handful, so a scan by identity beats a hash lookup. */
    private final DeviceStream[] streams;
    private final DeviceListener.Registration registration;

    /**
     * Registers the subtask's metrics in {@code operator}'s group {@code sluice}, {@code device} = {@code deviceName}, and a listener on
     * {@code context} for the copies on {@code laneStreams}.
     */
    StageMetrics(MetricGroup operator, String deviceName, IntSupplier inFlight, DeviceContext context,
            ContextMetrics contextMetrics, List<DeviceStream> laneStreams) {
        this.streams = laneStreams.toArray(DeviceStream[]::new);
        MetricGroup device = operator.addGroup(GROUP).addGroup("device", deviceName);
        device.gauge(IN_FLIGHT, (Gauge<Integer>) inFlight::getAsInt);
        device.counter(COMPLETED, completed);
        device.counter(FAILED, failed);
        device.histogram(LATENCY, latency);
        device.addGroup("direction", TraceSpan.UPLOAD).counter(COPY_BYTES, uploaded);
        device.addGroup("direction", TraceSpan.DOWNLOAD).counter(COPY_BYTES, downloaded);
        contextMetrics.register(device);
        this.registration = context.addListener(this);
    }

    /** An element completed {@code nanos} after it arrived. */
    void completed(long nanos) {
        latency.update(TimeUnit.NANOSECONDS.toMicros(nanos));
        completed.inc();
    }

    /** An element failed. */
    void failed() {
        failed.inc();
    }

    /** On the context's completion thread: counts a successful copy of one of the subtask's lanes. */
    @Override
    public void operationCompleted(DeviceStream stream, OperationKind kind, long bytes, long latencyNanos,
            @Nullable Throwable failure) {
        if (failure != null || bytes == 0) {
            return;
        }
        boolean upload = kind == OperationKind.UPLOAD;
        if (!upload && kind != OperationKind.DOWNLOAD) {
            return;
        }
        for (DeviceStream s : streams) {
            if (s == stream) {
                (upload ? uploaded : downloaded).inc(bytes);
                return;
            }
        }
    }

    /** Stops listening to the context; after the lanes closed, so that their last copies are counted. */
    void close() {
        registration.close();
    }

    /**
     * A counter several threads add to (the completion threads, the stage's): Flink's {@code SimpleCounter} is not
     * thread-safe and its {@code ThreadSafeSimpleCounter} is internal.
     */
    private static final class AdderCounter implements Counter {
        private final LongAdder count = new LongAdder();

        @Override
        public void inc() {
            count.increment();
        }

        @Override
        public void inc(long n) {
            count.add(n);
        }

        @Override
        public void dec() {
            count.decrement();
        }

        @Override
        public void dec(long n) {
            count.add(-n);
        }

        @Override
        public long getCount() {
            return count.sum();
        }
    }
}
