package dev.sluice.reactive;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
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
        /** Set by the first terminal outcome: the operation's end, or a request of {@code n <= 0}. */
        private final AtomicBoolean ended = new AtomicBoolean();
        /** Whether a valid request came: the value, once there, goes out on it. */
        private volatile boolean demanded;
        /** Whether the operation ended with a value, which goes out on demand: set before it is handed over. */
        private volatile boolean valuePending;

        Inner(CoreSubscriber<? super T> actual, @Nullable Consumer<? super T> release) {
            super(actual);
            this.release = release;
        }

        /**
         * Reactive Streams rule 3.9: {@code request(n)} with {@code n <= 0} signals {@code onError} with an
         * {@link IllegalArgumentException} (Reactor's {@code MonoSubscriber} only logs it, and a subscriber that
         * asked for nothing waited forever for a value it never got, holding it). The subscription is cancelled
         * with it: an operation already enqueued runs on, and its value, if it owns a resource, is released.
         */
        @Override
        public void request(long n) {
            if (n > 0) {
                demanded = true;
                super.request(n);
                return;
            }
            boolean first = ended.compareAndSet(false, true);
            // Not first: the operation ended and signalled (an error, an empty completion), or its value is out, or it
            // waits for a demand that never came: only then the cancel releases it, and the error ends the subscription.
            if (isCancelled() || (!first && (demanded || !valuePending))) {
                return;
            }
            super.cancel();
            actual.onError(Exceptions.nullOrNegativeRequestException(n));
        }

        @Override
        public void accept(@Nullable T value, @Nullable Throwable error) {
            if (!ended.compareAndSet(false, true)) {
                // A request of n <= 0 ended the subscription first.
                if (error == null && value != null) {
                    discard(value);
                } else if (error != null) {
                    Operators.onErrorDropped(error, actual.currentContext());
                }
                return;
            }
            if (error != null) {
                signalError(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            } else if (value == null) {
                if (!isCancelled()) {
                    actual.onComplete();
                }
            } else {
                valuePending = true;
                complete(value); // waits for demand; discards the value if cancelled
            }
        }

        /** Fails the subscription with what {@code enqueue} threw, nothing having been enqueued. */
        void fail(Throwable error) {
            if (ended.compareAndSet(false, true)) {
                signalError(error);
            } else {
                Operators.onErrorDropped(error, actual.currentContext());
            }
        }

        private void signalError(Throwable error) {
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
