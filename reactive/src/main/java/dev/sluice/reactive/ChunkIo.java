package dev.sluice.reactive;

import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The host ends of a {@link GpuPipeline}: how a chunk is read ({@link ChunkSource}) and sized, how large its result
 * is, and where that result goes (made by a {@link ChunkSink}, or downloaded into the buffer a {@link ChunkTarget}
 * gives), with the checks each chunk and each target buffer pass before anything of the chunk is enqueued.
 *
 * @param <I> the input chunk type
 * @param <O> the emitted result type
 */
final class ChunkIo<I, O> {

    private final PipelineSpec spec;
    private final ChunkSource<I> source;
    /** Exactly one of sink and target is set. */
    private final @Nullable ChunkSink<O> sink;
    private final @Nullable ChunkTarget<? super I> target;

    private ChunkIo(PipelineSpec spec, ChunkSource<I> source, @Nullable ChunkSink<O> sink,
            @Nullable ChunkTarget<? super I> target) {
        this.spec = spec;
        this.source = source;
        this.sink = sink;
        this.target = target;
    }

    /** Results read out of staging by {@code sink}. */
    static <I, O> ChunkIo<I, O> toSink(PipelineSpec spec, ChunkSource<I> source, ChunkSink<O> sink) {
        return new ChunkIo<>(spec, source, sink, null);
    }

    /** Results downloaded into the buffers {@code target} gives, and emitted as those buffers. */
    static <I> ChunkIo<I, HostBuffer> intoTarget(PipelineSpec spec, ChunkSource<I> source, ChunkTarget<? super I> target) {
        return new ChunkIo<>(spec, source, null, target);
    }

    ChunkSource<I> source() {
        return source;
    }

    /** The sink of the results; null for a pipeline whose results go into {@link ChunkTarget} buffers. */
    @Nullable ChunkSink<O> sink() {
        return sink;
    }

    /** Whether results go into {@link ChunkTarget} buffers. */
    boolean hasTarget() {
        return target != null;
    }

    /** The input elements of chunk {@code seq}, checked against the lanes' input buffers. */
    long elements(I chunk, long seq) {
        DType type = spec.inputType();
        long n = source.elements(chunk, type);
        if (n < 1 || n > spec.chunkElements()) {
            throw new InvalidArgumentException("chunk", "chunk " + seq + " has " + n + " elements of " + type
                    + ", outside 1 to the pipeline's chunkElements " + spec.chunkElements());
        }
        return n;
    }

    /**
     * Output elements for chunk {@code seq} of {@code n} input elements, checked against the lane's buffer: the builder's
     * count, or the one the {@link ChunkTarget} gives for the chunk ({@link ChunkTarget#resultElements}).
     */
    long outputElements(I chunk, long seq, long n) {
        if (spec.inPlace()) {
            return n;
        }
        long capacity = spec.outputCapacity();
        long m = spec.outputElements().applyAsLong(n);
        if (m < 1 || m > capacity) {
            throw new InvalidArgumentException("outputElements", "a chunk of " + n + " elements asks for " + m
                    + " output elements, outside 1 to the output capacity " + capacity);
        }
        ChunkTarget<? super I> t = target;
        if (t != null) {
            long r = t.resultElements(chunk, seq, m);
            if (r < 1 || r > capacity) {
                throw new InvalidArgumentException("target", "the ChunkTarget gives chunk " + seq + " a result of " + r
                        + " elements, outside 1 to the output capacity " + capacity);
            }
            return r;
        }
        return m;
    }

    /** The buffer chunk {@code seq}'s result is downloaded into, checked; null without a {@link ChunkTarget}. */
    @Nullable HostBuffer targetFor(I chunk, long seq, long outN) {
        ChunkTarget<? super I> t = target;
        if (t == null) {
            return null;
        }
        HostBuffer b = t.bufferFor(chunk, seq, outN);
        if (b == null) {
            throw new InvalidArgumentException("target", "the ChunkTarget gave null for chunk " + seq);
        }
        if (b.isClosed()) {
            throw new ClosedResourceException("target " + b + " of chunk " + seq);
        }
        List<DeviceContext> contexts = spec.contexts();
        if (!contexts.contains(b.context())) {
            throw new InvalidArgumentException("target", "the buffer for chunk " + seq + " belongs to " + b.context()
                    + ", not to " + (contexts.size() == 1 ? "the pipeline's context " + spec.context()
                            : "one of the pipeline's contexts " + contexts));
        }
        DType outputType = spec.outputType();
        if (b.dtype() != outputType || b.count() != outN) {
            throw new InvalidArgumentException("target", "the buffer for chunk " + seq + " holds " + b.count() + " x "
                    + b.dtype() + "; its result is " + outN + " x " + outputType);
        }
        return b;
    }
}
