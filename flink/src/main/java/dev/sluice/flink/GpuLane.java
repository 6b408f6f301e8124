package dev.sluice.flink;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.reactive.DeviceLane;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One lane of a {@link SluiceAsyncFunction}'s subtask: a stream of its own and the pinned staging and device buffers
 * its elements reuse, one element at a time. A subtask has as many lanes as elements it runs on the device at once;
 * elements on different lanes overlap (one's upload with another's kernel and a third's download).
 *
 * <p>The stage's view of a {@link DeviceLane}, the lane type the reactive {@code GpuPipeline} runs on too: staging
 * buffers come from the pool of the TaskManager's shared context ({@link #pool()}), {@link #fill} copies a large element
 * into staging on several copy threads instead of the task thread, and {@link #repeat} enqueues the element's device
 * work as one replayed graph, fusing element-wise launches.
 *
 * <p>A {@link GpuStage} has the lane from its call until the future it returned completes; it must not keep it
 * afterwards. The stage uses it while enqueuing, from one thread at a time.
 */
public final class GpuLane {

    private final DeviceLane lane;
    private final Function<Kernel, DeviceFunction> functions;

    GpuLane(DeviceLane lane, Function<Kernel, DeviceFunction> functions) {
        this.lane = lane;
        this.functions = functions;
    }

    /** The lane's stream: enqueue the element's work here, so that it runs in order with the lane's buffers' reuse. */
    public DeviceStream stream() {
        return lane.stream();
    }

    /** The context of the lane's stream: the TaskManager's shared context of the subtask's device (do not close it). */
    public DeviceContext context() {
        return lane.context();
    }

    /** The lane's number within its subtask, 0 to lanes - 1. */
    public int index() {
        return lane.index();
    }

    /** The device's name as the logs and the metric tag give it, as "cpu:1" or "cuda:0". */
    public String deviceName() {
        return context().backendName() + ":" + context().id();
    }

    /**
     * The pool of pinned buffers the lane's staging comes from: the TaskManager's, one per device, shared by every
     * subtask on it; a stage may take buffers of its own from it (and give them back). Do not close it.
     */
    public HostBufferPool pool() {
        return lane.pool();
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
     * @throws InvalidArgumentException naming {@code slot} if outside 0 to {@value DeviceLane#MAX_SLOT}, {@code type}
     *                                  if null, {@code count} if not positive
     * @throws dev.sluice.ClosedResourceException once the function has closed
     */
    public HostBuffer staging(int slot, DType type, long count) {
        return lane.staging(slot, type, count);
    }

    /**
     * Device buffer number {@code slot} of the lane: {@code count} elements of {@code type}, allocated on the lane's
     * stream and reused element after element (the stream's order keeps one element's use after the previous one's).
     *
     * @throws InvalidArgumentException as {@link #staging}
     * @throws dev.sluice.ClosedResourceException once the function has closed
     */
    public DeviceBuffer deviceBuffer(int slot, DType type, long count) {
        return lane.deviceBuffer(slot, type, count);
    }

    /**
     * Copies {@code source} (an element's array, {@code MemorySegment.ofArray(floats)}) into {@code target}, a staging
     * buffer of this lane, and holds the lane's stream until the copy has finished: a large copy runs on several copy
     * threads at once, not on the task thread. See {@link DeviceLane#fill} for the contract (ordering, completion
     * thread, cancellation, resources).
     *
     * @return completes once every byte is copied; exceptionally if the copy failed, which then fails the element
     */
    public CompletableFuture<Void> fill(HostBuffer target, MemorySegment source) {
        return lane.fill(target, source);
    }

    /**
     * Runs {@code body} with the lane's stream and returns what it returns, recorded and replayed as one graph launch
     * (with element-wise launches fused) where the body's work allows it, else enqueued plainly: see
     * {@link DeviceLane#repeat} and {@link dev.sluice.RepeatedWork}.
     *
     * @throws InvalidArgumentException naming {@code body} if null
     */
    public <T> T repeat(Function<? super DeviceStream, T> body) {
        return lane.repeat(body);
    }

    /**
     * Frees the lane's buffers in its stream's order, then closes the stream (waiting for its work) and gives the pinned
     * buffers back to the pool. On the task thread, when the function closes. Idempotent.
     */
    void close() {
        lane.close();
    }

    @Override
    public String toString() {
        return "GpuLane[" + lane.index() + ", " + lane.stream() + "]";
    }
}
