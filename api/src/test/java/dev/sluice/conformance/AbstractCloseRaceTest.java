package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Api;
import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import dev.sluice.UnsupportedOnBackendException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Every public {@code close()} called by many threads at once, twice each, while other threads enqueue work that uses
 * the object: no crash, no exception but {@link ClosedResourceException} from any call, every future returned
 * completes (normally or exceptionally) exactly once within a bound, the object refuses use afterwards, and the
 * context's device memory is back where it was. Each test repeats its race a bounded number of rounds, within a few
 * seconds on the CPU simulator.
 */
public abstract class AbstractCloseRaceTest extends ConformanceBase {

    /** Threads that close the object, each calling {@code close()} twice. */
    static final int CLOSERS = 6;
    /** Threads that enqueue work using the object while it is closed. */
    static final int USERS = 2;
    /** Operations each user enqueues at most per round. */
    static final int OPS_PER_USER = 50;
    static final int ROUNDS = 20;
    /** A test stops starting rounds after this long (a slow backend runs fewer). */
    static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(3);
    /** How long the futures of a round may take to complete, together, before one counts as lost. */
    static final long LOST_SECONDS = 10;

    /** A future returned during a race, and how often a dependent registered on it ran. */
    private record Tracked(DeviceFuture<?> future, CompletableFuture<?> dependent, AtomicInteger times) {
    }

    private final Queue<Tracked> completions = new ConcurrentLinkedQueue<>();
    private final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

    private <T> DeviceFuture<T> track(DeviceFuture<T> f) {
        AtomicInteger times = new AtomicInteger();
        completions.add(new Tracked(f, f.handle((v, e) -> times.incrementAndGet()), times));
        return f;
    }

    /** Runs an action that may lose a race with {@code close()}: a ClosedResourceException is fine, nothing else is. */
    private void tolerate(Runnable action) {
        try {
            action.run();
        } catch (ClosedResourceException e) {
            // lost the race with close(): expected
        } catch (Throwable t) {
            unexpected.add(t);
        }
    }

