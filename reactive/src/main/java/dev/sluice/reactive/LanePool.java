package dev.sluice.reactive;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Schedulers;

/**
 * The lanes of one {@link GpuPipeline} between subscriptions, and the pipeline's end: keeps at most one idle lane per
 * slot for the next subscription, counts the lanes not yet released and the subscriptions still running, and, once
 * the pipeline is closed and all of them are gone, closes the declared kernels' functions and completes
 * {@link #released()}.
 */
final class LanePool {

    /** Where lanes' streams are closed: {@link dev.sluice.DeviceStream#close()} waits for the stream. */
    static final Executor CLOSER = r -> Schedulers.boundedElastic().schedule(r);

    private final GpuPipeline<?, ?> pipeline;
    private final boolean keepLanes;
    private final PipelineKernels kernels;
    /** Idle lanes kept for the next subscription, by slot ({@link Lane#index()}). */
    private final AtomicReferenceArray<@Nullable Lane> idle;
    private volatile boolean closed;
    /** Lanes opened and not yet fully released (stream closed). */
    private final AtomicInteger liveLanes = new AtomicInteger();
    /** Subscriptions started and not yet ended with all their lanes handed back. */
    private final AtomicInteger activeSubscriptions = new AtomicInteger();
    private final CompletableFuture<Void> released = new CompletableFuture<>();

    LanePool(GpuPipeline<?, ?> pipeline, PipelineSpec spec, PipelineKernels kernels) {
        this.pipeline = pipeline;
        this.keepLanes = spec.keepLanes();
        this.kernels = kernels;
        this.idle = new AtomicReferenceArray<>(spec.lanes());
    }

    /** Releases the idle lanes now; those of running subscriptions are released as they come back. Idempotent. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = 0; i < idle.length(); i++) {
            Lane l = idle.getAndSet(i, null);
            if (l != null) {
                l.release(CLOSER);
            }
        }
        checkReleased();
    }

    boolean isClosed() {
        return closed;
    }

    /** Completes once the pipeline is closed and every subscription and lane is gone; never exceptionally. */
    CompletableFuture<Void> released() {
        return released;
    }

    /** Registers a subscription; false if the pipeline is closed (nothing registered then). */
    boolean subscriptionStarting() {
        activeSubscriptions.incrementAndGet();
        if (closed) {
            subscriptionEnded();
            return false;
        }
        return true;
    }

    /** A subscription has terminated and handed back every lane it had. */
    void subscriptionEnded() {
        activeSubscriptions.decrementAndGet();
        checkReleased();
    }

    /** The idle lane of slot {@code slot}, or a new one. */
    Lane acquire(int slot) {
        Lane l = idle.getAndSet(slot, null);
        if (l != null && (l.context().isClosed() || l.context().isFaulted())) {
            // Kept before its context went: released, not reused (its first chunk failed naming a staging buffer the
            // caller never saw); opening a new one reports the context itself.
            l.release(CLOSER);
            l = null;
        }
        if (l != null) {
            pipeline.metrics.lanesReused.increment();
            return l;
        }
        return Lane.open(pipeline, slot);
    }

    /**
     * Takes back a lane whose work is done (no chunk in flight, no result held): kept in its slot for the next
     * subscription, or released if it is not {@code reusable}, lanes are not kept, the pipeline is closed or the
     * slot is taken.
     */
    void recycle(Lane lane, boolean reusable) {
        if (!reusable || !keepLanes || closed || lane.context().isFaulted() || !idle.compareAndSet(lane.index(), null, lane)) {
            lane.release(CLOSER);
            return;
        }
        if (closed && idle.compareAndSet(lane.index(), lane, null)) {
            lane.release(CLOSER); // close() ran meanwhile and missed it
        }
    }

    /** A lane is being opened: counted until {@link #laneGone()}. */
    void laneOpening() {
        liveLanes.incrementAndGet();
    }

    /** A lane's stream has been closed after its buffers were released (or its opening failed). */
    void laneGone() {
        liveLanes.decrementAndGet();
        checkReleased();
    }

    private void checkReleased() {
        if (closed && activeSubscriptions.get() == 0 && liveLanes.get() == 0 && !released.isDone()) {
            StagingPools pools = pipeline.stagingPools();
            if (kernels.isEmpty() && !pools.hasOwn()) {
                released.complete(null);
                return;
            }
            // Every lane's stream is closed and its staging given back, so no launch of these functions and no copy
            // of that memory is pending; unloading and freeing pinned memory may wait for the driver, so not on the
            // caller's (possibly a completion) thread.
            CLOSER.execute(() -> {
                try {
                    pools.close();
                    kernels.close();
                } finally {
                    released.complete(null);
                }
            });
        }
    }
}
