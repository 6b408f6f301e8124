package dev.sluice.reactive;

import dev.sluice.InvalidArgumentException;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Operators;
import reactor.util.concurrent.Queues;
import reactor.util.context.Context;

/**
 * One subscription to a {@link GpuPipeline}'s {@code Flux}: the drain loop that owns all its lane state. Each pass
 * starts uploads for chunks that arrived, emits finished results while there is demand (in input order, or as they
 * finish), requests one chunk from upstream per result emitted, and terminates: on completion once every chunk is
 * emitted, on a failure once every chunk in flight is off the device, on a cancel at once. Every event (a chunk, a
 * completion, a request, a cancel) only records itself and calls {@link #drain()}; {@link DrainLoop} decides which
 * thread runs the passes. After termination, each lane goes back to the pipeline once no chunk of it is in flight
 * ({@link SubscriptionLanes#handBackIdle}), and the subscription counts as ended once all have.
 */
final class PipelineSubscriber<I, O> implements CoreSubscriber<I>, Subscription, Scannable {

    private static final System.Logger LOG = System.getLogger(PipelineSubscriber.class.getName());

    @SuppressWarnings("rawtypes")
    private static final AtomicLongFieldUpdater<PipelineSubscriber> REQUESTED =
            AtomicLongFieldUpdater.newUpdater(PipelineSubscriber.class, "requested");

    private final CoreSubscriber<? super O> actual;
    private final GpuPipeline<I, O> pipeline;
    private final boolean ordered;
    private final int capacity;
    private final Queue<I> inbox;
    private final SubscriptionLanes lanes;
    private final DrainLoop loop;
    private boolean ended;
    private volatile long requested;

    private @Nullable Subscription upstream;
    private volatile boolean upstreamDone;
    private volatile @Nullable Throwable upstreamError;
    private volatile boolean cancelled;
    /** The error of a {@code request(n)} with {@code n <= 0} (rule 3.9), the first of them. */
    private volatile @Nullable Throwable badRequest;

    // Owned by the drain loop.
    private long nextSequence;
    private long nextToEmit;
    private long emitted;
    private @Nullable Throwable failure;
    private boolean upstreamCancelled;
    private boolean terminated;
    /**
     * Whether the subscriber was given its terminal signal; not {@link #terminated}, which a cancel sets without one, and
     * which the completing pass sets before handing the lanes back and signalling.
     */
    private boolean signalled;

    PipelineSubscriber(CoreSubscriber<? super O> actual, GpuPipeline<I, O> pipeline, boolean ordered) {
        PipelineSpec spec = pipeline.spec();
        this.actual = actual;
        this.pipeline = pipeline;
        this.ordered = ordered;
        this.capacity = spec.capacity();
        this.inbox = Queues.<I>get(capacity).get();
        this.lanes = new SubscriptionLanes(pipeline.lanePool(), spec);
        this.loop = new DrainLoop(spec.hostScheduler(), pipeline, this::drainOnce, this::passFailed, this::drained);
    }

    @Override
    public Context currentContext() {
        return actual.currentContext();
    }

