package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Constructor;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The marker-batching experiment ({@code sluice.markers.batch}) does what it says, against a backend that logs its
 * calls: operations share markers, the enqueuer records one per N operations, the completion thread records the
 * last batch of a burst, and a wait from another stream, a host function or capture first records the batch
 * before it. The conformance suite ({@code CpuBatchedMarkersTest}) checks that every promise still holds; this
 * checks that batching happens at all.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MarkerBatchTest {

    /** Backend calls in order, by stream: "s1:launch", "s1:recordMarker", "s2:waitMarker". */
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    /** Whether markers recorded from now on report done (the device "finished"). */
    private final AtomicBoolean deviceDone = new AtomicBoolean(true);
    private DeviceContext ctx;
    private DeviceFunction fn;
    private int streams;

    private final Marker doneWhenDeviceIs = new Marker() {
        @Override
        public boolean isDone() {
            return deviceDone.get();
        }

        @Override
        public boolean awaitDone(long timeoutNanos) {
            return deviceDone.get();
        }

        @Override
        public void release() {
        }
    };

    private StreamHandle stream(String name) {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("toString") && !method.getName().equals("hashCode")) {
                        calls.add(name + ":" + method.getName());
                    }
                    return switch (method.getName()) {
                        case "recordMarker" -> doneWhenDeviceIs;
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        case "toString" -> name;
                        default -> null;
                    };
                });
    }

    @BeforeEach
    void open() throws Exception {
        System.setProperty("sluice.markers.batch", "8");
        ContextHandle handle = (ContextHandle) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ContextHandle.class}, (proxy, method, a) -> switch (method.getName()) {
                    case "defaultStream" -> stream("s0");
                    case "createStream" -> stream("s" + ++streams);
                    case "attribute" -> throw new UnsupportedOnBackendException("no attributes here");
                    case "name" -> "logging backend";
                    case "load" -> new FunctionHandle() {
                        @Override
                        public Optional<String> assembly() {
                            return Optional.empty();
                        }

                        @Override
                        public void unload() {
                        }
                    };
                    case "streamPriorityRange" -> new PriorityRange(0, 0);
                    default -> null;
                });
        Constructor<DeviceContext> c = DeviceContext.class.getDeclaredConstructor(Api.class, int.class, ContextHandle.class,
                ContextOptions.class);
        c.setAccessible(true);
        ctx = c.newInstance(Api.CPU, 0, handle, ContextOptions.defaults());
        fn = ctx.compile(Kernel.named("empty").java(t -> { }).build());
    }

    @AfterEach
    void clear() {
        System.clearProperty("sluice.markers.batch");
    }

    private long count(String call) {
        synchronized (calls) {
            return calls.stream().filter(call::equals).count();
        }
    }

    @Test
    void theEnqueuerRecordsOneMarkerPerEightOperationsAndTheCompletionThreadTheRest() {
        DeviceStream s = ctx.createStream();
        List<DeviceFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            fs.add(s.enqueueLaunch(fn, LaunchConfig.of(1, 1)));
        }
        assertEquals(20, count("s1:launch"));
        long byEnqueuer = count("s1:recordMarker");
        assertTrue(byEnqueuer >= 2 && byEnqueuer <= 3, "two full batches (and perhaps the last, if idle): " + calls);
        fs.get(19).join(); // the last 4 are sealed by the completion thread once the batch stops growing
        assertEquals(3, count("s1:recordMarker"), "20 operations, 3 markers: " + calls);
        for (DeviceFuture<Void> f : fs) {
            assertTrue(f.isDone() && !f.isCompletedExceptionally());
        }
    }

    @Test
    void aWaitFromAnotherStreamRecordsTheBatchItWaitsFor() {
        deviceDone.set(false);
        DeviceStream s1 = ctx.createStream();
        DeviceStream s2 = ctx.createStream();
        DeviceFuture<Void> produced = s1.enqueueLaunch(fn, LaunchConfig.of(1, 1));
        s2.waitFor(produced);
        List<String> seen = List.copyOf(calls);
        int record = seen.indexOf("s1:recordMarker");
        int wait = seen.indexOf("s2:waitMarker");
        assertTrue(record >= 0 && wait > record, "s1's marker is recorded before s2 waits on it: " + seen);
        assertFalse(produced.isDone());
        deviceDone.set(true);
        produced.join();
    }

    @Test
    void workBeforeAHostFunctionHasItsMarkerBeforeTheGate() {
        DeviceStream s = ctx.createStream();
        DeviceFuture<Void> before = s.enqueueLaunch(fn, LaunchConfig.of(1, 1));
        AtomicBoolean ran = new AtomicBoolean();
        DeviceFuture<Void> host = s.enqueueHostFunction(() -> ran.set(true));
        host.join();
        assertTrue(ran.get() && before.isDone());
        List<String> seen = List.copyOf(calls);
        assertEquals("s1:recordMarker", seen.get(seen.indexOf("s1:launch") + 1),
                "the launch's batch is recorded right after it, before the host function's gate: " + seen);
    }

    @Test
    void withoutTheExperimentEveryOperationHasItsOwnMarker() throws Exception {
        System.clearProperty("sluice.markers.batch");
        DeviceStream s = ctx.createStream();
        for (int i = 0; i < 5; i++) {
            s.enqueueLaunch(fn, LaunchConfig.of(1, 1));
        }
        assertEquals(5, count("s1:recordMarker"));
        s.synchronize();
    }
}
