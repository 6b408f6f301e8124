package dev.sluice;

import dev.sluice.spi.Marker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
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
 *
 * <p><b>Read-only:</b> only the device completes it. {@link #complete}, {@link #completeExceptionally},
 * {@link #obtrudeValue}, {@link #obtrudeException} and {@link #completeAsync} throw
 * {@link UnsupportedOperationException}; {@link #orTimeout} and {@link #completeOnTimeout} apply to a
 * {@link #copy()} and return it. Dependent futures ({@code thenApply}...) are plain {@link CompletableFuture}s.
 *
 * <p><b>Cancellation:</b> {@link #cancel(boolean)} completes this future with a
 * {@link java.util.concurrent.CancellationException} for its observers and nothing more: the device
 * work goes on, later operations still wait for it, and buffers it uses stay allocated until the device
 * has finished with them. A device cannot abort one queued operation without corrupting the stream.
 *
 * <p><b>Failure:</b> a device fault completes the future exceptionally with a {@link DeviceException}.
 *
 * @param <T> the operation's result: the buffer for allocations, null ({@link Void}) for the rest
 */
public final class DeviceFuture<T> extends CompletableFuture<T> {

    private final @Nullable DeviceStream stream;
    private final long sequence;
    private static final VarHandle MARKER;
    private static final VarHandle NEXT;

    static {
        try {
            MARKER = MethodHandles.lookup().findVarHandle(DeviceFuture.class, "marker", Marker.class);
            NEXT = MethodHandles.lookup().findVarHandle(DeviceFuture.class, "next", DeviceFuture.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The completion marker recorded after the operation: set at construction, or, for a future of a marker batch
     * ({@link DeviceStream.Batch}), by {@link #sealWith} when the batch's one marker is recorded; null for futures with
     * no device work. Read through {@link #marker()}. Not volatile: the future reaches the completion thread through
     * its queue, which publishes the constructor's write, and a volatile write would put a fence on every enqueue
     * for the sake of marker batches alone.
     */
    private @Nullable Marker marker;
    /** The marker batch this future belongs to, or null where it has a marker of its own (the default). */
    final DeviceStream.@Nullable Batch batch;
    /** The next future of its stream's completion queue ({@link CompletionEngine.Queue}); read with acquire, set with release. */
    @SuppressWarnings("unused") // through NEXT
    private @Nullable DeviceFuture<?> next;
    /** Whether the completion thread releases the marker after completing this future (one future per marker does). */
    boolean ownsMarker = true;
    final @Nullable T value;
    /** Set before the marker can be seen done, for operations that ran but failed on the host side (a failed stage). */
    private volatile @Nullable Throwable presetFailure;

    DeviceFuture(@Nullable DeviceStream stream, long sequence, @Nullable Marker marker, @Nullable T value) {
        this(stream, sequence, marker, value, null);
    }

    DeviceFuture(@Nullable DeviceStream stream, long sequence, @Nullable Marker marker, @Nullable T value,
            DeviceStream.@Nullable Batch batch) {
        this.stream = stream;
        this.sequence = sequence;
        this.marker = marker;
        this.value = value;
        this.batch = batch;
    }

    /** The completion marker, or null (no device work, or a batch not recorded yet: see {@link #isUnsealed()}). */
    @Nullable Marker marker() {
        return (Marker) MARKER.getAcquire(this);
    }

    @Nullable DeviceFuture<?> next() {
        return (DeviceFuture<?>) NEXT.getAcquire(this);
    }

    void setNext(@Nullable DeviceFuture<?> f) {
        NEXT.setRelease(this, f);
    }

    /** Gives a future of a marker batch the batch's marker; {@code owns}: this future releases it. */
    void sealWith(Marker m, boolean owns) {
        ownsMarker = owns;
        MARKER.setRelease(this, m); // publishes ownsMarker too
    }

    /** Whether this future waits for a marker batch that has no marker yet. */
    boolean isUnsealed() {
        return batch != null && marker() == null;
    }

    /** A future that is already complete, for operations that turned out to need no device work. */
    static <T> DeviceFuture<T> completed(@Nullable DeviceStream stream, @Nullable T value) {
        DeviceFuture<T> f = new DeviceFuture<>(stream, -1, null, value);
        f.finish();
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

    // Completion by the engine only.
    void finish() {
        Throwable failure = presetFailure;
        if (failure == null && marker instanceof HoldingStream.HeldMarker held) {
            failure = held.failure(); // held work the backend refused when it was submitted
        }
        if (failure != null) {
            super.completeExceptionally(failure);
        } else {
            super.complete(value);
        }
    }

    void presetFailure(Throwable failure) {
        this.presetFailure = failure;
    }

    void fail(Throwable cause) {
        super.completeExceptionally(cause);
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

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }

    private static UnsupportedOperationException readOnly() {
        return new UnsupportedOperationException("a DeviceFuture is completed by the device only; use copy() for a future you can complete");
    }

    @Override
    public String toString() {
        return "DeviceFuture[" + (stream == null ? "" : stream + " #" + sequence + ", ") + super.toString() + "]";
    }
}
