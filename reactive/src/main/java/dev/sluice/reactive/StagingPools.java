package dev.sluice.reactive;

import dev.sluice.DeviceContext;
import dev.sluice.HostBufferPool;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The pools a {@link GpuPipeline}'s lanes take their staging buffers from: the caller's
 * ({@link GpuPipeline.Builder#stagingPool}) for a lane whose context can use its memory, else one of the pipeline's own
 * per context, made on first need and closed once the pipeline is released. Thread-safe.
 */
final class StagingPools {

    private final PipelineSpec spec;
    private final Map<DeviceContext, HostBufferPool> own = new IdentityHashMap<>();
    private boolean closed;

    StagingPools(PipelineSpec spec) {
        this.spec = spec;
    }

    /** The pool for a lane on {@code context}. */
    HostBufferPool poolFor(DeviceContext context) {
        HostBufferPool shared = spec.stagingPool();
        if (shared != null && context.sharesPinnedMemoryWith(shared.context())) {
            return shared;
        }
        HostBufferPool p;
        synchronized (this) {
            p = own.get(context);
            if (p == null) {
                p = HostBufferPool.of(context, limitFor(context));
                own.put(context, p);
                if (closed) {
                    p.close(); // a lane opening as the pipeline is released: its buffers are freed when given back
                }
            }
        }
        return p;
    }

    /**
     * The staging the pipeline's lanes on {@code context} hold at once, at most: an input and an output buffer per
     * place in each lane, each of its size class. The pool keeps no more, so the pipeline never pins more than it did.
     */
    private long limitFor(DeviceContext context) {
        int contexts = spec.contexts().size();
        int lanesHere = 0;
        for (int slot = 0; slot < spec.lanes(); slot++) {
            if (spec.contextFor(slot) == context) {
                lanesHere++;
            }
        }
        long in = HostBufferPool.sizeClass(spec.chunkElements() * spec.inputType().byteSize());
        long out = HostBufferPool.sizeClass(spec.outputCapacity() * spec.outputType().byteSize());
        try {
            return Math.multiplyExact((long) Math.max(lanesHere, spec.lanes() / contexts) * spec.chunksPerLane(),
                    Math.addExact(in, out));
        } catch (ArithmeticException tooLarge) {
            // Chunks too large for any pinned allocation: their lane fails at its first allocation, naming it; a limit
            // that overflowed to a negative value failed earlier, naming a limit the caller never gave.
            return Long.MAX_VALUE;
        }
    }

    /** Closes the pipeline's own pools (the caller's stays open); those made afterwards are closed at once. */
    void close() {
        List<HostBufferPool> pools;
        synchronized (this) {
            closed = true;
            pools = new ArrayList<>(own.values());
        }
        pools.forEach(HostBufferPool::close);
    }

    /** Whether the pipeline made a pool of its own. */
    synchronized boolean hasOwn() {
        return !own.isEmpty();
    }

    /** The pipeline's own pool of {@code context}, or null if none was made (tests). */
    synchronized @Nullable HostBufferPool ownPool(DeviceContext context) {
        return own.get(context);
    }
}
