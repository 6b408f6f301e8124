package dev.sluice;

import dev.sluice.engine.Operation;
import dev.sluice.engine.StreamOrder;
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
 * <p><b>Completion thread:</b> completed by the context's completion thread ({@code sluice-completion-*}), or by a
 * thread that waits for it: {@link #get()}, {@link #get(long, TimeUnit)} and {@link #join()} (so the sync façade and
 * {@code SyncStream} too) first poll the stream's completion markers on the calling thread, for at most the context's
 * {@link ContextOptions#spinNanos()} (yielding instead of spinning under {@link WaitStrategy#YIELD}, not at all under
 * {@link WaitStrategy#BLOCKING}), and complete the stream's finished futures themselves, in stream order, with the
 * same bookkeeping and listeners as the completion thread; only then do they block. That spares the wait the
 * completion thread's hand-off (seeing the marker, then waking the waiter). Never on a driver callback thread.
 * Dependent stages added without an executor ({@code thenApply}, {@code thenRun}...) run on the thread that completes
 * the future and delay every later completion of its stream while they run: keep them short, or use the
 * {@code *Async} forms. As with any {@link CompletableFuture}, such a stage may instead run on the thread that adds it
 * after completion; so the order in which dependents of different futures run is not the completion order.
 * {@link #get()} and {@link #join()} called for a future not complete yet on a thread that is completing futures (the
 * completion thread, or a dependent stage run by a waiting thread that completes them), or in a host function
 * ({@link DeviceStream#enqueueHostFunction}) of the future's stream enqueued before it, which the future's work waits
 * for, throw {@link IllegalStateException} instead of waiting for ever; {@code join()} ignores interrupts, as
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
@SuppressWarnings("exports") // its engine half is internal: users see the CompletableFuture and this class
public sealed class DeviceFuture<T> extends Operation<T> permits DeviceFuture.Observed {

    /** The future of an operation whose result will be {@code value}; its stream's engine fills in the rest. */
    DeviceFuture(@Nullable T value) {
        super(value);
    }

    /** A future that is already complete, for operations that turned out to need no device work. */
    static <T> DeviceFuture<T> completed(@Nullable T value) {
        DeviceFuture<T> f = new DeviceFuture<>(value);
        f.finishNow(); // never observed
        return f;
    }

    /** The stream the operation was enqueued on, or null for operations of no stream. */
    public @Nullable DeviceStream stream() {
        StreamOrder c = core();
        return c == null ? null : (DeviceStream) c.owner();
    }

    /** The operation's position in its stream (1 for the first), or -1 for futures of no stream operation. */
    public long sequence() {
        return seq();
    }

    // ---------------------------------------------------------------- observation
    // A future of an open marker group gets its group's marker as soon as anyone looks at it, so that an observer never
    // waits for the group to fill up (see the class comment).

    @Override
    public boolean isDone() {
        observe();
        return super.isDone();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        refuseBlockingWait("get()");
        helpComplete();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        refuseBlockingWait("get(timeout)");
        helpComplete();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        refuseBlockingWait("join()");
        helpComplete();
        return super.join();
    }

    /**
     * Seals, then refuses to wait where the wait could never end: on the completion thread of this future's context,
     * which alone completes it, for a future not complete yet.
     */
    @Override
    public T getNow(T valueIfAbsent) {
        observe();
        return super.getNow(valueIfAbsent);
    }

    @Override
    public T resultNow() {
        observe();
        return super.resultNow();
    }

    @Override
    public Throwable exceptionNow() {
        observe();
        return super.exceptionNow();
    }

    @Override
    public State state() {
        observe();
        return super.state();
    }

    @Override
    public boolean isCompletedExceptionally() {
        observe();
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
        DeviceStream s = stream();
        return "DeviceFuture[" + (s == null ? "" : s + " #" + sequence() + ", ") + super.toString() + "]";
    }

    /**
     * A future whose completion listeners or Flight Recorder events observe: what the engine tells it about its operation
     * (on the enqueuing thread, under the stream's lock) and the latency clock, read by {@link Observers} when it completes.
     */
    static final class Observed<T> extends DeviceFuture<T> implements Operation.Observing {
        private final Observers observers;
        DeviceListener[] listeners = Observers.NONE;
        OperationKind kind = OperationKind.MARKER;
        String traceKind = TraceSpan.MARKER;
        long bytes;
        long startNanos;
        Observers.@Nullable JfrOperation jfr;

        Observed(@Nullable T value, Observers observers) {
            super(value);
            this.observers = observers;
        }

        @Override
        public void enqueued(OperationKind kind, String traceKind, long bytes, @Nullable String label) {
            DeviceStream s = stream();
            if (s != null) {
                observers.enqueued(s, kind, traceKind, bytes, label, this);
            }
        }

        @Override
        public void completed(@Nullable Throwable failure, long nowNanos) {
            Observers.completed(this, failure, nowNanos);
        }
    }
}
