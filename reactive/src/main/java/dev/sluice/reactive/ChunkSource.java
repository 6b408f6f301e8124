package dev.sluice.reactive;

import dev.sluice.DType;
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
     * Pinned memory holding the chunk that the pipeline may upload from directly, skipping the copy to its own
     * staging buffer, or null (the default). Used only if the buffer belongs to the pipeline's context and
     * has the pipeline's input element type.
     */
    default @Nullable HostBuffer pinned(T chunk) {
        return null;
    }
}
