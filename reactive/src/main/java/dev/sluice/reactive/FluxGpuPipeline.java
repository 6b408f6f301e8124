package dev.sluice.reactive;

import dev.sluice.ClosedResourceException;
import dev.sluice.InvalidArgumentException;
import java.util.Queue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;
import reactor.util.concurrent.Queues;
import reactor.util.context.Context;

/**
 * The operator behind {@link GpuPipeline#process} and {@link GpuPipeline#processUnordered}.
 *
 * <p>One drain loop, serialised by a work-in-progress counter (as in reactor-core's own operators), owns
 * all lane state: it starts uploads for chunks that arrived, emits finished results while there is demand,
 * requests one chunk from upstream per result emitted, and terminates. Every event (a chunk, a completion,
 * a request, a cancel) only records itself and calls {@link PipelineSubscriber#drain()}; whichever thread
 * finds the loop idle runs it. Upstream gets {@code lanes * chunksPerLane} requests up front, and one more
 * per emitted result, so a chunk that arrives always finds a free place ({@link Lane.Flight}) in a lane: an
 * empty lane first (opening one if fewer than {@code lanes} are open), else the lane holding the fewest
 * chunks. With a host scheduler, the loop runs on one
 * worker of it (one task per burst of events), so the completion thread only records completions.
 *
 * <p>A host scheduler that goes away while a subscription runs (disposed, or rejecting tasks) ends the subscription
 * with the {@link RejectedExecutionException}: the first rejected task, or the first event or watchdog tick
 * ({@link #WATCH_MILLIS}) that finds the scheduler disposed, claims the drain loop from the worker (a task the
 * scheduler dropped never runs it, see {@link PipelineSubscriber#drain()}), and from then on the loop runs on the
 * signalling thread: upstream is cancelled, the error is signalled once the chunks in flight are off the device, and
 * every lane is released (not kept: its pipeline cannot run without the scheduler).
 *
 * <p>Lanes come from the pipeline ({@link GpuPipeline#acquireLane}: the one kept in that slot, or a new one)
 * and go back to it ({@link GpuPipeline#recycleLane}) only after termination, each once no chunk of it is in
 * flight; the pipeline counts the subscription as ended once all have gone back.
 */
final class FluxGpuPipeline<I, O> extends Flux<O> implements Scannable {

    /** How often a subscription with a host scheduler checks that the scheduler is still there. */
    static final long WATCH_MILLIS = 50;

    /** One daemon thread for every pipeline's scheduler check: a tick per {@link #WATCH_MILLIS} per subscription. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-pipeline-watchdog");
        t.setDaemon(true);
        return t;
    });

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
        if (!pipeline.subscriptionStarting()) {
            Operators.error(actual, new ClosedResourceException(pipeline.toString()));
            return;
        }
        PipelineSubscriber<I, O> s;
        try {
            s = new PipelineSubscriber<>(actual, pipeline, ordered);
        } catch (Throwable t) {
            pipeline.subscriptionEnded();
            Exceptions.throwIfJvmFatal(t);
            Operators.error(actual, Operators.onOperatorError(t, actual.currentContext()));
            return;
        }
        Flux.<I>from(source).subscribe(s);
    }

    @Override
    @SuppressWarnings("rawtypes") // reactor's Scannable declares the key raw
    public @Nullable Object scanUnsafe(Attr key) {
        if (key == Attr.PREFETCH) {
            return pipeline.lanes() * pipeline.chunksPerLane();
        }
        if (key == Attr.RUN_STYLE) {
            return Attr.RunStyle.ASYNC;
        }
        return null;
    }

    static final class PipelineSubscriber<I, O> implements CoreSubscriber<I>, Subscription, Scannable {

        private final CoreSubscriber<? super O> actual;
        private final GpuPipeline<I, O> pipeline;
        private final boolean ordered;
        private final int capacity;
        private final Queue<I> inbox;
        private final Lane[] lanes;
        /** The flights of the lanes opened, lane by lane: {@code flightCount} of them. */
        private final Lane.Flight[] flights;
        private int flightCount;
        /** Lanes handed back to the pipeline (after termination only). */
        private final boolean[] handedBack;
        private boolean ended;
        private final AtomicInteger wip = new AtomicInteger();
        /** Where the drain loop runs when the pipeline has a host scheduler; null: on the signalling thread. */
        private final Scheduler.@Nullable Worker worker;
        private final @Nullable Scheduler hostScheduler;
        private volatile boolean workerDone;
        /** The drain task last handed to the worker: whoever claims it runs the loop (see {@link #drain()}). */
        private volatile @Nullable DrainTask scheduled;
        /** Why the host scheduler can no longer run the loop; set once, before {@link #workerDone}. */
        private volatile @Nullable Throwable hostFailure;
        private volatile @Nullable ScheduledFuture<?> watch;
        private volatile boolean over;
        /** The drain task seen unclaimed at the watchdog's last tick (watchdog thread only). */
        private @Nullable DrainTask stale;
        private volatile long requested;
        @SuppressWarnings("rawtypes")
        private static final AtomicLongFieldUpdater<PipelineSubscriber> REQUESTED =
                AtomicLongFieldUpdater.newUpdater(PipelineSubscriber.class, "requested");

