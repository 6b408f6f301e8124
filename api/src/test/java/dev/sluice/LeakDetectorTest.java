package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.StreamHandle;
import dev.sluice.testing.ExpectWarning;
import java.lang.ref.Reference;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The safety net under close(): device memory whose buffers all became unreachable while open is freed in stream order,
 * once; memory closed explicitly, or still reachable through a slice, is not freed by it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeakDetectorTest {

    private final AtomicInteger frees = new AtomicInteger();

    private StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> FakeDevices.marker(() -> true);
                    case "allocate" -> FakeDevices.memory((Long) args[0]);
                    case "free" -> {
                        frees.incrementAndGet();
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    /** Collects garbage until {@code done} holds, for at most 20 s. */
    private static boolean collectUntil(BooleanSupplier done) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean() && System.nanoTime() < until) {
            System.gc();
            Thread.sleep(20);
        }
        return done.getAsBoolean();
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.leaks", containing = "LEAK: DeviceBuffer[F32 x 1024")
    void anUnreachableOpenBufferIsFreedOnce() throws Exception {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        long before = LeakDetector.leaks();
        allocateAndDrop(ctx);
        ctx.stream().enqueueMarker().join(); // moves the stream's bookkeeping past the allocation
        assertTrue(collectUntil(() -> frees.get() == 1), "the leaked buffer's memory was freed: " + frees.get() + " frees");
        assertTrue(LeakDetector.leaks() > before);
        Thread.sleep(100);
        System.gc();
        assertEquals(1, frees.get(), "freed once");
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.leaks", containing = "LEAK: DeviceBuffer[I32 x 64")
    void aClosedBufferIsNotFreedAgainAndASliceKeepsItsMemory() throws Exception {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer closed = ctx.allocate(DType.I32, 64);
        closed.close();
        assertEquals(1, frees.get());
        DeviceBuffer slice = sliceOfDropped(ctx);
        ctx.stream().enqueueMarker().join();
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(1, frees.get(), "a reachable slice keeps its buffer's memory");
        assertTrue(!slice.isClosed());
        Reference.reachabilityFence(slice);
        slice = null;
        assertTrue(collectUntil(() -> frees.get() == 2), "freed once the slice is gone too");
    }

    private static void allocateAndDrop(DeviceContext ctx) {
        ctx.allocate(DType.F32, 1024);
    }

    private static DeviceBuffer sliceOfDropped(DeviceContext ctx) {
        return ctx.allocate(DType.I32, 64).slice(0, 8);
    }
}
