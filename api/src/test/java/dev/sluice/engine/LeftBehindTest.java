package dev.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.EngineAccess;
import dev.sluice.FakeDevices;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.StreamHandle;
import dev.sluice.testing.ExpectWarning;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a timed-out close keeps for other contexts' pending work: the memory is freed, and then the native context
 * closed, only once that work has finished on the device or its own context's close has dropped it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeftBehindTest {

    private static StreamHandle stream(AtomicBoolean done) {
        return (StreamHandle) Proxy.newProxyInstance(LeftBehindTest.class.getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> FakeDevices.marker(done::get);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    /** A native context handle whose close counts down {@code closed}. */
    private static ContextHandle handle(CountDownLatch closed) {
        return (ContextHandle) Proxy.newProxyInstance(LeftBehindTest.class.getClassLoader(), new Class<?>[] {ContextHandle.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        closed.countDown();
                    }
                    return null;
                });
    }

    @ExpectWarning(logger = "dev.sluice.engine.LeftBehind", containing = "kept allocated")
    @Test
    void keptMemoryIsFreedAndTheNativeContextClosedOnlyAfterTheOtherContextsWorkFinishes() throws Exception {
        AtomicBoolean deviceDone = new AtomicBoolean();
        DeviceContext other = FakeDevices.open(Api.CPU, n -> stream(deviceDone));
        DeviceFuture<Void> use = other.createStream().enqueueMarker(); // pending until the fake device is done
        CountDownLatch nativeClosed = new CountDownLatch(1);
        AtomicInteger frees = new AtomicInteger();
        LeftBehind left = new LeftBehind("closed context", handle(nativeClosed));
        left.keep("memory", List.of(use), () -> {
            assertEquals(1, nativeClosed.getCount(), "freed before its native context closes");
            frees.incrementAndGet();
        });
        left.seal();
        assertTrue(!nativeClosed.await(200, TimeUnit.MILLISECONDS), "the native context stays open under pending work");
        assertEquals(0, frees.get(), "nothing freed under pending work");
        assertEquals(1, EngineAccess.core(other).handshake().waiting(), "watches the other context's close, in case it drops the work");
        deviceDone.set(true);
        assertTrue(nativeClosed.await(10, TimeUnit.SECONDS), "closed once the work finished");
        assertEquals(1, frees.get());
        assertEquals(0, EngineAccess.core(other).handshake().waiting(), "and lets go of that watch: the other context may live long");
    }

    @ExpectWarning(logger = "dev.sluice.engine.LeftBehind", containing = "kept allocated")
    @Test
    void keptMemoryIsLetGoWhenTheOtherContextClosesWithoutRunningTheWork() throws Exception {
        DeviceContext other;
        System.setProperty("sluice.close.futuresMillis", "100");
        try {
            other = FakeDevices.open(Api.CPU, n -> stream(new AtomicBoolean())); // its device never finishes
        } finally {
            System.clearProperty("sluice.close.futuresMillis");
        }
        DeviceFuture<Void> use = other.createStream().enqueueMarker();
        CountDownLatch nativeClosed = new CountDownLatch(1);
        AtomicInteger frees = new AtomicInteger();
        LeftBehind left = new LeftBehind("closed context", handle(nativeClosed));
        left.keep("memory", List.of(use), frees::incrementAndGet);
        left.seal();
        assertTrue(!nativeClosed.await(200, TimeUnit.MILLISECONDS));
        other.close();
        assertTrue(nativeClosed.await(10, TimeUnit.SECONDS), "closed once the other context's close dropped the work");
        assertEquals(1, frees.get());
    }

    @Test
    void aCloseThatKeepsNothingClosesTheNativeContextAtOnce() {
        CountDownLatch nativeClosed = new CountDownLatch(1);
        LeftBehind left = new LeftBehind("closed context", handle(nativeClosed));
        left.seal();
        assertEquals(0, nativeClosed.getCount());
    }
}
