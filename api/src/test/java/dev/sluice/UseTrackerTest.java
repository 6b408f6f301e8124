package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The last-use bookkeeping that makes frees wait for every use: it goes by the streams' completed sequences, not by the
 * futures' state, and a buffer used by many short-lived streams remembers only those whose use is still pending.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UseTrackerTest {

    /** Whether markers recorded from now on report done. */
    private final AtomicBoolean deviceDone = new AtomicBoolean(true);

    private StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> {
                        boolean doneAtRecord = deviceDone.get();
                        yield FakeDevices.marker(() -> doneAtRecord || deviceDone.get());
                    }
                    case "allocate" -> FakeDevices.memory((Long) args[0]);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    @Test
    void aBufferUsedByManyShortLivedStreamsRemembersOnlyPendingUses() {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer weights = ctx.allocate(DType.I32, 16);
        for (int i = 0; i < 1_000; i++) {
            try (DeviceStream s = ctx.createStream()) {
                s.enqueueFill(weights, i);
            }
        }
        assertTrue(weights.allocation.uses.remembered() <= 2,
                "1000 closed streams, each done with the buffer: " + weights.allocation.uses.remembered() + " remembered");
    }

    @Test
    void aCancelledUseIsStillPendingUntilTheDeviceHasFinishedIt() throws Exception {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        DeviceStream s = ctx.createStream();
        deviceDone.set(false);
        DeviceFuture<Void> use = s.enqueueFill(b, 1);
        use.cancel(false);
        assertEquals(1, b.allocation.uses.pendingUses(null).size(), "cancelling does not finish the device's work");
        AtomicBoolean released = new AtomicBoolean();
        b.allocation.uses.whenAllFinished(() -> released.set(true));
        Thread.sleep(50);
        assertTrue(!released.get(), "nothing may be released while the device still runs the use");
        deviceDone.set(true);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!released.get() && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertTrue(released.get(), "released once the device finished");
        assertEquals(0, b.allocation.uses.pendingUses(null).size());
    }
}
