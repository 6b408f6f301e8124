package dev.sluice.engine;

import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.StreamHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The host steps of one captured graph (host functions and waits for a {@link CompletionStage} enqueued during
 * capture) and the replays of it that are running them.
 *
 * <p>A host step's native callback is fixed when it is captured, so it cannot be told which replay it runs for. It
 * finds out by order: the backends run the launches of one executable graph one after another, in the order of their
 * native launch calls, and each runs every step once, in capture order. So the replays are queued here when they reach
 * the backend, under a lock held across the native launch (launches from two streams must not swap between queueing
 * and launching), and a step belongs to the replay at the head of the queue; the last step of a replay removes it.
 *
 * <p>A step never throws into the backend: what a host function throws, or the failure of an awaited stage, is kept
 * on the replay, and the replay's future fails with the first such failure ({@link DeviceFuture#finish()} reads it,
 * as the replay is that future's keep-alive object). Later steps of the replay still run, as later work of a stream
 * runs after a host function outside graphs that threw.
 */
final class GraphHostSteps {

    /** One replay in flight: launched on a backend stream, not all of its steps run yet. */
    static final class Replay implements Outcome {
        /** Written by the steps (a driver's or the simulator's thread), read by the completion thread. */
        private volatile @Nullable Throwable failure;
        /** Under the steps' queue: steps not run yet. */
        private int stepsLeft;
        /** The events and functions the graph's work names, kept reachable until the replay has finished. */
        @Nullable Object handles;

        @Override
        public @Nullable Throwable failure() {
            return failure;
        }

        private void fail(Throwable t) {
            if (failure == null) {
                failure = t;
            }
        }
    }

    private final ContextState context;
    /** The steps captured; fixed once capture has ended (written under the capturing stream's lock). */
    private int steps;
    /** Replays launched and not finished with their steps, oldest first. */
    private final ConcurrentLinkedDeque<Replay> running = new ConcurrentLinkedDeque<>();
    /** Held across queueing a replay and its native launch, so that the queue has the backend's launch order. */
    private final ReentrantLock launching = new ReentrantLock();
    /** Held by {@link DeviceGraph#enqueueLaunch} across a launch, so that each replay can wait for the one before. */
    final ReentrantLock launchOrder = new ReentrantLock();
    /** Under {@link #launchOrder}: the future of the last replay enqueued, or null. */
    @Nullable Operation<?> lastReplay;
    /** Set once the graph is closed while replays were running: the last step hands it to the host executor. */
    private @Nullable Runnable destroyWhenIdle;

    GraphHostSteps(ContextState context) {
        this.context = context;
    }

    /** Whether any step was captured. */
    boolean isEmpty() {
        return steps == 0;
    }

    /** A captured host function: runs {@code function} as host functions outside graphs run, marked for refuseBlocking. */
    Runnable hostFunction(Runnable function) {
        steps++;
        return () -> step(() -> context.runHostFunction(function));
    }

    /**
     * A captured wait for {@code stage}: blocks the thread running the step until the stage completes, or the context
     * begins to close. A stage completes once: replays after that pass it at once.
     */
    Runnable hostWait(CompletionStage<?> stage) {
        steps++;
        CompletableFuture<Object> s = new CompletableFuture<>(); // not toCompletableFuture(): a stage may refuse it
        stage.whenComplete((v, e) -> {
            if (e != null) {
                s.completeExceptionally(e);
            } else {
                s.complete(v);
            }
        });
        return () -> step(() -> {
            CompletableFuture.anyOf(s, context.closing()).join(); // throws the failure of either
        });
    }

    private void step(Runnable body) {
        Replay r = running.peekFirst();
        try {
            body.run();
        } catch (Throwable t) {
            if (r != null) {
                r.fail(t instanceof CompletionException && t.getCause() != null ? t.getCause() : t);
            }
        } finally {
            if (r != null) {
                finishStep(r);
            }
        }
    }

    private void finishStep(Replay r) {
        Runnable destroy = null;
        synchronized (this) {
            if (--r.stepsLeft == 0) {
                running.remove(r);
                if (running.isEmpty()) {
                    destroy = destroyWhenIdle;
                    destroyWhenIdle = null;
                }
            }
        }
        if (destroy != null) {
            try {
                context.hostExecutor().execute(destroy); // not on this thread: CUDA and HIP forbid driver calls in a host node
            } catch (RejectedExecutionException e) {
                // the context has closed, and its native graphs went with it
            }
        }
    }

    /** {@code graph}, launching as {@code replay} of these steps: queued here in the backend's launch order. */
    GraphHandle launching(GraphHandle graph, Replay replay) {
        return new GraphHandle() {
            @Override
            public void launch(StreamHandle stream) {
                launching.lock();
                try {
                    synchronized (GraphHostSteps.this) {
                        replay.stepsLeft = steps;
                        running.addLast(replay);
                    }
                    try {
                        graph.launch(stream);
                    } catch (RuntimeException e) {
                        synchronized (GraphHostSteps.this) {
                            running.remove(replay);
                        }
                        throw e;
                    }
                } finally {
                    launching.unlock();
                }
            }

            @Override
            public void destroy() {
                graph.destroy();
            }
        };
    }

    /**
     * Destroys the graph with {@code destroy} now if no replay is running its steps, else once the last one has run
     * them: the backend releases the steps' callbacks with the native graph, which a replay still running must find.
     */
    void destroyWhenIdle(Runnable destroy) {
        synchronized (this) {
            if (!running.isEmpty()) {
                destroyWhenIdle = destroy;
                return;
            }
        }
        destroy.run();
    }
}