    // ---------------------------------------------------------------- upstream

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(upstream, s)) {
            upstream = s;
            loop.watch();
            actual.onSubscribe(this);
            if (!cancelled) {
                s.request(capacity);
            }
        }
    }

    /**
     * Upstream's subscribe threw: the subscription fails as on an upstream error, after an {@code onSubscribe} of its
     * own where upstream gave none, so that the subscriber is told and the lanes go back.
     */
    void upstreamThrew(Throwable t) {
        if (upstream == null) {
            onSubscribe(Operators.emptySubscription());
        }
        onError(t);
    }

    @Override
    public void onNext(I chunk) {
        if (upstreamDone) {
            Operators.onNextDropped(chunk, currentContext());
            return;
        }
        if (!inbox.offer(chunk)) {
            // Upstream sent more than requested: a broken publisher.
            Operators.onDiscard(chunk, currentContext());
            onError(Operators.onOperatorError(upstream, Exceptions.failWithOverflow(Exceptions.BACKPRESSURE_ERROR_QUEUE_FULL),
                    chunk, currentContext()));
            return;
        }
        drain();
    }

    @Override
    public void onError(Throwable t) {
        if (upstreamDone) {
            Operators.onErrorDropped(t, currentContext());
            return;
        }
        upstreamError = t;
        upstreamDone = true;
        drain();
    }

    @Override
    public void onComplete() {
        if (upstreamDone) {
            return;
        }
        upstreamDone = true;
        drain();
    }

    // ---------------------------------------------------------------- downstream

    @Override
    public void request(long n) {
        if (n <= 0) {
            // Reactive Streams rule 3.9: an error, not a request ignored (Operators.validate only logs it, and a
            // subscriber that asked for nothing then waited forever while its chunks held the lanes). It ends the
            // subscription as a failed chunk does: no new uploads, upstream cancelled, onError once the chunks in
            // flight are off the device.
            if (badRequest == null) {
                badRequest = Exceptions.nullOrNegativeRequestException(n);
            }
            drain();
            return;
        }
        Operators.addCap(REQUESTED, this, n);
        drain();
    }

    @Override
    public void cancel() {
        if (!cancelled) {
            cancelled = true;
            drain();
        }
    }

    // ---------------------------------------------------------------- the drain loop

    /** Runs the drain loop, or makes sure that the thread running it goes round once more (see {@link DrainLoop}). */
    void drain() {
        loop.drain();
    }

    /**
     * A pass threw (a subscriber whose {@code onNext} throws, say, against the Reactive Streams rule 2.13): logged, and
     * the subscription ends as a cancelled one does (upstream cancelled, chunks dropped, lanes handed back as their
     * device work ends) on the loop's next pass, with the exception as its error if it had no terminal signal yet.
     */
    private void passFailed(Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "sluice: a drain pass of a subscription to " + pipeline + " threw;"
                + " the subscription ends with it", t);
        cancelled = true;
        if (!signalled) {
            signalled = true;
            try {
                actual.onError(t);
            } catch (Throwable again) {
                Exceptions.throwIfJvmFatal(again);
                Operators.onErrorDropped(again, currentContext());
            }
        }
    }

    /** After the passes: a terminated subscription whose lanes have all gone back has ended. */
    private void drained() {
        if (terminated && !ended && lanes.allHandedBack()) {
            ended = true;
            loop.stop();
            pipeline.lanePool().subscriptionEnded();
        }
    }

    private void drainOnce() {
        if (terminated) {
            // Late completions of lanes that were in flight at termination: hand them back now.
            lanes.handBackIdle(loop);
            discardInbox();
            return;
        }
        if (cancelled) {
            terminated = true;
            cancelUpstream();
            discardInbox();
            lanes.handBackIdle(loop);
            return;
        }
        noteFailure();
        if (failure == null && upstreamDone && upstreamError != null) {
            failure = upstreamError; // no new uploads once upstream has failed
        }
        if (failure == null) {
            startArrivedChunks();
        }
        if (failure == null) {
            emitReadyResults();
        }
        if (failure == null && upstreamDone) {
            failure = upstreamError; // read after upstreamDone
        }
        if (failure != null) {
            failOnceDrained(failure);
        } else if (upstreamDone && inbox.isEmpty() && lanes.count(Flight.IN_FLIGHT) + lanes.count(Flight.DONE) == 0) {
            terminated = true;
            lanes.handBackIdle(loop);
            signalled = true;
            actual.onComplete();
        }
    }

    /** Takes the host scheduler's failure, else the earliest failed chunk's, if there is one and none was taken. */
    private void noteFailure() {
        if (failure == null) {
            failure = badRequest;
        }
        if (failure == null) {
            failure = loop.hostFailure();
        }
        if (failure == null) {
            failure = lanes.firstFailure();
        }
    }

    /** No new uploads; the error goes downstream once no chunk is left on the device. */
    private void failOnceDrained(Throwable error) {
        cancelUpstream();
        discardInbox();
        if (lanes.count(Flight.IN_FLIGHT) == 0) {
            terminated = true;
            lanes.discardResults();
            lanes.handBackIdle(loop);
            signalled = true;
            actual.onError(error);
        }
    }

    private void startArrivedChunks() {
        ChunkIo<I, O> io = pipeline.io();
        I chunk;
        while ((chunk = inbox.poll()) != null) {
            long seq = nextSequence++;
            try {
                Flight flight = lanes.freeFlight();
                long n = io.elements(chunk, seq);
                long outN = io.outputElements(chunk, seq, n);
                flight.start(this, seq, chunk, pipeline, n, outN);
            } catch (Throwable t) {
                Exceptions.throwIfJvmFatal(t);
                failure = Operators.onOperatorError(t, currentContext());
                Operators.onDiscard(chunk, currentContext());
                return;
            }
        }
    }

    private void emitReadyResults() {
        long r = requested;
        long e = emitted;
        int replenish = 0;
        while (e != r && !cancelled) {
            Flight flight = ordered ? lanes.withSequence(nextToEmit) : lanes.oldestDone();
            if (flight == null || flight.state() != Flight.DONE) {
                break;
            }
            if (flight.aborted() || flight.error() != null) {
                break; // noteFailure() reports it
            }
            if (!emit(flight)) {
                break;
            }
            e++;
            replenish++;
            r = requested;
        }
        emitted = e;
        if (replenish > 0 && !upstreamDone && !cancelled && failure == null) {
            upstream().request(replenish);
        }
        noteFailure();
    }

    /** Takes the flight's result and emits it; false (with {@link #failure} set) if taking it failed. */
    private boolean emit(Flight flight) {
        long resultElements = flight.outputElements(); // read before takeResult frees the flight
        long sequence = flight.chunkSequence();
        O result;
        try {
            result = flight.takeResult(pipeline.io().sink());
        } catch (Throwable t) {
            Exceptions.throwIfJvmFatal(t);
            failure = Operators.onOperatorError(t, currentContext());
            return false;
        }
        if (result == null) {
            // onNext(null) breaks Reactive Streams rule 2.13 and fails somewhere downstream with an
            // NullPointerException that names nothing: fail here, naming the sink and the chunk.
            failure = new InvalidArgumentException("sink", "the ChunkSink " + pipeline.io().sink() + " returned null for chunk "
                    + sequence + " (" + resultElements + " elements of " + pipeline.spec().outputType()
                    + "); a ChunkSink must return a result object");
            return false;
        }
        if (ordered) {
            nextToEmit++;
        }
        pipeline.metrics.chunksEmitted.increment();
        pipeline.progress().progressed(resultElements);
        actual.onNext(result);
        return true;
    }

    private void cancelUpstream() {
        if (!upstreamCancelled) {
            upstreamCancelled = true;
            upstream().cancel();
        }
    }

    private void discardInbox() {
        Operators.onDiscardQueueWithClear(inbox, currentContext(), null);
    }

    private Subscription upstream() {
        Subscription s = upstream;
        if (s == null) {
            throw new IllegalStateException("not subscribed");
        }
        return s;
    }

    @Override
    @SuppressWarnings("rawtypes") // reactor's Scannable declares the key raw
    public @Nullable Object scanUnsafe(Attr key) {
        if (key == Attr.PARENT) {
            return upstream;
        }
        if (key == Attr.ACTUAL) {
            return actual;
        }
        if (key == Attr.CANCELLED) {
            return cancelled;
        }
        if (key == Attr.TERMINATED) {
            return upstreamDone && terminated;
        }
        if (key == Attr.PREFETCH) {
            return capacity;
        }
        if (key == Attr.REQUESTED_FROM_DOWNSTREAM) {
            return requested;
        }
        if (key == Attr.BUFFERED) {
            return inbox.size();
        }
        if (key == Attr.ERROR) {
            return failure;
        }
        if (key == Attr.RUN_STYLE) {
            return Attr.RunStyle.ASYNC;
        }
        return null;
    }
}
