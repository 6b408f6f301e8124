package dev.sluice.reactive;

/**
 * A {@link ChunkSource} and a {@link ChunkSink} for one chunk type, for pipelines whose input and output are
 * of the same kind ({@code float[]} in, {@code float[]} out).
 *
 * @param <T> the chunk type
 */
public interface ChunkCodec<T> extends ChunkSource<T>, ChunkSink<T> {
}
