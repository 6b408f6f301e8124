package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread that looks at or waits for a future tells its marker so ({@link Marker#awaited()}), where a backend arms
 * its quicker way to see it done (CUDA's and HIP's completion counters); enqueueing and registering dependent stages do
 * not: those threads must not pay for it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AwaitedMarkerTest {

    /** The markers recorded, in order; each done once {@link #doneBelow} passes its number. */
    private final List<CountingMarker> markers = new CopyOnWriteArrayList<>();
    private final AtomicInteger doneBelow = new AtomicInteger();
    private DeviceContext ctx;

    private final class CountingMarker implements Marker {
        final int number;
        final AtomicInteger awaited = new AtomicInteger();

        CountingMarker(int number) {
            this.number = number;
        }

        @Override
        public boolean isDone() {
            return number < doneBelow.get();
        }

        @Override
        public boolean awaitDone(long timeoutNanos) {
            return isDone();
        }

        @Override
        public void release() {
        }

        @Override
        public void awaited() {
            awaited.incrementAndGet();
        }
    }

    private StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> {
                        CountingMarker m = new CountingMarker(markers.size());
                        markers.add(m);
                        yield m;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    @AfterEach
    void close() {
        doneBelow.set(Integer.MAX_VALUE);
        if (ctx != null) {
            ctx.close();
        }
    }

    @Test
    void lookingAtOrWaitingForAFutureTellsItsMarkerEnqueueingAndStagesDoNot() throws Exception {
        ctx = FakeDevices.open(Api.CPU, n -> stream(), ContextOptions.defaults().withMarkerBatch(1));
        DeviceStream s = ctx.createStream();
        DeviceFuture<Void> a = s.enqueueMarker();
        DeviceFuture<Void> b = s.enqueueMarker();
        CompletableFuture<Void> stage = b.thenRun(() -> { });
        assertEquals(2, markers.size());
        assertEquals(0, markers.get(0).awaited.get() + markers.get(1).awaited.get(),
                "neither the enqueues nor a dependent stage tell a marker it is awaited");

        assertTrue(!a.isDone());
        assertTrue(markers.get(0).awaited.get() >= 1, "a look at the future does");
        assertEquals(0, markers.get(1).awaited.get(), "only its own marker");

        CompletableFuture<Void> waiter = CompletableFuture.runAsync(b::join);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (markers.get(1).awaited.get() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(markers.get(1).awaited.get() >= 1, "a thread about to wait in join() does");
        doneBelow.set(2);
        waiter.get(10, TimeUnit.SECONDS);
        stage.get(10, TimeUnit.SECONDS);
        int after = markers.get(1).awaited.get();
        assertTrue(b.isDone());
        assertEquals(after, markers.get(1).awaited.get(), "a future already done does not ask its marker again");
    }

    @Test
    void theEnginesOwnSealForADeviceSideWaitTellsNoMarker() {
        ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        s.enqueueMarker(); // nothing pending: a marker of its own
        DeviceFuture<Void> grouped = s.enqueueMarker(); // behind it: an open group, sealed by the wait below
        int before = markers.size();
        other.waitFor(grouped);
        assertTrue(markers.size() > before, "the wait sealed the group: its marker is recorded");
        for (CountingMarker m : markers) {
            assertEquals(0, m.awaited.get(), "marker " + m.number + ": a device-side wait is no thread waiting");
        }
    }
}
