package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** DeviceContext.close() returns even while a dependent stage keeps the completion thread busy, and loses no future. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ContextCloseTest {

    private static StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(ContextCloseTest.class.getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> FakeDevices.marker(() -> true);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    @Test
    void closeReturnsWhileADependentStageBlocksTheCompletionThreadAndThePendingFuturesFailLater() throws Exception {
        DeviceContext ctx;
        System.setProperty("sluice.close.futuresMillis", "300");
        try {
            ctx = FakeDevices.open(Api.CPU, n -> stream());
        } finally {
            System.clearProperty("sluice.close.futuresMillis");
        }
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        s.enqueueMarker().thenRun(() -> { // runs on the completion thread, once the gate opens
            stuck.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        gate.complete(null);
        assertTrue(stuck.await(10, TimeUnit.SECONDS), "the stage started");
        DeviceFuture<Void> after = s.enqueueMarker(); // cannot complete while the completion thread is stuck

        long t0 = System.nanoTime();
        ctx.close();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < 5_000, "close() took " + ms + " ms with the completion thread stuck in a stage");
        assertTrue(ctx.isClosed());

        release.countDown();
        try {
            after.get(10, TimeUnit.SECONDS); // the device had finished it: it may complete normally once the thread is free
        } catch (java.util.concurrent.ExecutionException e) {
            assertTrue(e.getCause() instanceof ClosedResourceException, "or fail with the close: " + e);
        }
        assertTrue(after.isDone(), "the future still pending at close is not lost");
    }
}
