package dev.sluice;

import dev.sluice.spi.Marker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The future of one enqueued operation: it completes when the device has finished the operation, and
 * only then. Futures of one stream complete in the order their operations were enqueued.
 *
 * <p><b>Completion thread:</b> completed by the context's completion thread ({@code sluice-completion-*}),
 * never by the caller and never on a driver callback thread. Dependent stages added without an
 * executor ({@code thenApply}, {@code thenRun}...) run on that thread and delay every later completion of
 * the context while they run: keep them short, or use the {@code *Async} forms. As with any
 * {@link CompletableFuture}, such a stage may instead run on the thread that adds it after completion, or
 * on a thread blocked in {@code get()}/{@code join()} on this future when it completes (which helps run its
 * dependents); so the order in which dependents of different futures run is not the completion order.
 * {@link #get()} and {@link #join()} called on the completion thread for a future not complete yet throw
 * {@link IllegalStateException} instead of waiting for ever; {@code join()} ignores interrupts, as
 * {@link CompletableFuture#join()} does: use {@link #get()} for a wait that an interrupt ends.
 *
 * <p><b>Read-only:</b> only the device completes it. {@link #complete}, {@link #completeExceptionally},
 * {@link #obtrudeValue}, {@link #obtrudeException} and {@link #completeAsync} throw
 * {@link UnsupportedOperationException}; {@link #orTimeout} and {@link #completeOnTimeout} apply to a
 * {@link #copy()} and return it. Dependent futures ({@code thenApply}...) are plain {@link CompletableFuture}s.
 *
 * <p><b>Cancellation:</b> observer-only. {@link #cancel(boolean)} completes this future with a
 * {@link java.util.concurrent.CancellationException} for its observers and nothing more: the device
 * work goes on, later operations and {@link DeviceStream#waitFor(DeviceFuture) waits} of other streams still
 * wait for it, and memory it uses (device buffers, pinned host buffers, Java arrays) stays allocated until the
 * device has finished with it. Sluice's own bookkeeping never looks at this future's state: it follows the
 * stream's completed sequence, which only the device moves. A device cannot abort one queued operation without
 * corrupting the stream.
 *
 * <p><b>When it completes:</b> consecutive operations enqueued while earlier work of their stream is pending
 * may share one completion marker (at most {@link ContextOptions#markerBatch()} operations, 64 by default), so a
 * future may complete as late as the completion of the last operation of its group, never before its own. An
 * operation enqueued on a stream with nothing pending has a marker of its own. A group's marker is recorded at once
 * when a thread looks at or waits for one of its futures: {@link #isDone}, {@link #get}, {@link #join},
 * {@link #getNow}, {@link #resultNow}, {@link #exceptionNow}, {@link #state}, {@link #isCompletedExceptionally}, a
 * {@link DeviceStream#waitFor(DeviceFuture)} of another stream, or {@link DeviceStream#synchronize()}; otherwise
 * when the group holds {@code markerBatch} operations, or by the completion thread once no operation has joined the
 * group for 2 µs. Dependent stages ({@code thenRun}, {@code whenComplete}, a {@code Mono} over the future,
 * {@link CompletableFuture#allOf}...) wait for no thread and record nothing. So a future that a thread waits for
 * completes when the operations enqueued up to that moment have finished; and any future completes at the latest
 * when its group has, its group being sealed at most {@code markerBatch - 1} operations after it or 2 µs (plus the
 * completion thread's pause, see {@link WaitStrategy}) after its caller stopped enqueuing.
 *
 * <p><b>Failure:</b> a device fault completes the future exceptionally with a {@link DeviceException}.
 *
 * @param <T> the operation's result: the buffer for allocations, null ({@link Void}) for the rest
 */
public sealed class DeviceFuture<T> extends CompletableFuture<T> permits DeviceFuture.Observed {

    private final @Nullable DeviceStream stream;
    private final long sequence;
    private static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(DeviceFuture.class, "next", DeviceFuture.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The completion marker recorded after the operation, or null where the operation shares its group's marker
     * ({@link #group}) or has no device work. Final in spirit: written before the future is published through its
     * stream's queue.
     */
    private final @Nullable Marker marker;
    /** The marker group this future belongs to, or null where it has a marker of its own. */
    final StreamCore.@Nullable Group group;
    /** The next future of its stream's completion queue ({@link CompletionQueue}); read with acquire, set with release. */
    @SuppressWarnings("unused") // through NEXT
    private @Nullable DeviceFuture<?> next;
    /**
     * What the device reads or writes for this operation and the caller may drop (a Java array's segment): held here
     * until the device has finished, then cleared by the completion thread. Cancelling the future does not clear it.
     */
    @Nullable Object keepAlive;
    final @Nullable T value;
    /** Set before the marker can be seen done, for operations that ran but failed on the host side (a failed stage). */
    private volatile @Nullable Throwable presetFailure;

    DeviceFuture(@Nullable DeviceStream stream, long sequence, @Nullable Marker marker, @Nullable T value) {
        this(stream, sequence, marker, value, null);
    }

    DeviceFuture(@Nullable DeviceStream stream, long sequence, @Nullable Marker marker, @Nullable T value,
            StreamCore.@Nullable Group group) {
        this.stream = stream;
        this.sequence = sequence;
        this.marker = marker;
        this.value = value;
        this.group = group;
    }

    /** The completion marker: its own, or its group's once sealed; null for a group not sealed yet or no device work. */
    @Nullable Marker marker() {
        Marker m = marker;
        if (m == null) {
            StreamCore.Group g = group;
            if (g != null) {
                m = g.marker;
            }
        }
        return m;
    }

    @Nullable DeviceFuture<?> next() {
        return (DeviceFuture<?>) NEXT.getAcquire(this);
    }

    void setNext(@Nullable DeviceFuture<?> f) {
        NEXT.setRelease(this, f);
    }

    /** Whether the completion thread releases the marker after completing this future: one future per marker does. */
    boolean releasesMarker() {
        StreamCore.Group g = group;
        return g == null || g.lastSequence == sequence;
    }

    /** Records this future's marker now if its group is still open, so that it can be waited on or will complete. */
    void seal() {
        StreamCore.Group g = group;
        if (g != null && g.marker == null) {
            g.core.seal(g);
        }
    }

    /**
     * {@link #seal()} without waiting for its stream's lock: false if another thread holds it (then nothing is sealed).
     */
    boolean trySeal() {
        StreamCore.Group g = group;
        return g == null || g.marker != null || g.core.trySeal(g);
    }

    /**
     * Whether the device has finished this future's operation, by its stream's completed sequence: what Sluice itself
     * goes by. The future's own state may say more (cancelled) or less (its stages still running).
     */
    boolean deviceFinished() {
        DeviceStream s = stream;
        return s == null || sequence < 0 || s.core.hasCompleted(sequence);
    }

    /** A future that is already complete, for operations that turned out to need no device work. */
    static <T> DeviceFuture<T> completed(@Nullable DeviceStream stream, @Nullable T value) {
        DeviceFuture<T> f = new DeviceFuture<>(stream, -1, null, value);
        f.finish(0); // never observed
        return f;
    }

    /** A future already failed, for operations captured into a graph and similar non-runs. */
    static <T> DeviceFuture<T> failed(@Nullable DeviceStream stream, Throwable cause) {
        DeviceFuture<T> f = new DeviceFuture<>(stream, -1, null, null);
        f.fail(cause);
        return f;
    }

    /** The stream the operation was enqueued on, or null for operations of no stream. */
    public @Nullable DeviceStream stream() {
        return stream;
    }

    /** The operation's position in its stream (1 for the first), or -1 for futures of no stream operation. */
    public long sequence() {
        return sequence;
    }

    /**
     * Completion by the engine only. {@code nowNanos}: the clock when the engine saw the operation's marker done, read once
     * for every observed future of a pass (0 when none of them is observed).
     */
    void finish(long nowNanos) {
        Object kept = keepAlive;
        keepAlive = null;
        Throwable failure = presetFailure;
        if (failure == null && kept instanceof GraphHostSteps.Replay replay) {
            failure = replay.failure(); // a host step of the graph threw during this replay
        }
        if (failure == null && group != null) {
            failure = group.failure; // the backend refused the group's marker
        }
        if (failure == null && marker() instanceof HoldingStream.HeldMarker held) {
            failure = held.failure(); // held work the backend refused when it was submitted
        }
        try {
            report(failure, nowNanos); // before completing: whoever sees the future done sees it counted
        } finally { // whatever escaped the observers, the future completes
            if (failure != null) {
                super.completeExceptionally(failure);
            } else {
                super.complete(value);
            }
        }
    }

    /** Whether listeners observe this operation: its engine then reads the clock for it ({@link #finish(long)}). */
    boolean isObserved() {
        return this instanceof Observed;
    }

    /**
     * Tells the observers, if any. Once: the completion thread takes each queued future from its queue once, then either
     * finishes or fails it; a future failed before publication is never queued.
     */
    private void report(@Nullable Throwable failure, long nowNanos) {
        if (this instanceof Observed<T> o) {
            Observers.completed(o, failure, nowNanos);
        }
    }

    void presetFailure(Throwable failure) {
        this.presetFailure = failure;
    }

    /** Fails the future: by the completion thread, for a queued one ({@link StreamCore#failPending}), or before publication. */
    void fail(Throwable cause) {
        try {
            if (isObserved()) {
                report(cause, System.nanoTime());
            }
        } finally {
            super.completeExceptionally(cause);
        }
    }

    // ---------------------------------------------------------------- observation
    // A future of an open marker group gets its group's marker as soon as anyone looks at it, so that an observer never
    // waits for the group to fill up (see the class comment).

    @Override
    public boolean isDone() {
        seal();
        return super.isDone();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        refuseBlockingWait("get()");
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        refuseBlockingWait("get(timeout)");
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        refuseBlockingWait("join()");
        return super.join();
    }

    /**
     * Seals, then refuses to wait where the wait could never end: on the completion thread of this future's context,
     * which alone completes it, for a future not complete yet.
     */
    private void refuseBlockingWait(String what) {
        seal();
        DeviceStream s = stream;
        if (s != null && !super.isDone() && s.context().engine.isCompletionThread()) {
            throw new IllegalStateException(what + " on " + this + " blocks the completion thread, which alone completes it;"
                    + " use a dependent stage (thenRun, whenComplete...) or a *Async stage");
        }
    }

    @Override
    public T getNow(T valueIfAbsent) {
        seal();
        return super.getNow(valueIfAbsent);
    }

    @Override
    public T resultNow() {
        seal();
        return super.resultNow();
    }

    @Override
    public Throwable exceptionNow() {
        seal();
        return super.exceptionNow();
    }

    @Override
    public State state() {
        seal();
        return super.state();
    }

    @Override
    public boolean isCompletedExceptionally() {
        seal();
        return super.isCompletedExceptionally();
    }

    /**
     * Every dependent stage ({@code thenApply}, {@code whenComplete}, {@code copy()}...) is created here. It does not
     * record the group's marker: a stage waits for no thread, and the completion thread records a group's marker once it
     * has stopped growing for 2 µs, so a caller that registers a stage on every operation while streaming them pays no
     * marker per operation (see the class comment for the bound).
     */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }

    @Override
    public boolean complete(@Nullable T v) {
        throw readOnly();
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        throw readOnly();
    }

    @Override
    public void obtrudeValue(@Nullable T v) {
        throw readOnly();
    }

    @Override
    public void obtrudeException(Throwable ex) {
        throw readOnly();
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
        throw readOnly();
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier) {
        throw readOnly();
    }

    /** Applies the timeout to a {@link #copy()} of this future and returns the copy; this future is not changed. */
    @Override
    public CompletableFuture<T> orTimeout(long timeout, TimeUnit unit) {
        return copy().orTimeout(timeout, unit);
    }

    /** Applies the timeout to a {@link #copy()} of this future and returns the copy; this future is not changed. */
    @Override
    public CompletableFuture<T> completeOnTimeout(@Nullable T v, long timeout, TimeUnit unit) {
        return copy().completeOnTimeout(v, timeout, unit);
    }

    private static UnsupportedOperationException readOnly() {
        return new UnsupportedOperationException("a DeviceFuture is completed by the device only; use copy() for a future you can complete");
    }

    @Override
    public String toString() {
        return "DeviceFuture[" + (stream == null ? "" : stream + " #" + sequence + ", ") + super.toString() + "]";
    }

    /**
     * The future of an operation that listeners or a Flight Recorder recording observe ({@link Observers}): it carries
     * what they are told when the engine finishes or fails it, so that observing an operation costs no object beside its
     * future. Its fields are written before the future is published through its stream's queue, whose release orders
     * them; the completion thread alone reads them, as it alone finishes and fails queued futures. A user's
     * {@code cancel} is not a completion: the device still runs the operation, and the observers hear when the engine
     * finishes it.
     */
    static final class Observed<T> extends DeviceFuture<T> {
        final DeviceListener[] listeners;
        /** A {@link TraceSpan} kind or the {@link DeviceFunction} launched. */
        final Object kind;
        final long bytes;
        final long startNanos;
        final Observers.@Nullable JfrOperation jfr;

        Observed(DeviceStream stream, long sequence, @Nullable Marker marker, @Nullable T value,
                StreamCore.@Nullable Group group, Observers.Observation o) {
            super(stream, sequence, marker, value, group);
            this.listeners = o.listeners;
            this.kind = o.kind;
            this.bytes = o.bytes;
            this.startNanos = o.startNanos;
            this.jfr = o.jfr;
        }
    }
}