    /**
     * One round: {@link #CLOSERS} threads each close twice, {@link #USERS} threads run {@code use} until it throws
     * ClosedResourceException or {@link #OPS_PER_USER} times, all released at once by a barrier. Fails if a thread
     * does not finish within the suite's wait bound (a hang).
     */
    private void race(AutoCloseable resource, Runnable use) {
        int n = CLOSERS + USERS;
        CyclicBarrier start = new CyclicBarrier(n);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            boolean closer = i < CLOSERS;
            threads.add(Thread.ofPlatform().name("close-race-" + (closer ? "closer-" : "user-") + i).start(() -> {
                try {
                    start.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (Exception e) {
                    unexpected.add(e);
                    return;
                }
                if (closer) {
                    tolerate(() -> {
                        try {
                            resource.close();
                            resource.close();
                        } catch (RuntimeException e) {
                            throw e;
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                } else {
                    for (int k = 0; k < OPS_PER_USER; k++) {
                        try {
                            use.run();
                        } catch (ClosedResourceException e) {
                            break;
                        } catch (Throwable t) {
                            unexpected.add(t);
                            break;
                        }
                    }
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        for (Thread t : threads) {
            try {
                if (!t.join(java.time.Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                    fail("a thread racing close() of " + resource + " hung: " + t.getName() + " at "
                            + java.util.Arrays.toString(t.getStackTrace()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Every future tracked completed exactly once, within the bound; no call threw anything unexpected. */
    private void assertNothingLost() {
        List<Throwable> bad = new ArrayList<>(unexpected);
        if (!bad.isEmpty()) {
            AssertionError e = new AssertionError(bad.size() + " calls racing close() threw something other than"
                    + " ClosedResourceException; the first: " + bad.getFirst(), bad.getFirst());
            bad.stream().skip(1).limit(5).forEach(e::addSuppressed);
            throw e;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LOST_SECONDS);
        int i = 0;
        for (Tracked t : completions) {
            try {
                t.dependent().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertEquals(1, t.times().get(), "future " + i + " completed " + t.times().get() + " times: " + t.future());
            } catch (TimeoutException e) {
                fail("future " + i + " of " + completions.size() + " returned while racing close() never completed: "
                        + t.future());
            } catch (InterruptedException | ExecutionException e) {
                throw new AssertionError(e);
            }
            i++;
        }
        completions.clear();
    }

    private long freeMemory(DeviceContext c) {
        c.synchronize();
        return c.memoryInfo().free();
    }

    /** Device memory back to {@code before}: exactly on the CPU simulator, within a memory pool's slack on GPUs. */
    private void assertMemoryBack(DeviceContext c, long before) {
        long after = freeMemory(c);
        if (target().api() == Api.CPU) {
            assertEquals(before, after, "free device memory after every buffer was closed");
        } else {
            assertTrue(before - after < (64L << 20), "free device memory fell by " + ((before - after) >> 20) + " MiB");
        }
    }

    private void rounds(Runnable round) {
        long end = System.nanoTime() + BUDGET_NANOS;
        for (int r = 0; r < ROUNDS && (r == 0 || System.nanoTime() < end); r++) {
            round.run();
        }
    }

    // ---------------------------------------------------------------- the races

    @Test
    void eventsClosedByManyThreadsAtOnceWhileStreamsRecordAndWaitForThem() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        rounds(() -> {
            DeviceEvent e = ctx.createEvent();
            track(s.enqueueRecord(e));
            AtomicInteger k = new AtomicInteger();
            race(e, () -> {
                switch (k.getAndIncrement() % 4) {
                    case 0 -> track(s.enqueueRecord(e));
                    case 1 -> track(other.waitFor(e));
                    case 2 -> e.query();
                    default -> e.synchronize();
                }
            });
            assertTrue(e.isClosed());
            assertThrows(ClosedResourceException.class, e::query);
            assertThrows(ClosedResourceException.class, e::synchronize);
            assertThrows(ClosedResourceException.class, () -> s.enqueueRecord(e));
            assertThrows(ClosedResourceException.class, () -> other.waitFor(e));
            assertNothingLost();
        });
        assertStreamUsable(s);
        assertStreamUsable(other);
    }

    @Test
    void functionsClosedByManyThreadsAtOnceWhileLaunched() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(64, 1)));
        rounds(() -> {
            DeviceFunction f = ctx.compile(TestKernels.MUL_ADD);
            race(f, () -> track(s.enqueueLaunch(f, LaunchConfig.forElements(64), v, 64L, 1, 1)));
            assertTrue(f.isClosed());
            assertThrows(ClosedResourceException.class,
                    () -> s.enqueueLaunch(f, LaunchConfig.forElements(64), v, 64L, 1, 1));
            assertNothingLost();
        });
        assertStreamUsable(s);
    }

    @Test
    void graphsClosedByManyThreadsAtOnceWhileLaunched() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(64, 1)));
        rounds(() -> {
            DeviceGraph g;
            try {
                g = s.capture(c -> c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), v, 64L, 1, 1));
            } catch (UnsupportedOnBackendException e) {
                Assumptions.abort("stream capture is not supported on " + ctx.backendName() + ": " + e.getMessage());
                return;
            }
            race(g, () -> track(g.enqueueLaunch(s)));
            assertTrue(g.isClosed());
            assertThrows(ClosedResourceException.class, () -> g.enqueueLaunch(s));
            assertNothingLost();
        });
        assertStreamUsable(s);
    }

    @Test
    void buffersClosedByManyThreadsAtOnceWhileInUseFreeTheirMemoryOnce() {
        DeviceStream s = ctx.createStream();
        long before = freeMemory(ctx);
        rounds(() -> {
            DeviceBuffer b = s.enqueueAllocate(DType.I32, 4096);
            DeviceBuffer sync = ctx.allocate(DType.I32, 4096);
            AtomicInteger k = new AtomicInteger();
            race(b, () -> {
                switch (k.getAndIncrement() % 3) {
                    case 0 -> track(s.enqueueFill(b, 7));
                    case 1 -> track(ctx.stream().enqueueCopy(b, sync));
                    default -> track(s.enqueueCopy(HostData.of(new int[4096]), b));
                }
            });
            race(sync, () -> track(s.enqueueFill(sync, 3)));
            assertTrue(b.isClosed() && sync.isClosed());
            assertThrows(ClosedResourceException.class, () -> s.enqueueFill(b, 1));
            assertNothingLost();
        });
        assertMemoryBack(ctx, before);
        assertStreamUsable(s);
    }

    @Test
    void hostBuffersClosedByManyThreadsAtOnceWhileCopiesUseThem() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = closeLater(ctx.allocate(DType.I32, 4096));
        long before = freeMemory(ctx);
        rounds(() -> {
            HostBuffer h = ctx.allocateHost(DType.I32, 4096);
            AtomicInteger k = new AtomicInteger();
            race(h, () -> track(k.getAndIncrement() % 2 == 0 ? s.enqueueCopy(h, d) : s.enqueueCopy(d, h)));
            assertTrue(h.isClosed());
            assertThrows(ClosedResourceException.class, () -> s.enqueueCopy(h, d));
            assertNothingLost();
        });
        assertMemoryBack(ctx, before);
        assertStreamUsable(s);
    }

    @Test
    void streamsClosedByManyThreadsAtOnceWhileOthersEnqueue() {
        DeviceBuffer b = closeLater(ctx.allocate(DType.I32, 4096));
        long before = freeMemory(ctx);
        rounds(() -> {
            DeviceStream s = ctx.createStream();
            AtomicInteger k = new AtomicInteger();
            race(s, () -> {
                switch (k.getAndIncrement() % 3) {
                    case 0 -> track(s.enqueueFill(b, 5));
                    case 1 -> track(s.enqueueMarker());
                    default -> s.enqueueAllocate(DType.I32, 256).close();
                }
            });
            assertTrue(s.isClosed());
            assertThrows(ClosedResourceException.class, () -> s.enqueueFill(b, 1));
            assertNothingLost();
        });
        assertMemoryBack(ctx, before);
        assertStreamUsable(ctx.stream());
    }

    @Test
    void labelScopesClosedByManyThreadsAtOnceRestoreTheLabelOnce() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = closeLater(ctx.allocate(DType.I32, 256));
        rounds(() -> {
            try (DeviceStream.LabelScope outer = s.label("outer")) {
                DeviceStream.LabelScope inner = s.label("inner");
                race(inner, () -> track(s.enqueueFill(b, 1)));
                assertEquals("outer", s.currentLabel(), "closing the inner scope, however often, restores its outer label");
            }
            assertNull(s.currentLabel());
            assertNothingLost();
        });
        assertStreamUsable(s);
    }

    @Test
    void contextsClosedByManyThreadsAtOnceWhileOthersEnqueue() {
        long end = System.nanoTime() + BUDGET_NANOS;
        for (int r = 0; r < 5 && (r == 0 || System.nanoTime() < end); r++) {
            DeviceContext c = open(ContextOptions.defaults());
            DeviceStream s = c.createStream();
            DeviceBuffer b = c.allocate(DType.I32, 4096);
            DeviceEvent e = c.createEvent();
            AtomicInteger k = new AtomicInteger();
            race(c, () -> {
                switch (k.getAndIncrement() % 4) {
                    case 0 -> track(s.enqueueFill(b, 5));
                    case 1 -> track(c.stream().enqueueCopy(HostData.of(new int[4096]), b));
                    case 2 -> track(s.enqueueRecord(e));
                    default -> c.allocate(DType.I32, 256).close();
                }
            });
            assertTrue(c.isClosed() && s.isClosed() && b.isClosed() && e.isClosed());
            assertThrows(ClosedResourceException.class, () -> s.enqueueFill(b, 1));
            assertNothingLost();
        }
        assertStreamUsable(ctx.stream());
    }
}
