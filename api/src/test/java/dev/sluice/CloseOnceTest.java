package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.spi.EventHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code close()} of events, functions and graphs called by many threads at once destroys the backend object exactly
 * once (a second destroy of a CUDA event is a use after free in the driver), and later use is refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CloseOnceTest {

    private static final int THREADS = 6;
    private static final int ROUNDS = 1000;
    /** A test stops starting rounds after this long. */
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(3);

    private final DeviceContext ctx = FakeDevices.open(Api.CUDA, n -> (StreamHandle) Proxy.newProxyInstance(
            CloseOnceTest.class.getClassLoader(), new Class<?>[] {StreamHandle.class}, (p, m, a) -> null));

    /** Every thread closes {@code c} twice, all released at once. */
    private static void closeFromManyThreads(AutoCloseable c) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < THREADS; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    c.close();
                    c.close();
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.getFirst());
        }
    }

    @Test
    void anEventIsDestroyedOnceHoweverManyThreadsCloseIt() throws Exception {
        long end = System.nanoTime() + BUDGET_NANOS;
        for (int r = 0; r < ROUNDS && System.nanoTime() < end; r++) {
            AtomicInteger destroyed = new AtomicInteger();
            EventHandle h = FakeDevices.event(destroyed::incrementAndGet);
            DeviceEvent e = new DeviceEvent(ctx, h, Set.of());
            closeFromManyThreads(e);
            assertEquals(1, destroyed.get(), "cuEventDestroy calls in round " + r);
            assertThrows(ClosedResourceException.class, e::query);
            assertThrows(ClosedResourceException.class, e::synchronize);
        }
    }

    @Test
    void aFunctionIsUnloadedOnceHoweverManyThreadsCloseIt() throws Exception {
        long end = System.nanoTime() + BUDGET_NANOS;
        for (int r = 0; r < ROUNDS && System.nanoTime() < end; r++) {
            AtomicInteger unloaded = new AtomicInteger();
            FunctionHandle h = new FunctionHandle() {
                @Override
                public Optional<String> assembly() {
                    return Optional.empty();
                }

                @Override
                public void unload() {
                    unloaded.incrementAndGet();
                }
            };
            DeviceFunction f = new DeviceFunction(ctx, Kernel.named("k").java(t -> { }).build(), h);
            closeFromManyThreads(f);
            assertEquals(1, unloaded.get(), "unloads in round " + r);
            assertThrows(ClosedResourceException.class, () -> f.attribute(FunctionAttribute.REGISTERS));
        }
    }

    @Test
    void aGraphIsDestroyedOnceHoweverManyThreadsCloseIt() throws Exception {
        long end = System.nanoTime() + BUDGET_NANOS;
        for (int r = 0; r < ROUNDS && System.nanoTime() < end; r++) {
            AtomicInteger destroyed = new AtomicInteger();
            GraphHandle h = new GraphHandle() {
                @Override
                public void launch(StreamHandle stream) {
                }

                @Override
                public void destroy() {
                    destroyed.incrementAndGet();
                }
            };
            DeviceGraph g = new DeviceGraph(ctx, EngineAccess.capturedGraph(ctx, h));
            closeFromManyThreads(g);
            assertEquals(1, destroyed.get(), "cuGraphExecDestroy calls in round " + r);
            assertThrows(ClosedResourceException.class, () -> g.enqueueLaunch(ctx.stream()));
        }
    }
}
