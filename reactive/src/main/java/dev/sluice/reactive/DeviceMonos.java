package dev.sluice.reactive;

import dev.sluice.DeviceFuture;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Adapters between {@link DeviceFuture}s and {@link Mono}s, for operations {@link ReactiveStream} does not
 * cover (a library's own enqueue methods, a {@link dev.sluice.DeviceGraph} launch).
 *
 * <ul>
 * <li><b>Ordering:</b> that of the stream the operation is enqueued on.
 * <li><b>Completion thread:</b> signals arrive on the context's completion thread
 * ({@code sluice-completion-*}), or on the subscribing thread if the operation had already finished.
 * <li><b>Cancellation:</b> cancelling the {@code Mono} only stops its signals; it never cancels the
 * {@link DeviceFuture} (which would complete it early for the API's own observers), and the device work
 * goes on. A {@code request(n)} with {@code n <= 0} cancels the same way and signals {@code onError} with an
 * {@link IllegalArgumentException} (Reactive Streams rule 3.9), releasing a value not yet delivered. The same holds
 * for the {@code Mono}s of {@link ReactiveStream}, {@link DevicePlan} and {@link RepeatedPlan}.
 * <li><b>Resources:</b> see each method.
 * </ul>
 */
public final class DeviceMonos {

    private DeviceMonos() {
    }

    /**
     * A cold {@code Mono}: each subscription calls {@code enqueue}, which enqueues one operation and returns
     * its future, and the {@code Mono} signals when the device has finished it: {@code onNext} with the
     * future's value if it has one (for {@code Void} operations only {@code onComplete}), or {@code onError}
     * with the failure. An exception thrown by {@code enqueue} (a bad argument, a closed stream) is signalled
     * as {@code onError}, with nothing enqueued.
     */
    public static <T> Mono<T> enqueue(Supplier<? extends DeviceFuture<? extends T>> enqueue) {
        return new MonoDeviceFuture<T>(Objects.requireNonNull(enqueue, "enqueue"), null);
    }

    /**
     * As {@link #enqueue(Supplier)}, for operations whose value owns a resource (a buffer): if the
     * subscriber cancels before the value is delivered, {@code release} is called with it (for
     * {@link dev.sluice.DeviceBuffer#close()}, which frees only after the device's uses of the buffer).
     */
    public static <T> Mono<T> enqueue(Supplier<? extends DeviceFuture<? extends T>> enqueue, Consumer<? super T> release) {
        return new MonoDeviceFuture<T>(Objects.requireNonNull(enqueue, "enqueue"),
                Objects.requireNonNull(release, "release"));
    }

    /**
     * A {@code Mono} over an operation already enqueued (hot): every subscriber sees the same completion.
     * Cancelling a subscription does not cancel {@code future}.
     */
    public static <T> Mono<T> from(DeviceFuture<? extends T> future) {
        Objects.requireNonNull(future, "future");
        return new MonoDeviceFuture<T>(() -> future, null);
    }
}
