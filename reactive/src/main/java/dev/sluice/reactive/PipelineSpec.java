package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.HostBufferPool;
import dev.sluice.StreamOptions;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;

/**
 * The settled options of one {@link GpuPipeline}: what its {@link GpuPipeline.Builder} was told, checked, with the
 * defaults filled in. Lanes and subscriptions read them; they never change.
 *
 * @param contexts       the contexts lanes open on: slot {@code i} on {@code contexts.get(i % contexts.size())}
 * @param lanes          lanes of one subscription over every context ({@code Builder.lanes} times the contexts)
 * @param outputType     the output element type; the input type for an in-place pipeline
 * @param outputCapacity the size of each lane's output buffer: the output elements of a full chunk
 * @param graphReplay    whether each lane enqueues its stage as repeated work ({@link GpuPipeline.Builder#graphReplay})
 * @param elementwiseFusion whether that repeated work fuses element-wise launches
 *                       ({@link GpuPipeline.Builder#elementwiseFusion})
 * @param stagingPool    the caller's pool of staging buffers ({@link GpuPipeline.Builder#stagingPool}), or null
 */
record PipelineSpec(List<DeviceContext> contexts, int lanes, int chunksPerLane, DType inputType, long chunkElements,
        DType outputType, LongUnaryOperator outputElements, long outputCapacity, boolean inPlace, List<Scratch> scratch,
        GpuPipeline.Stage stage, StreamOptions streamOptions, @Nullable Scheduler hostScheduler, boolean keepLanes,
        boolean graphReplay, boolean elementwiseFusion, @Nullable HostBufferPool stagingPool) {

    /** A scratch device buffer each lane allocates ({@link GpuPipeline.Builder#scratch}). */
    record Scratch(DType type, long count) {
    }

    /** The context of the pipeline's first lane: the only one, unless it was built over several. */
    DeviceContext context() {
        return contexts.get(0);
    }

    /** The context lane slot {@code slot} opens on. */
    DeviceContext contextFor(int slot) {
        return contexts.get(slot % contexts.size());
    }

    /** The most chunks one subscription holds at once: its lanes' places, and the chunks it requests ahead. */
    int capacity() {
        return lanes * chunksPerLane;
    }
}
