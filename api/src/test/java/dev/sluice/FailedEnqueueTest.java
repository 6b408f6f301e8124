package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.StreamHandle;
import dev.sluice.testing.ExpectWarning;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An enqueue whose backend call throws: every claim it made on its buffers is given back (a close of them must not wait
 * for a use that never came), and a sticky error faults the context as a completion marker's would.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FailedEnqueueTest {

    /** What the backend's copies and fills throw next, or null for none. */
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    /** A stream whose copies and fills throw {@link #failure} when set, and whose markers are never done. */
    private StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "enqueue" -> {
                        RuntimeException f = failure.get();
                        if (f != null) {
                            throw f;
                        }
                        yield null;
                    }
                    case "recordMarker" -> FakeDevices.marker(() -> false);
                    case "allocate" -> FakeDevices.memory((Long) args[0]);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    @Test
    void aFailedCallGivesBackTheClaimsOfEveryBufferItNamed() {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer a = ctx.allocate(DType.I32, 16);
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        DeviceStream s = ctx.createStream();
        IllegalStateException refused = new IllegalStateException("the driver refused the call");
        failure.set(refused);
        assertSame(refused, assertThrows(IllegalStateException.class, () -> s.enqueueFill(a, 1)));
        assertSame(refused, assertThrows(IllegalStateException.class, () -> s.enqueueCopy(a, b)));
        assertFalse(ctx.isFaulted(), "an error that is not sticky leaves the context usable");
        // A claim left behind would keep these closes waiting for ever for an enqueue to note its use.
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            a.close();
            b.close();
        });
    }

    /**
     * A marker the backend refuses fails the operation's future, not the enqueue, on a traced stream as on any other: the
     * operation was handed to the backend and its listeners heard of it, so they must hear its end.
     */
    @Test
    void aRefusedMarkerOnATracedStreamFailsTheFutureAndTheListenersHearItsEnd() {
        IllegalStateException refused = new IllegalStateException("the driver refused the marker");
        AtomicReference<RuntimeException> markerFailure = new AtomicReference<>();
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {StreamHandle.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> {
                        RuntimeException f = markerFailure.getAndSet(null);
                        if (f != null) {
                            throw f;
                        }
                        yield FakeDevices.marker(() -> true);
                    }
                    case "allocate" -> FakeDevices.memory((Long) args[0]);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                }), ContextOptions.defaults().withTracing(true));
        List<String> heard = new CopyOnWriteArrayList<>();
        ctx.addListener(new DeviceListener() {
            @Override
            public void operationEnqueued(DeviceStream stream, String category, long bytes) {
                heard.add("enqueued " + category);
            }

            @Override
            public void operationCompleted(DeviceStream stream, String category, long bytes, long latencyNanos,
                    Throwable failure) {
                heard.add("completed " + category + (failure == null ? "" : " failed: " + failure.getMessage()));
            }
        });
        DeviceBuffer a = ctx.allocate(DType.I32, 16);
        DeviceStream s = ctx.createStream();
        markerFailure.set(refused);
        DeviceFuture<Void> filled = s.enqueueFill(a, 1);
        ExecutionException e = assertThrows(ExecutionException.class, () -> filled.get(10, TimeUnit.SECONDS));
        assertSame(refused, e.getCause());
        assertEquals(List.of("enqueued memset", "completed memset failed: the driver refused the marker"), heard);
        s.enqueueFill(a, 2).join(); // the stream goes on
        a.close();
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: the driver answers with a sticky error")
    void aStickyErrorReturnedToACallFaultsTheContext() throws Exception {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        List<Throwable> heard = new CopyOnWriteArrayList<>();
        ctx.addListener(new DeviceListener() {
            @Override
            public void faulted(DeviceContext context, Throwable fault) {
                heard.add(fault);
            }
        });
        DeviceBuffer a = ctx.allocate(DType.I32, 16);
        DeviceStream s = ctx.createStream();
        DeviceFuture<Void> pending = s.enqueueFill(a, 1); // its marker never completes: only the fault ends it
        DeviceException poisoned = new DeviceException("the driver answers with a sticky error", "ERROR_ILLEGAL_ADDRESS", 700,
                true, null);
        failure.set(poisoned);
        assertSame(poisoned, assertThrows(DeviceException.class, () -> s.enqueueFill(a, 2)));

        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
        assertSame(poisoned, e.getCause(), "the pending future fails with the error");
        assertTrue(ctx.isFaulted());
        DeviceException later = assertThrows(DeviceException.class, () -> s.enqueueFill(a, 3));
        assertSame(poisoned, later.getCause(), () -> "later calls are refused with it: " + later);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (heard.isEmpty() && System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
        assertEquals(List.of(poisoned), heard, "the listener hears of the fault once");
        a.close(); // a faulted context's buffers are still closed by their owner, or the leak detector reports them
    }
}