        private @Nullable Subscription upstream;
        private volatile boolean upstreamDone;
        private volatile @Nullable Throwable upstreamError;
        private volatile boolean cancelled;

        // Owned by the drain loop.
        private int opened;
        private long nextSequence;
        private long nextToEmit;
        private long emitted;
        private @Nullable Throwable failure;
        private boolean upstreamCancelled;
        private boolean terminated;

        PipelineSubscriber(CoreSubscriber<? super O> actual, GpuPipeline<I, O> pipeline, boolean ordered) {
            this.actual = actual;
            this.pipeline = pipeline;
            this.ordered = ordered;
            this.capacity = pipeline.lanes() * pipeline.chunksPerLane();
            this.inbox = Queues.<I>get(capacity).get();
            this.lanes = new Lane[pipeline.lanes()];
            this.flights = new Lane.Flight[capacity];
            this.handedBack = new boolean[pipeline.lanes()];
            this.hostScheduler = pipeline.hostScheduler();
            this.worker = hostScheduler == null ? null : hostScheduler.createWorker();
        }

        /** One run of the drain loop on the worker, unless {@link #rescue} claimed it first. */
        private final class DrainTask extends AtomicBoolean implements Runnable {
            @Override
            public void run() {
                if (compareAndSet(false, true)) {
                    drainLoop();
                }
            }

            boolean claim() {
                return compareAndSet(false, true);
            }
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
                if (worker != null) {
                    try {
                        watch = WATCHDOG.scheduleWithFixedDelay(this::checkHostScheduler, WATCH_MILLIS, WATCH_MILLIS,
                                TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException e) {
                        // the JVM is shutting down; the checks made on every event remain
                    }
                }
                actual.onSubscribe(this);
                if (!cancelled) {
                    s.request(capacity);
                }
            }
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
            if (Operators.validate(n)) {
                Operators.addCap(REQUESTED, this, n);
                drain();
            }
        }

        @Override
        public void cancel() {
            if (!cancelled) {
                cancelled = true;
                drain();
            }
        }

        // ---------------------------------------------------------------- the drain loop

        /**
         * Runs the drain loop, or makes sure that the thread running it goes round once more. With a host scheduler
         * the loop runs as a {@link DrainTask} on the worker. A scheduler that rejects the task, or is disposed
         * with the task queued (a disposed executor drops it, and nothing would ever run the loop again: wip would
         * stay above 0 for good), fails the subscription ({@link #hostGone}); the caller then claims the loop and
         * runs it here, as every later event does.
         */
        void drain() {
            if (wip.getAndIncrement() != 0) {
                if (worker != null && !workerDone && schedulerGone()) {
                    rescue(null);
                }
                return;
            }
            Scheduler.Worker w = worker;
            if (w != null && !workerDone) {
                DrainTask t = new DrainTask();
                scheduled = t;
                try {
                    w.schedule(t);
                    return;
                } catch (RejectedExecutionException e) {
                    if (!t.claim()) {
                        return; // ran after all
                    }
                    hostGone(e);
                }
            }
            drainLoop();
        }

        private boolean schedulerGone() {
            Scheduler h = hostScheduler;
            return h != null && h.isDisposed();
        }

        /**
         * Takes the loop from a task the worker will never run, if that task has not started: fails the
         * subscription and runs the loop on this thread. Does nothing if the task runs (or ran): it sees the new
         * wip count and goes round again.
         */
        private void rescue(@Nullable RejectedExecutionException cause) {
            DrainTask t = scheduled;
            if (t != null && t.claim()) {
                hostGone(cause);
                drainLoop();
            }
        }

