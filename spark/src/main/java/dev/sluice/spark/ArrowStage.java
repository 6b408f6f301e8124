package dev.sluice.spark;

import dev.sluice.Kernel;
import dev.sluice.arrow.ArrowPipeline;
import java.io.Serializable;
import java.util.List;

/**
 * The device work of one Arrow batch, for stages that are more than one kernel: enqueues on
 * {@link dev.sluice.reactive.Lane#stream()} the kernels that read the batch's columns ({@code in}) and write the
 * result's ({@code out}), as {@link ArrowPipeline.Stage} does. The columns are in the pipeline's form: a boolean's
 * {@code data()} is a byte a row ({@code U8}; {@code reinterpret(DType.BOOL)} for a {@code bool*} parameter), a date's
 * {@code I32} days, a timestamp's {@code I64} microseconds, a string's or binary's {@code offsets()} ({@code I32}) and
 * {@code data()} ({@code U8}, null in a batch whose values are all empty). Spark ships it with the job, so it is
 * {@link Serializable} (a lambda assigned to this type is); it runs on the executor, on the task's thread or on the
 * device's completion thread, and must only enqueue, never wait.
 */
@FunctionalInterface
public interface ArrowStage extends ArrowPipeline.Stage, Serializable {

    /**
     * The kernels the stage launches, loaded on the task's device before its first batch; the stage takes them with
     * {@link dev.sluice.reactive.Lane#function(Kernel)}. None by default. Called on the executor.
     */
    default List<Kernel> kernels() {
        return List.of();
    }
}
