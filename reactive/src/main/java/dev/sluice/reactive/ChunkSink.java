package dev.sluice.reactive;

import dev.sluice.DType;
import java.lang.foreign.MemorySegment;

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
     * copy out of it, never keep it.
     */
    R read(MemorySegment result, DType type, long elements);
}
