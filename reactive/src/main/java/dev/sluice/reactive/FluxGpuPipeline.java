package dev.sluice.reactive;

import dev.sluice.ClosedResourceException;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * The operator behind {@link GpuPipeline#process} and {@link GpuPipeline#processUnordered}: each subscription
 * registers with the pipeline (failing at once if it is closed) and runs as a {@link PipelineSubscriber}.
 *
 * <p>How the parts fit: a {@link PipelineSubscriber} runs the drain loop, which owns all lane state; {@link DrainLoop}
 * decides which thread runs it (the signalling one, or a worker of the host scheduler) and fails the subscription if
 * that scheduler goes away. Upstream gets {@code lanes * chunksPerLane} requests up front, and one more per emitted
 * result, so a chunk that arrives always finds a free place ({@link Flight}) in a lane
 * ({@link SubscriptionLanes#freeFlight}). Lanes come from the pipeline's {@link LanePool} (the one kept in that
 * slot, or a new one) and go back to it only after termination, each once no chunk of it is in flight; the pool
 * counts the subscription as ended once all have gone back.
 */
final class FluxGpuPipeline<I, O> extends Flux<O> implements Scannable {

    private final Publisher<? extends I> source;
    private final GpuPipeline<I, O> pipeline;
    private final boolean ordered;

    FluxGpuPipeline(Publisher<? extends I> source, GpuPipeline<I, O> pipeline, boolean ordered) {
        this.source = source;
        this.pipeline = pipeline;
        this.ordered = ordered;
    }

    @Override
    public void subscribe(CoreSubscriber<? super O> actual) {
        LanePool pool = pipeline.lanePool();
        if (!pool.subscriptionStarting()) {
            Operators.error(actual, new ClosedResourceException(pipeline.toString()));
            return;
        }
        PipelineSubscriber<I, O> s;
        try {
            s = new PipelineSubscriber<>(actual, pipeline, ordered);
        } catch (Throwable t) {
            pool.subscriptionEnded();
            Exceptions.throwIfJvmFatal(t);
            Operators.error(actual, Operators.onOperatorError(t, actual.currentContext()));
            return;
        }
        try {
            Flux.<I>from(source).subscribe(s);
        } catch (Throwable t) {
            // A publisher that throws from subscribe (against rule 1.9) left the subscription registered with the
            // pool and never ended: released() never completed. It ends as an upstream error does.
            Exceptions.throwIfJvmFatal(t);
            s.upstreamThrew(Operators.onOperatorError(t, actual.currentContext()));
        }
    }

    @Override
    @SuppressWarnings("rawtypes") // reactor's Scannable declares the key raw
    public @Nullable Object scanUnsafe(Attr key) {
        if (key == Attr.PREFETCH) {
            return pipeline.spec().capacity();
        }
        if (key == Attr.RUN_STYLE) {
            return Attr.RunStyle.ASYNC;
        }
        return null;
    }
}
