package dev.sluice.reactive;

import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * A chain of device operations over one or more streams, enqueued all at once when subscribed, so that no
 * host round trip separates them: operations on one stream are ordered by the stream itself, and an
 * operation on another stream than the one before it is preceded by a device-side wait
 * ({@link DeviceStream#waitFor(DeviceFuture)}) on the operations it follows. The host is involved once, when
 * the whole chain has finished.
 *
 * <pre>{@code
 * Mono<Void> done = DevicePlan.on(copyStream)
 *     .then(s -> s.enqueueCopy(hostIn, deviceIn))
 *     .switchTo(computeStream)                         // waits on the device for the upload
 *     .then(s -> s.enqueueLaunch(scale, config, deviceIn, deviceOut, n))
 *     .switchTo(copyStream)                            // waits on the device for the kernel
 *     .then(s -> s.enqueueCopy(deviceOut, hostOut))
 *     .toMono();
 * }</pre>
 *
 * <p>Compare {@code rx.copy(a, b).then(rx.launch(...))}, where each {@code Mono} enqueues only once the one
 * before it has completed on the host: one completion and one enqueue per operation, with the device idle in
 * between. {@code DevicePlanTest} measures the difference.
 *
 * <ul>
 * <li><b>Ordering:</b> each operation runs after the operation before it in the plan (on the device: by
 * stream order or by a device-side wait), and after everything enqueued on its stream before the
 * subscription. {@link #fork} branches run concurrently with each other, each after the plan so far; the
 * operation after a fork runs after every branch.
 * <li><b>Completion thread:</b> the {@code Mono} completes on the context's completion thread once every
 * operation of the plan has finished; it fails with the first failure in plan order. If a step throws while
 * enqueuing (a bad argument), the steps after it are not enqueued, and the {@code Mono} fails with that
 * exception once the steps already enqueued have finished, so that the caller knows the device is done with
 * its memory.
 * <li><b>Cancellation:</b> stops the signals only; the enqueued operations run to the end.
 * <li><b>Resources:</b> what the steps capture (buffers, arrays) stays reachable until the device has finished
 * with it, as for every enqueue. The plan itself is immutable, thread-safe and reusable: each subscription
 * enqueues the chain again ({@link #repeated()} replays it as graphs instead, where it is subscribed again and again).
 * </ul>
 */
public final class DevicePlan {

    private sealed interface Node permits StepNode, SwitchNode, ForkNode {
    }

    private record StepNode(DeviceStep step) implements Node {
    }

    private record SwitchNode(DeviceStream stream) implements Node {
    }

    private record ForkNode(List<DevicePlan> branches) implements Node {
    }

    private final @Nullable DevicePlan parent;
    private final Node node;
    private final int size;

    private DevicePlan(@Nullable DevicePlan parent, Node node) {
        this.parent = parent;
        this.node = node;
        this.size = (parent == null ? 0 : parent.size) + (node instanceof SwitchNode ? 0 : 1);
    }

    /** An empty plan whose first operation will run on {@code stream}. */
    public static DevicePlan on(DeviceStream stream) {
        return new DevicePlan(null, new SwitchNode(Objects.requireNonNull(stream, "stream")));
    }

    /** This plan followed by {@code step} on the current stream. */
    public DevicePlan then(DeviceStep step) {
        return new DevicePlan(this, new StepNode(Objects.requireNonNull(step, "step")));
    }

    /**
     * This plan with later steps on {@code stream}; the first of them waits on the device for the step before
     * it (nothing is enqueued for the switch itself).
     */
    public DevicePlan switchTo(DeviceStream stream) {
        return new DevicePlan(this, new SwitchNode(Objects.requireNonNull(stream, "stream")));
    }

    /** Shorthand for {@code switchTo(stream).then(step)}. */
    public DevicePlan then(DeviceStream stream, DeviceStep step) {
        return switchTo(stream).then(step);
    }

    /**
     * This plan followed by {@code branches}, which run concurrently, each after this plan (their first
     * operations wait on the device for its last), and then by what is added after the fork, which waits for
     * every branch. Later steps run on this plan's current stream unless switched.
     */
    public DevicePlan fork(DevicePlan... branches) {
        Objects.requireNonNull(branches, "branches");
        for (int i = 0; i < branches.length; i++) {
            Objects.requireNonNull(branches[i], "branches[" + i + "]"); // which one, in a long argument list
        }
        return new DevicePlan(this, new ForkNode(List.of(branches)));
    }

    /** Number of steps and forks in the plan. */
    public int size() {
        return size;
    }

    /**
     * A cold {@code Mono} that enqueues the whole plan on each subscription and completes once every operation
     * has finished (see the class description for ordering, threads, cancellation and resources).
     */
    public Mono<Void> toMono() {
        return new MonoDeviceFuture<Void>(this::enqueue, null);
    }

    /**
     * Enqueues the whole plan now, on the calling thread, and returns a future that completes once every
     * operation has finished; for callers outside Reactor. Never throws: an enqueue failure fails the future.
     */
    public CompletableFuture<Void> enqueue() {
        return enqueue(PLAIN);
    }

    /**
     * This plan as {@link RepeatedPlan repeated work}: each run of consecutive steps on one stream is recorded on
     * its first subscription and replayed as one graph launch on later ones (kernel arguments, buffers and fill
     * values updated in place), and runs of element-wise launches fuse. Results, ordering and errors are the
     * plain plan's; the returned plan owns the graphs and must be closed.
     */
    public RepeatedPlan repeated() {
        return new RepeatedPlan(this);
    }

    /** Enqueues the plan, each run of steps on one stream through {@code runs}. */
    CompletableFuture<Void> enqueue(StepRuns runs) {
        Execution run = new Execution(runs);
        try {
            run.execute(this, null);
        } catch (Throwable t) {
            run.enqueueFailure = t;
        }
        return run.whenFinished();
    }

    private List<Node> nodes() {
        ArrayDeque<Node> out = new ArrayDeque<>(size + 1);
        for (DevicePlan p = this; p != null; p = p.parent) {
            out.addFirst(p.node);
        }
        return List.copyOf(out);
    }

    /**
     * Enqueues a run of consecutive steps of a plan on one stream, through {@link Execution#enqueueSteps}; the run's
     * first node identifies it across subscriptions.
     */
    interface StepRuns {
        /** Enqueues {@code steps} on {@code stream} for {@code execution}; returns what later steps wait for. */
        List<DeviceFuture<?>> enqueue(Object run, DeviceStream stream, List<DeviceStep> steps, Execution execution);
    }

    private static final StepRuns PLAIN = (run, stream, steps, execution) -> execution.enqueueSteps(stream, steps);

    /** The state of one subscription's enqueueing. */
    static final class Execution {
        /** Last future per stream: each stream's futures complete in order, so these cover the rest. */
        final Map<DeviceStream, DeviceFuture<?>> lastPerStream = new IdentityHashMap<>();
        final List<DeviceFuture<?>> steps = new ArrayList<>();
        final StepRuns runs;
        @Nullable Throwable enqueueFailure;

        Execution(StepRuns runs) {
            this.runs = runs;
        }

        /**
         * Enqueues {@code plan}'s nodes, the first of which wait for {@code after}; returns the futures later
         * steps must wait for.
         */
        List<DeviceFuture<?>> execute(DevicePlan plan, @Nullable List<DeviceFuture<?>> after) {
            List<DeviceFuture<?>> frontier = after == null ? List.of() : after;
            DeviceStream current = null;
            List<Node> nodes = plan.nodes();
            for (int i = 0; i < nodes.size(); ) {
                switch (nodes.get(i)) {
                    case SwitchNode s -> {
                        current = s.stream();
                        i++;
                    }
                    case StepNode first -> {
                        DeviceStream stream = Objects.requireNonNull(current);
                        List<DeviceStep> run = new ArrayList<>();
                        for (; i < nodes.size() && nodes.get(i) instanceof StepNode s; i++) {
                            run.add(s.step());
                        }
                        waitOnDevice(stream, frontier);
                        frontier = runs.enqueue(first, stream, run, this);
                    }
                    case ForkNode fork -> {
                        List<DeviceFuture<?>> joined = new ArrayList<>();
                        for (DevicePlan branch : fork.branches()) {
                            joined.addAll(execute(branch, frontier));
                        }
                        frontier = joined.isEmpty() ? frontier : List.copyOf(joined);
                        i++;
                    }
                }
            }
            return frontier;
        }

        /**
         * Enqueues {@code steps} on {@code stream}, one after another, after what the caller made the stream wait
         * for; returns the last step's future.
         */
        List<DeviceFuture<?>> enqueueSteps(DeviceStream stream, List<DeviceStep> run) {
            List<DeviceFuture<?>> frontier = List.of();
            for (DeviceStep step : run) {
                waitOnDevice(stream, frontier); // only where a step returned another stream's future
                DeviceFuture<?> f = Objects.requireNonNull(step.enqueue(stream), "a DeviceStep returned null");
                note(f.stream() == null ? stream : f.stream(), f);
                steps.add(f);
                frontier = List.of(f);
            }
            return frontier;
        }

        /** Makes {@code stream} wait, on the device, for those of {@code frontier} on other streams. */
        private void waitOnDevice(DeviceStream stream, List<DeviceFuture<?>> frontier) {
            for (DeviceFuture<?> f : frontier) {
                if (f.stream() != stream) {
                    note(stream, stream.waitFor(f)); // device-side: no host thread waits
                }
            }
        }

        void note(DeviceStream stream, DeviceFuture<?> f) {
            lastPerStream.put(stream, f);
        }

        CompletableFuture<Void> whenFinished() {
            CompletableFuture<?>[] tails = lastPerStream.values().toArray(new CompletableFuture<?>[0]);
            CompletableFuture<Void> all = CompletableFuture.allOf(tails);
            CompletableFuture<Void> result = new CompletableFuture<>();
            all.whenComplete((v, e) -> {
                Throwable failure = enqueueFailure;
                if (failure == null) {
                    for (DeviceFuture<?> f : steps) {
                        if (f.isCompletedExceptionally()) {
                            failure = causeOf(f);
                            break;
                        }
                    }
                }
                if (failure == null && e != null) {
                    failure = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                }
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else {
                    result.complete(null);
                }
            });
            return result;
        }

        private static Throwable causeOf(CompletableFuture<?> f) {
            return f.state() == Future.State.CANCELLED
                    ? new CancellationException(f + " was cancelled")
                    : f.exceptionNow();
        }
    }
}
