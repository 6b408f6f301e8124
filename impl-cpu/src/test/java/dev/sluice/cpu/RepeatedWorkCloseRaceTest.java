package dev.sluice.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import dev.sluice.RepeatedWork;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.UpdatableGraph;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A repeated work's close racing its context's close: the graph's destruction, a backend call on the context, must reach
 * the backend before the native context is closed, or a GPU driver is asked to destroy a graph of a context it has
 * destroyed already. The simulator's context, seen through a backend that notes the order and holds the destruction.
 */
class RepeatedWorkCloseRaceTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aGraphDestroyedOnAnotherThreadIsDestroyedBeforeTheContextIsClosed() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch destroying = new CountDownLatch(1);
        CountDownLatch finishDestroy = new CountDownLatch(1);
        ContextHandle cpu = new CpuBackend().open(0, ContextOptions.defaults());
        ContextHandle noted = proxy(ContextHandle.class, cpu, (method, result) -> {
            if (method.equals("close")) {
                events.add("context closed");
            }
            if (method.equals("buildGraph")) {
                UpdatableGraph g = (UpdatableGraph) result;
                return proxy(UpdatableGraph.class, g, (m, r) -> r, () -> {
                    events.add("destroy begins");
                    destroying.countDown();
                    await(finishDestroy);
                }, () -> events.add("destroy ends"));
            }
            return result;
        }, () -> { }, () -> { });
        DeviceContext ctx = open(noted);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = ctx.allocate(DType.I32, 16);
        RepeatedWork w = s.repeatedWork();
        w.enqueue(c -> c.enqueueFill(v, 1)).join();
        assertEquals(1, w.builds());
        CompletableFuture<Void> workClose = CompletableFuture.runAsync(w::close, Thread::startVirtualThread);
        await(destroying);
        CompletableFuture<Void> contextClose = CompletableFuture.runAsync(ctx::close, Thread::startVirtualThread);
        try {
            contextClose.get(500, TimeUnit.MILLISECONDS); // without the wait for the destruction it ends here
        } catch (java.util.concurrent.TimeoutException expected) {
            // it waits for the destruction in flight
        }
        finishDestroy.countDown();
        workClose.get(30, TimeUnit.SECONDS);
        contextClose.get(30, TimeUnit.SECONDS);
        assertEquals(List.of("destroy begins", "destroy ends", "context closed"), events,
                "the graph is destroyed before the context is closed");
        assertTrue(w.isClosed());
    }

    /** What a proxy does after the call to the real object, and around a {@code destroy}. */
    private interface After {
        Object apply(String method, Object result);
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, T real, After after, Runnable beforeDestroy, Runnable afterDestroy) {
        InvocationHandler h = (p, m, a) -> {
            boolean destroy = m.getName().equals("destroy");
            if (destroy) {
                beforeDestroy.run();
            }
            Object r;
            try {
                r = m.invoke(real, a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (destroy) {
                afterDestroy.run();
            }
            return after.apply(m.getName(), r);
        };
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h);
    }

    /** A public context over {@code handle}, as {@code DeviceContext.open} makes one over a backend's. */
    private static DeviceContext open(ContextHandle handle) throws ReflectiveOperationException {
        Constructor<DeviceContext> c = DeviceContext.class.getDeclaredConstructor(String.class, int.class,
                ContextHandle.class, ContextOptions.class);
        c.setAccessible(true);
        return c.newInstance("cpu", 0, handle, ContextOptions.defaults());
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS), "timed out");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
