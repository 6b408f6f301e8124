package dev.sluice.reactive;

import java.lang.foreign.MemorySegment;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ChunkSource} and a {@link ChunkSink} for one chunk type, for pipelines whose input and output are
 * of the same kind ({@code float[]} in, {@code float[]} out).
 *
 * @param <T> the chunk type
 */
public interface ChunkCodec<T> extends ChunkSource<T>, ChunkSink<T> {

    /**
     * The bytes of {@code chunk}, whether it is an input chunk ({@link ChunkSource#segment}) or a result
     * {@link #allocate} made ({@link ChunkSink#segment}); null (the default) if there are none.
     */
    @Override
    default @Nullable MemorySegment segment(T chunk) {
        return null;
    }
}
