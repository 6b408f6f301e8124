package dev.sluice.flink;

import dev.sluice.DeviceContext;
import dev.sluice.Kernel;
import java.io.Serializable;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The device work of one element: enqueues it on {@code lane}'s stream and returns a future of the element's result.
 * Flink serializes it with the job, so it must be {@link Serializable} (a lambda assigned to this type is).
 *
 * <p>Called on Flink's task thread or, for an element that waited for a lane, on another thread; it must not block.
 * The lane is the element's alone until the returned future completes: complete it only once the device work that
 * uses the lane's buffers has finished (the future of the element's last copy, or one derived from it, does).
 *
 * @param <IN>  the element type
 * @param <OUT> the result type
 */
@FunctionalInterface
public interface GpuStage<IN, OUT> extends Serializable {

    /**
     * Enqueues the device work of {@code in} on {@code lane} and returns the future of its result.
     *
     * @throws Exception anything the stage throws fails this element only (its {@code ResultFuture}), with a
     *                   {@link GpuStageException} naming the element and the device
     */
    CompletableFuture<OUT> apply(GpuLane lane, IN in) throws Exception;

    /**
     * The kernels this stage launches, compiled on the subtask's device when the function opens (so that no element
     * waits for a compilation) and handed out by {@link GpuLane#function}. None by default: {@link GpuLane#function}
     * then compiles a kernel on its first use.
     */
    default List<Kernel> kernels() {
        return List.of();
    }

    /**
     * Opens what this stage keeps per subtask on {@code context}, the subtask's device (an Arrow allocator of its pinned
     * memory, say): called once when the function opens, before any element, on Flink's task thread. Each subtask has
     * its own copy of the stage (Flink deserializes the function per subtask). Nothing by default.
     *
     * @param context the subtask's shared context; do not close it
     */
    default void open(DeviceContext context) {
    }

    /**
     * Closes what {@link #open} opened: called once when the function closes, after its lanes have closed (their
     * streams' work has ended, so no element's device work is left), before the subtask lets go of its context; only if
     * {@link #open} returned. An exception fails the function's close. Nothing by default.
     */
    default void close() {
    }
}
