package dev.sluice.engine;

import dev.sluice.ContextOptions;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The lock-free parts of the engine as its jcstress tests (the {@code sluice-stress} module) drive them: stream cores
 * with no device and no completion thread (the test's actors call {@link #advance} themselves), the completion queue
 * and the completion thread's sleep handshake, a use tracker, and what the tests read back from an operation. For
 * those tests only: nothing else calls it, and it makes no promise beyond them.
 *
 * <p>It lives in the api module's test sources, in the engine's package so that it reaches the package-private parts
 * the tests drive, and reaches the stress module through the api's test-jar: the product jar does not carry it. Those
 * tests run on the class path, where the two jars' {@code dev.sluice.engine} classes share one package; the api's own
 * build compiles it, so a change to the engine that breaks it shows there.
 */
public final class StressProbe {

    private StressProbe() {
    }

    /**
     * The one context of every stress core: its completion thread never starts, so a core's wake-up after queuing an
     * operation finds nothing sleeping and does nothing, and its native context refuses every call.
     */
    private static final ContextRuntime CONTEXT = detachedContext();
    /** The public side of the stress tests' streams: only named. */
    private static final PublicStream STRESS_STREAM = new PublicStream() {
        @Override
        public String toString() {
            return "stress stream";
        }
    };

    private static ContextRuntime detachedContext() {
        ContextHandle none = (ContextHandle) Proxy.newProxyInstance(StressProbe.class.getClassLoader(),
                new Class<?>[] {ContextHandle.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException("a stress test's context has no device: " + method.getName());
                });
        return new ContextRuntime("stress context", "stress", "stress", none, ContextOptions.defaults(),
                new ContextRuntime.Events() {
                    @Override
                    public void faulted(Throwable cause) {
                    }

                    @Override
                    public void allocated(long bytes) {
                    }

                    @Override
                    public void freed(long bytes) {
                    }
                });
    }

    /**
     * A stream core over {@code stream}, at most {@code groupBound} operations per marker, that no completion thread
     * polls: the test's actors call {@link #advance} themselves. Cheap enough for the millions of states a test makes.
     */
    public static StreamOrder core(StreamHandle stream, int groupBound) {
        return new StreamOrder(stream, CONTEXT, groupBound, STRESS_STREAM);
    }

    /** Enqueues an operation with no device work on {@code core} (taking its lock), as every enqueue marks one. */
    public static Operation<Void> enqueue(StreamOrder core) {
        core.lock();
        try {
            return core.mark(new InternalOperation(), null);
        } finally {
            core.unlock();
        }
    }

    /** One pass of the completion thread over {@code core}. */
    public static int advance(StreamOrder core) {
        return core.advance();
    }

    /** {@link StreamOrder#afterCompleted}. */
    public static void afterCompleted(StreamOrder core, long sequence, Runnable action) {
        core.afterCompleted(sequence, action);
    }

    /** A completion queue, one producer and one consumer, as a stream has. */
    public static final class Queue {
        private final CompletionQueue queue = new CompletionQueue();

        /** Adds {@code f} (the producer, under a stream's lock in the engine). */
        public void add(Operation<?> f) {
            queue.add(f);
        }

        /** Takes the oldest operation, or null (the consumer, the completion thread in the engine). */
        public @Nullable Operation<?> poll() {
            return queue.poll();
        }
    }

    /**
     * A stream's completion queue and the completion thread's sleep handshake, as {@code CompletionPoller} uses them:
     * an enqueue queues a future and then asks whether to wake the thread; the thread settles to sleep and then takes
     * its last look at the queue.
     */
    public static final class Sleep {
        private final CompletionQueue queue = new CompletionQueue();
        private final SleepHandshake sleep = new SleepHandshake();

        /** Queues {@code f} (under a stream's lock in the engine); whether the enqueue then wakes the thread. */
        public boolean enqueue(Operation<?> f) {
            queue.add(f);
            return sleep.mustWake();
        }

        /** The thread settles to sleep; whether its last look then finds a future queued (it does not park). */
        public boolean settle() {
            sleep.settle();
            return !queue.isEmpty();
        }
    }

    /** An operation with {@code sequence}, its own {@code marker}, {@code value} and {@code keepAlive}, not yet queued. */
    public static Operation<Object> operation(long sequence, Marker marker, @Nullable Object value,
            @Nullable Object keepAlive) {
        Operation<Object> f = new Operation<>(value) {
        };
        f.bind(null, sequence, marker, null);
        f.keepAlive = keepAlive;
        return f;
    }

    /** The operation's sequence. */
    public static long sequence(Operation<?> f) {
        return f.seq();
    }

    /** The operation's value, which its future completes with. */
    public static @Nullable Object value(Operation<?> f) {
        return f.value();
    }

    /** What the operation keeps reachable until the device has finished it. */
    public static @Nullable Object keepAlive(Operation<?> f) {
        return f.keepAlive;
    }

    /** The operation's marker (its own, or its group's once sealed), or null. */
    public static @Nullable Marker marker(Operation<?> f) {
        return f.marker();
    }

    /** The last sequence of the operation's marker group; -1 for an operation with a marker of its own. */
    public static long groupLastSequence(Operation<?> f) {
        StreamOrder.Group g = f.group;
        return g == null ? -1 : g.lastSequence;
    }

    /** The backend's refusal of the operation's group marker, or null. */
    public static @Nullable Throwable groupFailure(Operation<?> f) {
        StreamOrder.Group g = f.group;
        return g == null ? null : g.failure();
    }

    /** A use tracker, as every allocation has, and the closed flag its owner sets. */
    public static final class Uses {
        private final UseTracker uses = new UseTracker();
        private final AtomicBoolean closed = new AtomicBoolean();

        /** Claims the memory for an enqueue on {@code core}, noting {@code core}'s next operation as its use. */
        public boolean enqueue(StreamOrder core) {
            core.lock();
            try {
                if (!uses.claimIfOpen(closed)) {
                    return false;
                }
                uses.noteUse(core, core.mark(new InternalOperation(), null));
                return true;
            } finally {
                core.unlock();
            }
        }

        /** Closes the memory, as a free does; the count of pending uses it then waits for, or -1 if closed before. */
        public int close() {
            return closed.compareAndSet(false, true) ? uses.pendingUses(null).size() : -1;
        }
    }
}
