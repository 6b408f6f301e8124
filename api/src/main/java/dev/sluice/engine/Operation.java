package dev.sluice.engine;

import dev.sluice.OperationKind;
import dev.sluice.spi.Marker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The engine's half of an enqueued operation's future: its stream, its place in the stream's order (the sequence), how
 * the engine learns that the device has finished it (its own marker or its group's), its link in the stream's
 * completion queue, and how it completes. The public future extends this class; the façade allocates it, and the
 * engine fills it in under the stream's lock ({@link StreamOrder#mark}) before the completion queue publishes it, so an
 * operation costs one object.
 *
 * @param <T> the operation's result
 */
public abstract class Operation<T> extends CompletableFuture<T> {

    /**
     * Implemented by a future whose completion listeners or Flight Recorder events observe: the engine tells it what
     * was enqueued (under the stream's lock) and when it completed (on the completion thread, before the future
     * completes).
     */
    public interface Observing {
        /**
         * The operation was enqueued: what it is, its trace kind ({@code "kernel <name>"} for a launch, else the kind's
         * trace name), and the bytes a copy moves (0 for other kinds).
         */
        void enqueued(OperationKind kind, String traceKind, long bytes, @Nullable String label);

        /** The operation finished on the device ({@code failure} null) or failed, at {@code nowNanos}. */
        void completed(@Nullable Throwable failure, long nowNanos);
    }

    private static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(Operation.class, "next", Operation.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Written before publication (by {@link StreamOrder#mark} or {@link #attach}), read after. */
    private @Nullable StreamOrder core;
    private long sequence = -1;
    /**
     * Set while repeated work has recorded the operation and not submitted it yet: it has no place in a stream's order,
     * so nothing can wait for it. Cleared (a volatile write, after the sequence is set) once it is submitted or failed.
     */
    private volatile boolean unsubmitted;
    private @Nullable Marker marker;
    StreamOrder.@Nullable Group group;
    /** The next future of the stream's completion queue. */
    @SuppressWarnings("unused") // through NEXT
    private @Nullable Operation<?> next;
    /** What must stay reachable until the device has finished the operation (Java memory a copy reads, a graph's replay). */
    @Nullable Object keepAlive;
    private final @Nullable T value;
    private volatile @Nullable Throwable presetFailure;

    /** An operation whose result, once the device has finished it, is {@code value}. */
    protected Operation(@Nullable T value) {
        this.value = value;
    }

    // ---------------------------------------------------------------- what the engine fills in

    /** Places this operation in {@code core}'s order. Under the stream's lock, before the queue publishes it. */
    final void bind(StreamOrder core, long sequence, @Nullable Marker marker, StreamOrder.@Nullable Group group) {
        this.core = core;
        this.sequence = sequence;
        this.marker = marker;
        this.group = group;
    }

    /** Recorded by repeated work: not submitted until the body that recorded it returns. */
    final void recordedUnsubmitted() {
        unsubmitted = true;
    }

    /** Submitted (given its place in the stream's order) or failed: waits for it may be enqueued now. */
    final void submitted() {
        unsubmitted = false;
    }

    /**
     * Refuses a wait for an operation that repeated work has recorded and not submitted yet: the wait could never end
     * (on the recording thread) or would not order anything (on the device).
     *
     * @throws IllegalStateException if the operation is recorded and not submitted yet
     */
    final void refuseWaitWhileRecorded(String what) {
        if (unsubmitted) {
            throw new IllegalStateException(what + " on " + this + ": the operation is recorded by repeated work whose"
                    + " body is still running, and is submitted only when the body returns; wait for it after"
                    + " RepeatedWork.enqueue has returned (or for the future that call returns)");
        }
    }

    /** Names the stream of an operation that has no place in its order (completed at once, or refused). */
    protected final void attach(@Nullable StreamOrder core) {
        this.core = core;
    }

    /** The result the future completes with once the device has finished the operation. */
    final @Nullable T value() {
        return value;
    }

    /** The stream's core, or null for an operation of no stream. */
    protected final @Nullable StreamOrder core() {
        return core;
    }

    /** The operation's place in its stream's order, from 1; -1 for one that has none. */
    protected final long seq() {
        return sequence;
    }

    /** The marker that completes this operation: its own or, once sealed, its group's. Null while its group is open. */
    final @Nullable Marker marker() {
        Marker m = marker;
        if (m == null) {
            StreamOrder.Group g = group;
            if (g != null) {
                m = g.marker;
            }
        }
        return m;
    }

    final @Nullable Operation<?> next() {
        return (Operation<?>) NEXT.getAcquire(this);
    }

    final void setNext(@Nullable Operation<?> f) {
        NEXT.setRelease(this, f);
    }

    /** Whether completing this operation is the last use of its marker (its own, or the last of its group). */
    final boolean releasesMarker() {
        StreamOrder.Group g = group;
        return g == null || g.lastSequence == sequence;
    }

    /**
     * Records the marker of this operation's group now if the group is still open, so that the future can complete (for
     * a device-side wait on it, or a thread that looks at it: {@link #observe()}). Takes the stream's lock if the group
     * is open.
     */
    final void seal() {
        StreamOrder.Group g = group;
        if (g != null && g.marker == null) {
            g.core.seal(g);
        }
    }

    /**
     * {@link #seal()} for a thread that looks at this future or is about to wait for it, which then tells the marker
     * ({@link Marker#awaited()}: a backend may prepare a quicker way to see it done). Not for the engine's own seals
     * (device-side waits, memory uses): no thread waits there.
     */
    protected final void observe() {
        seal();
        if (!doneRaw()) {
            Marker m = marker();
            if (m != null) {
                m.awaited();
            }
        }
    }

    /** {@link #seal()} without waiting for the stream's lock; false if it is held (the caller seals later). */
    final boolean trySeal() {
        StreamOrder.Group g = group;
        return g == null || g.marker != null || g.core.trySeal(g);
    }

    /** Whether the device has finished this operation (its stream's completed sequence has passed it). */
    final boolean deviceFinished() {
        StreamOrder c = core;
        return c == null || sequence < 0 || c.hasCompleted(sequence);
    }

    /** Whether the future is complete, without sealing its group. */
    final boolean doneRaw() {
        return super.isDone();
    }

    /**
     * Before the caller blocks for this future: completes it on the calling thread if the device finishes it within the
     * context's spin bound (see {@code StreamOrder.helpUntilDone}), so that the caller does not wait for the completion
     * thread to hand it over. The future's dependent stages, and those of the stream's earlier futures, may then run
     * on the calling thread, in stream order.
     */
    protected final void helpComplete() {
        StreamOrder c = core;
        if (c != null && sequence >= 0 && !super.isDone()) {
            c.helpUntilDone(this);
        }
    }

    /** Whether the operation's completion is observed (listeners or Flight Recorder). */
    final boolean isObserved() {
        return this instanceof Observing;
    }

    // ---------------------------------------------------------------- completion

    /** Fails the operation when it finishes with {@code failure}, whatever the device says. */
    final void presetFailure(Throwable failure) {
        this.presetFailure = failure;
    }

    /**
     * Completes the future: the device has finished the operation. A failure set before, a graph replay's host step that
     * threw, a refused group marker or refused held work fail it instead. On the completion thread.
     */
    final void finish(long nowNanos) {
        Object kept = keepAlive;
        keepAlive = null;
        Throwable failure = presetFailure;
        if (failure == null && kept instanceof Outcome replay) {
            failure = replay.failure(); // a host step of the graph threw during this replay
        }
        StreamOrder.Group g = group;
        if (failure == null && g != null) {
            failure = g.failure(); // the backend refused the group's marker
        }
        if (failure == null && marker() instanceof Outcome held) {
            failure = held.failure(); // held work the backend refused when it was submitted
        }
        try {
            if (this instanceof Observing o) {
                o.completed(failure, nowNanos); // before completing: whoever sees the future done sees it counted
            }
        } finally { // whatever escaped the observers, the future completes
            if (failure != null) {
                super.completeExceptionally(failure);
            } else {
                super.complete(value);
            }
        }
    }

    /** Completes the future at once with its value, unobserved (an operation that needs no device work). */
    protected final void finishNow() {
        super.complete(value);
    }

    /** Fails the future: its context faulted or closed, or the operation was refused. */
    protected final void fail(Throwable cause) {
        try {
            if (this instanceof Observing o) {
                o.completed(cause, System.nanoTime());
            }
        } finally {
            super.completeExceptionally(cause);
        }
    }

    /**
     * Refuses a blocking wait for this future where it would never end: on the completion thread of its context, which
     * alone completes it, and in a host function of its stream enqueued before it, which the future's work waits for.
     *
     * @throws IllegalStateException there, for a future not done yet
     */
    protected final void refuseBlockingWait(String what) {
        refuseWaitWhileRecorded(what);
        observe();
        StreamOrder c = core;
        if (c != null && !super.isDone() && (c.context().isCompletionThread() || StreamOrder.isCompletingOnThisThread())) {
            throw new IllegalStateException(what + " on " + this + " blocks the thread that completes the stream's futures"
                    + " (its completion thread, or a thread that waited for one and completes them), which alone could"
                    + " complete it; use a dependent stage (thenRun, whenComplete...) or a *Async stage");
        }
        // In a host function, the work its stream has after it (the host function's own future included) waits until the
        // function returns: waiting for it there would wait forever.
        Operation<?> host = ContextState.runningHostFunction();
        if (c != null && host != null && host.core == c && seq() >= host.seq() && !super.isDone()) {
            throw new IllegalStateException(what + " on " + this + " blocks in a host function of the same stream, for work"
                    + " enqueued after the host function: that work waits until the host function returns; use a"
                    + " dependent stage (thenRun, whenComplete...) or wait on another thread");
        }
    }

    /** Waits for this operation to complete, whatever its outcome, keeping an interrupt for the caller. */
    final void awaitQuietly() {
        boolean interrupted = false;
        while (true) {
            try {
                get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