        /**
         * The watchdog's tick: a scheduler that is gone fails the subscription even when no event comes. Gone means
         * disposed, or (for a scheduler over an executor shut down behind its back, which does not say it is
         * disposed) rejecting a probe task while the drain task has waited a whole tick.
         */
        private void checkHostScheduler() {
            if (over || workerDone) {
                return;
            }
            if (schedulerGone()) {
                if (wip.get() != 0) {
                    rescue(null);
                } else {
                    drain(); // the worker rejects the task: hostGone, then the loop runs here
                }
                return;
            }
            DrainTask t = scheduled;
            if (t != null && !t.get() && wip.get() != 0) {
                if (t != stale) {
                    stale = t; // look again at the next tick
                    return;
                }
                Scheduler h = hostScheduler;
                try {
                    if (h != null) {
                        h.schedule(() -> { });
                    }
                } catch (RejectedExecutionException e) {
                    rescue(e);
                }
            }
        }

        /** The host scheduler can no longer run the loop: later drains run on the signalling thread, and the loop fails. */
        private void hostGone(@Nullable RejectedExecutionException cause) {
            if (hostFailure == null) {
                RejectedExecutionException e = new RejectedExecutionException("the host scheduler " + hostScheduler + " of "
                        + pipeline + " rejected work or was disposed while a subscription ran", cause);
                hostFailure = e;
            }
            workerDone = true;
        }

        private void drainLoop() {
            int missed = 1;
            do {
                drainOnce();
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
            if (terminated && !ended && allLanesHandedBack()) {
                ended = true;
                over = true;
                ScheduledFuture<?> wf = watch;
                if (wf != null) {
                    wf.cancel(false);
                }
                if (worker != null) {
                    // Nothing can signal any more but a late request or cancel, which then runs inline (a no-op).
                    workerDone = true;
                    worker.dispose();
                }
                pipeline.subscriptionEnded();
            }
        }

        private void drainOnce() {
            if (terminated) {
                // Late completions of lanes that were in flight at termination: hand them back now.
                handBackIdleLanes();
                discardInbox();
                return;
            }
            if (cancelled) {
                terminated = true;
                cancelUpstream();
                discardInbox();
                handBackIdleLanes();
                return;
            }
            if (failure == null) {
                failure = hostFailure;
            }
            if (failure == null) {
                failure = firstFailure();
            }
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
                cancelUpstream();
                discardInbox();
                if (countFlights(Lane.IN_FLIGHT) == 0) {
                    terminated = true;
                    discardResults();
                    handBackIdleLanes();
                    actual.onError(failure);
                }
                return;
            }
            if (upstreamDone && inbox.isEmpty() && countFlights(Lane.IN_FLIGHT) + countFlights(Lane.DONE) == 0) {
                terminated = true;
                handBackIdleLanes();
                actual.onComplete();
            }
        }

        private void startArrivedChunks() {
            I chunk;
            while ((chunk = inbox.poll()) != null) {
                long seq = nextSequence++;
                try {
                    Lane.Flight flight = freeFlight();
                    ChunkSource<I> source = pipeline.source();
                    long n = source.elements(chunk, pipeline.inputType());
                    if (n < 1 || n > pipeline.chunkElements()) {
                        throw new InvalidArgumentException("chunk", "chunk " + seq + " has " + n + " elements of "
                                + pipeline.inputType() + ", outside 1 to the pipeline's chunkElements "
                                + pipeline.chunkElements());
                    }
                    long outN = pipeline.outputElementsFor(chunk, seq, n);
                    flight.start(this, seq, chunk, pipeline, n, outN);
                } catch (Throwable t) {
                    Exceptions.throwIfJvmFatal(t);
                    failure = Operators.onOperatorError(t, currentContext());
                    Operators.onDiscard(chunk, currentContext());
                    return;
                }
            }
        }

