package dev.sluice.flink;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One lane of a {@link SluiceAsyncFunction}'s subtask: a stream of its own and the pinned staging and device buffers
 * its elements reuse, one element at a time. A subtask has as many lanes as elements it runs on the device at once;
 * elements on different lanes overlap (one's upload with another's kernel and a third's download).
 *
 * <p>A {@link GpuStage} has the lane from its call until the future it returned completes; it must not keep it
 * afterwards. Not thread-safe: the stage uses it while enqueuing.
 */
public final class GpuLane {

    private final int index;
    private final DeviceStream stream;
    private final Function<Kernel, DeviceFunction> functions;
    private final List<@Nullable HostBuffer> staging = new ArrayList<>(2);
    private final List<@Nullable DeviceBuffer> device = new ArrayList<>(2);
    /** Set by {@link #close()}; the buffers are made and closed under this lane's monitor. */
    private boolean closed;

    GpuLane(int index, DeviceStream stream, Function<Kernel, DeviceFunction> functions) {
        this.index = index;
        this.stream = stream;
        this.functions = functions;
    }

    /** The lane's stream: enqueue the element's work here, so that it runs in order with the lane's buffers' reuse. */
    public DeviceStream stream() {
        return stream;
    }

    /** The context of the lane's stream: the TaskManager's shared context of the subtask's device (do not close it). */
    public DeviceContext context() {
        return stream.context();
    }

    /** The lane's number within its subtask, 0 to lanes - 1. */
    public int index() {
        return index;
    }

    /** The device's name as the logs and the metric tag give it, as "cpu:1" or "cuda:0". */
    public String deviceName() {
        return context().backendName() + ":" + context().id();
    }

    /**
     * The function of {@code kernel} on the lane's context, compiled once per subtask (when the function opened, for
     * the stage's {@link GpuStage#kernels()}); owned by the function (do not close it).
     */
    public DeviceFunction function(Kernel kernel) {
        if (kernel == null) {
            throw new InvalidArgumentException("kernel", "null");
        }
        return functions.apply(kernel);
    }

    /**
     * Pinned host buffer number {@code slot} of the lane: {@code count} elements of {@code type}, reused element after
     * element (a larger one replaces it when an element needs more). Its contents are the previous element's.
     *
     * @throws InvalidArgumentException naming {@code slot} if negative, {@code type} if null, {@code count} if not
     *                                  positive
     */
    public synchronized HostBuffer staging(int slot, DType type, long count) {
        check(slot, type, count);
        checkOpen();
        while (staging.size() <= slot) {
            staging.add(null);
        }
        HostBuffer h = staging.get(slot);
        if (h == null || h.dtype() != type || h.count() < count) {
            if (h != null) {
                h.close(); // frees once the copies of the previous element that used it have finished
            }
            h = context().allocateHost(type, count);
            staging.set(slot, h);
        }
        return h.count() == count ? h : h.slice(0, count);
    }

    /**
     * Device buffer number {@code slot} of the lane: {@code count} elements of {@code type}, allocated on the lane's
     * stream and reused element after element (the stream's order keeps one element's use after the previous one's).
     *
     * @throws InvalidArgumentException as {@link #staging}
     */
    public synchronized DeviceBuffer deviceBuffer(int slot, DType type, long count) {
        check(slot, type, count);
        checkOpen();
        while (device.size() <= slot) {
            device.add(null);
        }
        DeviceBuffer b = device.get(slot);
        if (b == null || b.dtype() != type || b.count() < count) {
            if (b != null) {
                stream.enqueueFree(b);
            }
            b = stream.enqueueAllocate(type, count);
            device.set(slot, b);
        }
        return b.count() == count ? b : b.slice(0, count);
    }

    /** A stage started just before its function closed must not make buffers that nothing would free. */
    private void checkOpen() {
        if (closed) {
            throw new dev.sluice.ClosedResourceException(this + " (its function has closed)");
        }
    }

    private static void check(int slot, DType type, long count) {
        if (slot < 0) {
            throw new InvalidArgumentException("slot", "value " + slot + " must not be negative");
        }
        if (type == null) {
            throw new InvalidArgumentException("type", "null");
        }
        if (count < 1) {
            throw new InvalidArgumentException("count", "value " + count + " must be at least 1");
        }
    }

    /**
     * Frees the lane's buffers in its stream's order, then closes the stream (waiting for its work) and the pinned
     * buffers. On the task thread, when the function closes.
     */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException first = null;
        for (DeviceBuffer b : device) {
            if (b != null) {
                try {
                    stream.enqueueFree(b);
                } catch (RuntimeException e) {
                    b.close(); // a faulted or closed context: the memory went with the device
                }
            }
        }
        try {
            stream.close();
        } catch (RuntimeException e) {
            first = e;
        }
        for (HostBuffer h : staging) {
            if (h != null) {
                h.close();
            }
        }
        device.clear();
        staging.clear();
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "GpuLane[" + index + ", " + stream + "]";
    }
}
