package dev.sluice.reactive;

import dev.sluice.ClosedResourceException;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.RepeatedWork;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * A {@link DevicePlan} subscribed again and again, each of its runs of steps on one stream enqueued as
 * {@link RepeatedWork}: recorded on the first subscription and launched as one graph on the later ones, updated in place
 * where kernel arguments, buffers, offsets or fill values changed, with consecutive launches of generated element-wise
 * kernels fused into one (see {@link RepeatedWork} for what is recorded, what fuses and what falls back). A plan of 200
 * launches on one stream then costs one graph launch per subscription instead of 200 enqueues. Made by
 * {@link DevicePlan#repeated()}.
 *
 * <pre>{@code
 * try (RepeatedPlan step = DevicePlan.on(stream)
 *         .then(s -> s.enqueueLaunch(scale, config, x, y, n, 2f, 1f))
 *         .then(s -> s.enqueueLaunch(clamp, config, y, z, n))
 *         .repeated()) {
 *     for (int i = 0; i < iterations; i++) {
 *         step.enqueue();                   // one graph launch (the two launches fused into one)
 *     }
 *     stream.synchronize();
 * }
 * }</pre>
 *
 * <p>A run is the steps between two {@link DevicePlan#switchTo switches} or forks; each run of the plan has its own
 * repeated work, so a plan that goes back and forth between streams replays each run's graph without rebuilding it. A
 * run of one step is enqueued as in the plain plan: a graph of one operation costs the device more than the operation.
 * The device-side waits between streams are enqueued between the runs, as the plain plan enqueues them. The steps are
 * called on every subscription as before: a graph replays what they enqueue, so a step may enqueue other buffers or
 * arguments each time (the graph is updated), or work of another shape (a graph is built for it, {@link #builds()},
 * and kept beside the run's others: see {@link RepeatedWork}).
 *
 * <ul>
 * <li><b>Ordering, completion thread, cancellation, resources:</b> as for the plain plan ({@link DevicePlan}): each
 * subscription enqueues the whole plan on the subscribing thread; the {@code Mono} completes on the context's
 * completion thread once every operation has finished; cancelling stops the signals only.
 * <li><b>Errors:</b> as for the plain plan: if a step throws while enqueuing, the steps of the plan before it are still
 * submitted (those of its own run included), the later steps are not enqueued, and the {@code Mono} fails with that
 * exception once the submitted ones have finished. A buffer closed between its step and the end of its run fails the
 * plan with {@link ClosedResourceException}, nothing of that run submitted.
 * <li><b>Fallback:</b> a run whose steps enqueue what a recording cannot describe (a copy of Java arrays, a host
 * function, a wait) is enqueued as plain operations from that step on, on every subscription: correct, and no faster
 * than the plain plan. So is a run whose stream is capturing or, at that moment, recording other repeated work on
 * another thread. {@link #fallbacks()} counts both.
 * <li><b>Threads:</b> subscriptions may come from any thread; each run's calls are serialised (a second subscription
 * waits until the first has submitted that run, never for the device).
 * <li><b>Resources:</b> the graphs are this object's: {@link #close()} destroys them (launches already enqueued still
 * run). After it, a subscription fails with {@link ClosedResourceException}. The plan it was made from stays usable.
 * </ul>
 */
public final class RepeatedPlan implements AutoCloseable {

    private final DevicePlan plan;
    /** Each run's work, by the run's first node (unique to that run of this plan); under {@code this}. */
    private final Map<Object, RepeatedWork> works = new IdentityHashMap<>();
    private final AtomicLong plainRuns = new AtomicLong();
    private final DevicePlan.StepRuns runs = this::enqueueRun;
    private boolean closed;
    private volatile boolean fuse = true;

    RepeatedPlan(DevicePlan plan) {
        this.plan = plan;
    }

    /** The plan this replays. */
    public DevicePlan plan() {
        return plan;
    }

    /**
     * A cold {@code Mono} that enqueues the whole plan on each subscription, as {@link #enqueue()} does, and completes
     * once every operation has finished (see the class description).
     */
    public Mono<Void> toMono() {
        return new MonoDeviceFuture<Void>(this::enqueue, null);
    }

    /**
     * Enqueues the whole plan now, on the calling thread, each run of steps as one graph launch where it can, and
     * returns a future that completes once every operation has finished. Never throws: an enqueue failure (this plan
     * closed included) fails the future, as {@link DevicePlan#enqueue()}'s does.
     */
    public CompletableFuture<Void> enqueue() {
        return plan.enqueue(runs);
    }

    /** Graph launches so far, over every run of the plan (see {@link RepeatedWork#replays()}). */
    public long replays() {
        return sum(RepeatedWork::replays);
    }

    /** Graphs built so far, over every run of the plan (see {@link RepeatedWork#builds()}). */
    public long builds() {
        return sum(RepeatedWork::builds);
    }

    /**
     * Runs enqueued as plain operations, wholly or from a step on: those of {@link RepeatedWork#fallbacks()}, and those
     * whose stream was capturing or recording other work when they came.
     */
    public long fallbacks() {
        return sum(RepeatedWork::fallbacks) + plainRuns.get();
    }

    /** Launches that ran inside a fused kernel so far (see {@link RepeatedWork#fusedLaunches()}). */
    public long fusedLaunches() {
        return sum(RepeatedWork::fusedLaunches);
    }

    /**
     * Whether runs submitted from now on fuse consecutive element-wise launches ({@link RepeatedWork#fuseElementwise});
     * on by default.
     *
     * @param on whether to fuse
     * @return this plan
     */
    public RepeatedPlan fuseElementwise(boolean on) {
        synchronized (this) {
            fuse = on;
            for (RepeatedWork w : works.values()) {
                w.fuseElementwise(on);
            }
        }
        return this;
    }

    /** Whether {@link #close()} has been called. */
    public synchronized boolean isClosed() {
        return closed;
    }

    /**
     * Destroys every run's graph; launches already enqueued still run, and the buffers they use stay allocated until
     * they have finished. Idempotent and safe from any thread; waits for a run being submitted on another thread,
     * never for the device.
     */
    @Override
    public void close() {
        List<RepeatedWork> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(works.values());
        }
        for (RepeatedWork w : toClose) {
            w.close();
        }
    }

    @Override
    public String toString() {
        return "RepeatedPlan[" + plan.size() + " steps]";
    }

    /** Enqueues one run of steps as its repeated work's call. */
    private List<DeviceFuture<?>> enqueueRun(Object run, DeviceStream stream, List<DeviceStep> steps,
            DevicePlan.Execution execution) {
        if (isClosed()) {
            throw new ClosedResourceException(toString());
        }
        if (steps.size() == 1) {
            // A graph of one operation costs the device more than the operation (on an H200, a plan alternating
            // streams at every step ran 14 % slower so): a run of one step is enqueued as the plain plan would.
            return execution.enqueueSteps(stream, steps);
        }
        RepeatedWork work = workFor(run, stream);
        Throwable[] stepFailure = new Throwable[1];
        List<DeviceFuture<?>> frontier = new ArrayList<>(1);
        boolean[] recorded = new boolean[1];
        DeviceFuture<Void> call;
        try {
            call = work.enqueue(s -> {
                recorded[0] = true;
                try {
                    frontier.addAll(execution.enqueueSteps(s, steps));
                } catch (Throwable e) { // a checked exception thrown undeclared (a Kotlin step) included
                    // The plain plan submits the steps before a failing one; so does this: the body returns normally.
                    stepFailure[0] = e;
                }
            });
        } catch (IllegalStateException e) {
            if (recorded[0]) {
                throw e; // the run's submission failed: nothing of it was submitted
            }
            // The stream is capturing, or another thread records other repeated work on it: enqueue as the plain plan.
            plainRuns.incrementAndGet();
            return execution.enqueueSteps(stream, steps);
        }
        execution.note(stream, call);
        if (stepFailure[0] != null) {
            throw RepeatedPlan.<RuntimeException>rethrow(stepFailure[0]);
        }
        return frontier.isEmpty() ? List.of(call) : frontier;
    }

    /** Throws {@code t} as it is, checked or not, as the plain plan lets a step's exception leave. */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T rethrow(Throwable t) throws T {
        throw (T) t;
    }

    private synchronized RepeatedWork workFor(Object run, DeviceStream stream) {
        if (closed) {
            throw new ClosedResourceException(toString());
        }
        @Nullable RepeatedWork w = works.get(run);
        if (w == null) {
            w = stream.repeatedWork().fuseElementwise(fuse);
            works.put(run, w);
        }
        return w;
    }

    private synchronized long sum(ToLongFunction<RepeatedWork> count) {
        long n = 0;
        for (RepeatedWork w : works.values()) {
            n += count.applyAsLong(w);
        }
        return n;
    }
}