        /**
         * Where the next chunk goes: an empty lane (the first one), else a new lane while fewer than
         * {@code lanes} are open, else the lane holding the fewest chunks, behind them on its stream.
         */
        private Lane.Flight freeFlight() {
            Lane best = null;
            int bestBusy = Integer.MAX_VALUE;
            for (int i = 0; i < opened; i++) {
                int b = lanes[i].busy();
                if (b < bestBusy) {
                    best = lanes[i];
                    bestBusy = b;
                }
            }
            if (best != null && bestBusy == 0) {
                return best.flights[0];
            }
            if (opened < lanes.length) {
                Lane lane = pipeline.acquireLane(opened);
                lanes[opened++] = lane;
                for (Lane.Flight f : lane.flights) {
                    flights[flightCount++] = f;
                }
                return lane.flights[0];
            }
            Lane.Flight f = best == null ? null : best.freeFlight();
            if (f == null) {
                // Cannot happen while upstream honours the requests: each emitted result frees a flight first.
                throw new IllegalStateException("no free place in " + opened + " lanes; upstream sent more than requested");
            }
            return f;
        }

        private void emitReadyResults() {
            long r = requested;
            long e = emitted;
            int replenish = 0;
            while (e != r && !cancelled) {
                Lane.Flight flight = ordered ? flightWithSequence(nextToEmit) : oldestDoneFlight();
                if (flight == null || flight.state() != Lane.DONE) {
                    break;
                }
                if (flight.aborted() || flight.error() != null) {
                    break; // firstFailure() reports it on the next pass
                }
                long resultElements = flight.outputElements(); // read before takeResult frees the flight
                O result;
                try {
                    result = flight.takeResult(pipeline.sink());
                } catch (Throwable t) {
                    Exceptions.throwIfJvmFatal(t);
                    failure = Operators.onOperatorError(t, currentContext());
                    break;
                }
                if (ordered) {
                    nextToEmit++;
                }
                e++;
                replenish++;
                pipeline.metrics.chunksEmitted.increment();
                pipeline.progressed(resultElements);
                actual.onNext(result);
                r = requested;
            }
            emitted = e;
            if (replenish > 0 && !upstreamDone && !cancelled && failure == null) {
                upstream().request(replenish);
            }
            if (failure == null) {
                failure = hostFailure;
            }
            if (failure == null) {
                failure = firstFailure();
            }
        }

        private Lane.@Nullable Flight flightWithSequence(long seq) {
            for (int i = 0; i < flightCount; i++) {
                Lane.Flight f = flights[i];
                if (f.state() != Lane.FREE && f.chunkSequence() == seq) {
                    return f;
                }
            }
            return null;
        }

        private Lane.@Nullable Flight oldestDoneFlight() {
            Lane.Flight best = null;
            for (int i = 0; i < flightCount; i++) {
                Lane.Flight f = flights[i];
                if (f.state() == Lane.DONE && (best == null || f.chunkSequence() < best.chunkSequence())) {
                    best = f;
                }
            }
            return best;
        }

        /** The failure of the earliest finished chunk that failed, if any. */
        private @Nullable Throwable firstFailure() {
            Lane.Flight first = null;
            for (int i = 0; i < flightCount; i++) {
                Lane.Flight f = flights[i];
                if (f.state() == Lane.DONE && f.error() != null && (first == null || f.chunkSequence() < first.chunkSequence())) {
                    first = f;
                }
            }
            return first == null ? null : first.error();
        }

        private int countFlights(int state) {
            int c = 0;
            for (int i = 0; i < flightCount; i++) {
                if (flights[i].state() == state) {
                    c++;
                }
            }
            return c;
        }

        private void discardResults() {
            for (int i = 0; i < flightCount; i++) {
                if (flights[i].state() == Lane.DONE) {
                    flights[i].discardResult();
                }
            }
        }

        /**
         * Hands every lane whose device work is done back to the pipeline (kept for the next subscription, or
         * released if its last chunk failed); lanes still in flight come back through drain(). After
         * termination only: a lane handed back may at once serve another subscription.
         */
        private void handBackIdleLanes() {
            for (int i = 0; i < opened; i++) {
                Lane l = lanes[i];
                if (!handedBack[i] && l.inFlight() == 0) {
                    boolean reusable = l.reusable() && hostFailure == null; // no scheduler: release, do not keep
                    l.detach(); // drops a result not emitted (after a cancel or an error)
                    handedBack[i] = true;
                    pipeline.recycleLane(l, reusable);
                }
            }
        }

        private boolean allLanesHandedBack() {
            for (int i = 0; i < opened; i++) {
                if (!handedBack[i]) {
                    return false;
                }
            }
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
}
