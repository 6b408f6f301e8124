package dev.sluice.reactive;

import dev.sluice.DType;
import java.lang.foreign.MemorySegment;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link GpuPipeline} turns one downloaded result into the value it emits: the result is downloaded
 * into the lane's pinned staging buffer and the sink copies it out. Ready-made ones are in {@link Chunks}.
 * Implementations must be stateless and thread-safe. To skip that host copy, have the device download each
 * result straight into pinned memory of your own: {@link GpuPipeline.Builder#buildInto} with a
 * {@link ChunkTarget}.
 *
 * @param <R> the emitted type
 */
public interface ChunkSink<R> {

    /** Whether results of element type {@code type} can be turned into an {@code R}. */
    boolean accepts(DType type);

    /**
     * A new {@code R} holding the {@code elements} elements of {@code type} in {@code result}. {@code result}
     * is the pipeline's pinned staging memory, valid only during the call and reused for a later chunk:
     * copy out of it, never keep it. Never null: a null result fails the chunk, and the {@code Flux}, with an
     * {@link dev.sluice.InvalidArgumentException} naming {@code sink}, as an exception thrown here does.
     */
    R read(MemorySegment result, DType type, long elements);

    /**
     * A new {@code R} for {@code elements} elements of {@code type} whose bytes {@link #segment} gives, for the pipeline
     * to fill in pieces on several copy threads at once instead of calling {@link #read} on one; or null (the default):
     * results are read with {@link #read}. What the pipeline emits is this object once filled, as {@link #read} would
     * have made it. Called for results of {@code sluice.pipeline.parallelCopyBytes} or more (as {@link #read} is then
     * called on a host copy thread), on one of the pipeline's result threads ({@code sluice-host-result-*}: a large Java
     * array is zeroed by the thread that allocates it, the completion thread serves every lane, and the copy threads copy
     * the chunks meanwhile), as soon as the chunk's work is enqueued, so that it runs while the device works; a chunk that
     * fails or is cancelled drops the object unfilled. An exception thrown here fails the chunk, as
     * one from {@link #read} does.
     */
    default @Nullable R allocate(DType type, long elements) {
        return null;
    }

    /**
     * The bytes of a result {@link #allocate} made, exactly its size (another size fails the chunk with an
     * {@link dev.sluice.InvalidArgumentException} naming {@code sink}); null (the default) if there are none.
     */
    default @Nullable MemorySegment segment(R result) {
        return null;
    }
}
