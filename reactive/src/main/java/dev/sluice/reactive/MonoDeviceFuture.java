package dev.sluice.reactive;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.core.CoreSubscriber;
import reactor.core.Scannable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * The {@code Mono} of one device operation: calls {@code enqueue} on subscription and signals when the
 * returned future completes. Unlike {@code Mono.fromFuture}, cancelling never cancels the future: a
 * cancelled {@link dev.sluice.DeviceFuture} completes early for all its observers, and the API's own
 * observers (the one that keeps a copied Java array reachable until the device is done with it, the use
 * tracking that delays frees) must see the real completion.
 */
final class MonoDeviceFuture<T> extends Mono<T> implements Scannable {

    private final Supplier<? extends CompletableFuture<? extends @Nullable T>> enqueue;
    private final @Nullable Consumer<? super T> release;

    MonoDeviceFuture(Supplier<? extends CompletableFuture<? extends @Nullable T>> enqueue, @Nullable Consumer<? super T> release) {
        this.enqueue = enqueue;
        this.release = release;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        Inner<T> inner = new Inner<>(actual, release);
        actual.onSubscribe(inner);
        if (inner.isCancelled()) {
            return; // cancelled before anything was enqueued: nothing to do
        }
        CompletableFuture<? extends @Nullable T> f;
        try {
            f = Objects.requireNonNull(enqueue.get(), "the enqueue function returned null");
        } catch (Throwable t) {
            // Thrown at the call (bad argument, closed stream, faulted context): nothing was enqueued.
            inner.fail(Operators.onOperatorError(t, actual.currentContext()));
            return;
        }
        f.whenComplete(inner);
    }

    @Override
    @SuppressWarnings("rawtypes") // reactor's Scannable declares the key raw
    public @Nullable Object scanUnsafe(Attr key) {
        if (key == Attr.RUN_STYLE) {
            return Attr.RunStyle.ASYNC;
        }
        return null;
    }

    static final class Inner<T> extends Operators.MonoSubscriber<T, T> implements BiConsumer<@Nullable T, @Nullable Throwable> {

        private final @Nullable Consumer<? super T> release;

        Inner(CoreSubscriber<? super T> actual, @Nullable Consumer<? super T> release) {
            super(actual);
            this.release = release;
        }

        @Override
        public void accept(@Nullable T value, @Nullable Throwable error) {
            if (error != null) {
                fail(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            } else if (value == null) {
                if (!isCancelled()) {
                    actual.onComplete();
                }
            } else {
                complete(value); // waits for demand; discards the value if cancelled
            }
        }

        void fail(Throwable error) {
            if (isCancelled()) {
                Operators.onErrorDropped(error, actual.currentContext());
            } else {
                actual.onError(error);
            }
        }

        @Override
        protected void discard(@Nullable T v) {
            if (v != null && release != null) {
                release.accept(v);
            } else {
                super.discard(v);
            }
        }
    }
}
