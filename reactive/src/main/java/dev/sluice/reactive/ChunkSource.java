package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import java.lang.foreign.MemorySegment;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link GpuPipeline} reads one kind of host chunk: its length in elements and its bytes. Ready-made
 * ones are in {@link Chunks}. Implementations must be stateless and thread-safe.
 *
 * @param <T> the chunk type (an array, a {@code ByteBuffer}, a {@code MemorySegment}, a {@link HostBuffer})
 */
public interface ChunkSource<T> {

    /** Whether chunks of this kind can carry elements of {@code type}. */
    boolean accepts(DType type);

    /**
     * The number of elements of {@code type} in {@code chunk}.
     *
     * @throws dev.sluice.InvalidArgumentException if its size is not a whole number of elements
     */
    long elements(T chunk, DType type);

    /** Copies the chunk's bytes to {@code staging}, whose size is exactly {@code elements(chunk, type) * type.byteSize()}. */
    void copyTo(T chunk, MemorySegment staging);

    /**
     * The chunk's bytes as one segment (a heap array's, a buffer's, native memory), exactly those {@link #copyTo} would
     * copy, or null (the default). With it the pipeline copies a large chunk into staging in pieces, on several copy
     * threads at once, instead of calling {@link #copyTo} on one (a segment of another size fails the chunk with an
     * {@link dev.sluice.InvalidArgumentException} naming {@code source}); the segment must stay valid and unchanged until the
     * chunk's result has been emitted.
     */
    default @Nullable MemorySegment segment(T chunk) {
        return null;
    }

    /**
     * Pinned memory holding the chunk that the pipeline may upload from directly, skipping the copy to its own
     * staging buffer, or null (the default). Used only if the buffer belongs to the pipeline's context and
     * has the pipeline's input element type.
     */
    default @Nullable HostBuffer pinned(T chunk) {
        return null;
    }

    /**
     * Uploads {@code chunk} into {@code in} itself, for a chunk whose bytes lie in several pieces of pinned memory (the
     * validity bitmaps, offsets and values of a record batch's columns) rather than in one ({@link #pinned}): enqueues
     * one copy per piece on {@code stream}, from pinned memory that {@code stream}'s context
     * {@linkplain dev.sluice.DeviceContext#sharesPinnedMemoryWith can use}, into the piece's place in {@code in}, and
     * returns the future of the last operation it enqueued. The pipeline then neither copies the chunk into staging
     * nor uploads it, and the stage runs after those copies in the stream's order. Returns null (the default) having
     * enqueued nothing: the pipeline uploads the chunk from {@link #pinned} or through its staging buffer.
     *
     * <p>Called on the pipeline's enqueue thread, once per chunk, before the stage; it must not block. Decide before
     * enqueuing anything: an exception fails the chunk (and the {@code Flux}) as a bad chunk does. {@code in} is the
     * lane's input buffer, of exactly {@link #elements elements(chunk, type)} elements of the pipeline's input type;
     * parts of it no copy writes hold what an earlier chunk left there. The host memory must stay allocated until the
     * copies have finished (a {@link HostBuffer}'s does, whoever closes it meanwhile) and must not change until the
     * chunk's result has been emitted.
     *
     * @param chunk  the input chunk
     * @param stream the lane's stream
     * @param in     where the chunk goes on the device
     * @return the future of the last operation enqueued on {@code stream}, or null if the pipeline is to upload the chunk
     */
    default @Nullable DeviceFuture<?> enqueueUpload(T chunk, DeviceStream stream, DeviceBuffer in) {
        return null;
    }
}
