package dev.sluice.reactive;

import dev.sluice.HostBuffer;

/**
 * Where a {@link GpuPipeline} built with {@link GpuPipeline.Builder#buildInto} downloads each chunk's result:
 * pinned memory the caller owns (typically a slice of one large {@link HostBuffer}), written directly by the
 * device's copy, with no staging buffer and no host copy. The pipeline emits that buffer once the download
 * into it has finished.
 *
 * <pre>{@code
 * HostBuffer out = ctx.allocateHost(DType.F32, chunks * m);   // the caller's, reused run after run
 * GpuPipeline<HostBuffer, HostBuffer> p = GpuPipeline.builder(ctx).lanes(3).chunkElements(m, DType.F32).inPlace()
 *     .stage(...)
 *     .buildInto(Chunks.hostBuffers(), (chunk, seq, n) -> out.slice(seq * m, n));
 * }</pre>
 *
 * <p>Called on the pipeline's enqueue thread (see {@link GpuPipeline}), once per chunk, in input order within
 * one subscription, before anything of the chunk is enqueued; it must not block. Subscriptions may run
 * concurrently, so an implementation shared by several must be thread-safe (a pure function of its
 * arguments, as above, is).
 *
 * <p>The buffer must belong to the pipeline's context (to one of them, for a pipeline over several: the result is
 * downloaded straight into it where the chunk's lane {@linkplain dev.sluice.DeviceContext#sharesPinnedMemoryWith
 * shares pinned memory} with its context, and otherwise by a host copy from the lane's staging buffer), have the
 * pipeline's output type, exactly
 * {@code elements} elements, and be open; otherwise the chunk fails with an
 * {@link dev.sluice.InvalidArgumentException} naming {@code target} (or a
 * {@link dev.sluice.ClosedResourceException}) and nothing of it is enqueued. Host code must not read or
 * write it from this call until the pipeline has emitted it; after a cancellation or an error, downloads
 * already enqueued still land in their targets (see {@link GpuPipeline#released()}). The pipeline never
 * closes it.
 *
 * @param <T> the input chunk type
 */
@FunctionalInterface
public interface ChunkTarget<T> {

    /**
     * The pinned buffer that receives the result of {@code chunk}.
     *
     * @param chunk the input chunk
     * @param sequence the chunk's position in its {@code Flux}, from 0
     * @param elements the number of elements of the pipeline's output type the result has: the buffer's
     *        required {@link HostBuffer#count()}
     */
    HostBuffer bufferFor(T chunk, long sequence, long elements);

    /**
     * The number of elements of the pipeline's output type that {@code chunk}'s result has, where it depends on more
     * than the chunk's length: a chunk that carries several columns of its own sizes (an Arrow record batch) knows its
     * result's size, which the builder's {@code output(type, elementsForInput)} cannot tell from the input's length
     * alone. The pipeline downloads that many elements of the lane's output buffer (the stage sees
     * {@link Lane#outputElements()} of them) and passes the count to {@link #bufferFor}. Called on the pipeline's
     * enqueue thread, once per chunk, just before {@link #bufferFor}; it must not block. Ignored by an in-place
     * pipeline, whose result is its input.
     *
     * @param chunk the input chunk
     * @param sequence the chunk's position in its {@code Flux}, from 0
     * @param elements the count the builder's {@code output(type, elementsForInput)} gives for the chunk's length
     * @return the result's count, 1 to the pipeline's {@link GpuPipeline#outputCapacity()}; the default returns
     *         {@code elements}. Any other count fails the chunk with an {@link dev.sluice.InvalidArgumentException}
     *         naming {@code target}, before anything of it is enqueued.
     */
    default long resultElements(T chunk, long sequence, long elements) {
        return elements;
    }
}
