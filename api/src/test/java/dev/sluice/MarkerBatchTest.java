package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Marker groups ({@link ContextOptions#withMarkerBatch}, or {@code sluice.markers.batch}) do what they say, against a
 * backend that logs its calls: an operation on a stream with nothing pending gets its marker at once, later ones share
 * markers, the enqueuer records one per N operations, the completion thread records the last batch of a burst, and a
 * wait from another stream, a host function or capture first records the batch before it. The conformance suite ({@code CpuConformanceTest}) checks that every promise holds with groups; this
 * checks that batching happens at all.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MarkerBatchTest {

    /** Backend calls in order, by stream: "s1:launch", "s1:recordMarker", "s2:waitMarker". */
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    /** Whether markers recorded from now on report done (the device "finished"). */
    private final AtomicBoolean deviceDone = new AtomicBoolean(true);
    /** Whether the backend refuses to record markers. */
    private final AtomicBoolean refuseMarkers = new AtomicBoolean();
    private DeviceContext ctx;
    private DeviceFunction fn;

    /** How often a marker answered "done". */
    private final AtomicInteger doneAnswers = new AtomicInteger();

    private final Marker doneWhenDeviceIs = FakeDevices.marker(() -> {
        boolean done = deviceDone.get();
        if (done) {
            doneAnswers.incrementAndGet();
        }
        return done;
    });

    private StreamHandle stream(String name) {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("toString") && !method.getName().equals("hashCode")) {
                        calls.add(name + ":" + FakeDevices.callName(method, args));
                    }
                    if (method.getName().equals("recordMarker") && refuseMarkers.get()) {
                        throw new UnsupportedOnBackendException("markers refused by the test's backend");
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
    void open() {
        System.setProperty("sluice.markers.batch", "8");
        ctx = FakeDevices.open(Api.CPU, n -> stream("s" + n));
        fn = ctx.compile(Kernel.named("empty").java(t -> { }).build());
    }

    @AfterEach
    void clear() {
        System.clearProperty("sluice.markers.batch");
        fn.close();
    }

    private long count(String call) {
        synchronized (calls) {
            return calls.stream().filter(call::equals).count();
        }
    }

    @Test
    void theFirstOperationOnAnIdleStreamHasItsOwnMarkerThenTheEnqueuerRecordsOnePerEightAndTheCompletionThreadTheRest() {
        // a batch counts as idle after 200 ms here, far longer than the 20 enqueues take, so only full batches are
        // recorded while they run; and nothing completes until the test says so, so no operation finds the stream idle
        // but the first
        System.setProperty("sluice.markers.batchIdleNanos", "200000000");
        DeviceStream s = ctx.createStream();
        System.clearProperty("sluice.markers.batchIdleNanos");
        deviceDone.set(false);
        List<DeviceFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            fs.add(s.enqueueLaunch(fn, LaunchConfig.of(1, 1)));
            if (i == 0) {
                assertEquals(1, count("s1:recordMarker"), "nothing was pending: the first operation is marked at once: " + calls);
            }
        }
        assertEquals(20, count("s1:launch"));
        assertEquals(3, count("s1:recordMarker"), "the first operation's, then two full batches: " + calls);
        deviceDone.set(true);
        fs.get(19).join(); // the last 3 are sealed by the completion thread once the batch stops growing
        assertEquals(4, count("s1:recordMarker"), "20 operations, 4 markers: " + calls);
        for (DeviceFuture<Void> f : fs) {
            assertTrue(f.isDone() && !f.isCompletedExceptionally());
        }
    }

    @Test
    void theFuturesOfABatchAskTheirSharedMarkerOnce() {
        DeviceStream s = ctx.createStream();
        deviceDone.set(false);
        List<DeviceFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            fs.add(s.enqueueLaunch(fn, LaunchConfig.of(1, 1)));
        }
        assertEquals(2, count("s1:recordMarker"), "the first operation's marker, then a full batch of 8: " + calls);
        doneAnswers.set(0);
        deviceDone.set(true);
        fs.get(8).join();
        assertEquals(2, doneAnswers.get(), "one done answer per marker (a driver call each on a GPU), not per future");
        assertTrue(fs.stream().allMatch(f -> f.isDone() && !f.isCompletedExceptionally()));
    }

    @Test
    void theContextOptionBatchesAsThePropertyDoes() {
        System.clearProperty("sluice.markers.batch");
        DeviceContext batched = FakeDevices.open(Api.CPU, n -> stream("b" + n), ContextOptions.defaults().withMarkerBatch(4));
        DeviceFunction f = batched.compile(Kernel.named("empty").java(t -> { }).build());
        DeviceStream s = batched.createStream();
        deviceDone.set(false);
        List<DeviceFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            fs.add(s.enqueueLaunch(f, LaunchConfig.of(1, 1)));
        }
        assertEquals(3, count("b1:recordMarker"), "the first operation's, then two batches of 4: " + calls);
        deviceDone.set(true);
        fs.get(8).join();
        assertTrue(fs.stream().allMatch(x -> x.isDone() && !x.isCompletedExceptionally()));
        f.close();
    }

    @Test
    void aWaitFromAnotherStreamRecordsTheBatchItWaitsFor() {
        deviceDone.set(false);
        DeviceStream s1 = ctx.createStream();
        DeviceStream s2 = ctx.createStream();
        s1.enqueueLaunch(fn, LaunchConfig.of(1, 1)); // marked at once: nothing was pending
        DeviceFuture<Void> produced = s1.enqueueLaunch(fn, LaunchConfig.of(1, 1)); // joins a batch
        assertEquals(1, count("s1:recordMarker"), "the second operation is in an open batch: " + calls);
        s2.waitFor(produced);
        List<String> seen = List.copyOf(calls);
        int record = seen.lastIndexOf("s1:recordMarker");
        int wait = seen.indexOf("s2:waitMarker");
        assertEquals(2, count("s1:recordMarker"), "the wait sealed the batch: " + seen);
        assertTrue(wait > record, "s1's marker is recorded before s2 waits on it: " + seen);
        assertFalse(produced.isDone());
        deviceDone.set(true);
        produced.join();
    }

    @Test
    void workBeforeAHostFunctionHasItsMarkerBeforeTheGate() {
        DeviceStream s = ctx.createStream();
        deviceDone.set(false);
        s.enqueueLaunch(fn, LaunchConfig.of(1, 1)); // marked at once: nothing was pending
        DeviceFuture<Void> before = s.enqueueLaunch(fn, LaunchConfig.of(1, 1)); // joins a batch
        AtomicBoolean ran = new AtomicBoolean();
        DeviceFuture<Void> host = s.enqueueHostFunction(() -> ran.set(true));
        deviceDone.set(true);
        host.join();
        assertTrue(ran.get() && before.isDone());
        List<String> seen = List.copyOf(calls);
        assertEquals("s1:recordMarker", seen.get(seen.lastIndexOf("s1:launch") + 1),
                "the second launch's batch is recorded right after it, before the host function's gate: " + seen);
    }

    @Test
    void aMarkerTheBackendRefusesFailsEveryFutureOfItsBatchAndNothingWaitsOnIt() {
        DeviceStream s1 = ctx.createStream();
        DeviceStream s2 = ctx.createStream();
        deviceDone.set(false);
        s1.enqueueLaunch(fn, LaunchConfig.of(1, 1)); // its own marker: the stream was idle; keeps the stream busy
        refuseMarkers.set(true);
        List<DeviceFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            fs.add(s1.enqueueLaunch(fn, LaunchConfig.of(1, 1)));
        }
        s2.waitFor(fs.get(2)); // seals the batch: the backend refuses its marker
        assertEquals(0, count("s2:waitMarker"), "a refused batch leaves nothing for the backend to wait on: " + calls);
        deviceDone.set(true);
        for (DeviceFuture<Void> f : fs) {
            Throwable e = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.CompletionException.class, f::join);
            assertTrue(e.getCause() instanceof UnsupportedOnBackendException, e.toString());
        }
        refuseMarkers.set(false);
        s1.enqueueLaunch(fn, LaunchConfig.of(1, 1)).join(); // the stream goes on
    }

    @Test
    void withABatchOfOneEveryOperationHasItsOwnMarker() throws Exception {
        System.clearProperty("sluice.markers.batch");
        DeviceContext single = FakeDevices.open(Api.CPU, n -> stream("m" + n), ContextOptions.defaults().withMarkerBatch(1));
        DeviceFunction f = single.compile(Kernel.named("empty").java(t -> { }).build());
        DeviceStream s = single.createStream();
        deviceDone.set(false);
        for (int i = 0; i < 5; i++) {
            s.enqueueLaunch(f, LaunchConfig.of(1, 1));
        }
        assertEquals(5, count("m1:recordMarker"));
        deviceDone.set(true);
        s.synchronize();
        f.close();
    }

    @Test
    void byDefaultOperationsOfABusyStreamShareAMarker() {
        System.clearProperty("sluice.markers.batch");
        DeviceContext plain = FakeDevices.open(Api.CPU, n -> stream("d" + n));
        DeviceFunction f = plain.compile(Kernel.named("empty").java(t -> { }).build());
        System.setProperty("sluice.markers.batchIdleNanos", "200000000"); // no seal by the completion thread while we look
        DeviceStream s = plain.createStream();
        System.clearProperty("sluice.markers.batchIdleNanos");
        deviceDone.set(false);
        List<DeviceFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < ContextOptions.DEFAULT_MARKER_BATCH + 1; i++) {
            fs.add(s.enqueueLaunch(f, LaunchConfig.of(1, 1)));
        }
        assertEquals(2, count("d1:recordMarker"), "the idle stream's first operation, then one full group: " + calls);
        deviceDone.set(true);
        fs.get(fs.size() - 1).join();
        f.close();
    }

    @Test
    void observingAFutureOfAnOpenGroupRecordsItsMarkerAtOnce() {
        System.setProperty("sluice.markers.batchIdleNanos", "200000000"); // only observation seals here
        DeviceStream s = ctx.createStream();
        System.clearProperty("sluice.markers.batchIdleNanos");
        deviceDone.set(false);
        s.enqueueLaunch(fn, LaunchConfig.of(1, 1)); // marked at once: nothing was pending
        DeviceFuture<Void> a = s.enqueueLaunch(fn, LaunchConfig.of(1, 1));
        assertEquals(1, count("s1:recordMarker"), "a is in an open group: " + calls);
        assertFalse(a.isDone());
        assertEquals(2, count("s1:recordMarker"), "isDone() recorded a's group: " + calls);
        DeviceFuture<Void> b = s.enqueueLaunch(fn, LaunchConfig.of(1, 1));
        assertEquals(2, count("s1:recordMarker"));
        b.thenRun(() -> { });
        assertEquals(2, count("s1:recordMarker"), "a dependent stage waits for no thread and records nothing: " + calls);
        b.getNow(null);
        assertEquals(3, count("s1:recordMarker"), "getNow recorded b's group: " + calls);
        DeviceFuture<Void> c = s.enqueueLaunch(fn, LaunchConfig.of(1, 1));
        c.cancel(false);
        assertEquals(3, count("s1:recordMarker"), "cancelling observes nothing: " + calls);
        deviceDone.set(true);
        b.join();
        assertTrue(a.isDone() && !a.isCompletedExceptionally());
        s.synchronize(); // seals c's group
        assertEquals(4, count("s1:recordMarker"), calls.toString());
    }

    @Test
    void anExplicitMarkerBatchWinsOverTheProperty() {
        // the property is 8 here (open()): it sets the defaults' batch, never one given in code, even the default's value
        assertEquals(8, ContextOptions.defaults().markerBatch());
        ContextOptions explicit = ContextOptions.defaults().withMarkerBatch(ContextOptions.DEFAULT_MARKER_BATCH);
        assertEquals(ContextOptions.DEFAULT_MARKER_BATCH, explicit.markerBatch());
        DeviceContext own = FakeDevices.open(Api.CPU, n -> stream("x" + n), explicit);
        DeviceFunction f = own.compile(Kernel.named("empty").java(t -> { }).build());
        System.setProperty(SluiceProperties.Measurement.MARKER_BATCH_IDLE_NANOS, "200000000"); // no seal by the completion thread
        DeviceStream s = own.createStream();
        System.clearProperty(SluiceProperties.Measurement.MARKER_BATCH_IDLE_NANOS);
        deviceDone.set(false);
        for (int i = 0; i < 9; i++) {
            s.enqueueLaunch(f, LaunchConfig.of(1, 1));
        }
        assertEquals(1, count("x1:recordMarker"), "the idle stream's first operation only; 8 more fill no group of "
                + ContextOptions.DEFAULT_MARKER_BATCH + ": " + calls);
        deviceDone.set(true);
        s.synchronize();
        f.close();
    }

    @Test
    void aMarkerBatchPropertyOutsideItsRangeIsRejectedNamingIt() {
        for (String bad : List.of("0", "1025", "eight")) {
            System.setProperty(SluiceProperties.MARKER_BATCH, bad);
            InvalidArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidArgumentException.class,
                    ContextOptions::defaults);
            assertEquals(SluiceProperties.MARKER_BATCH, e.argument());
            assertTrue(e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("1..1024"), e.getMessage());
        }
        System.clearProperty(SluiceProperties.MARKER_BATCH);
        assertEquals(ContextOptions.DEFAULT_MARKER_BATCH, ContextOptions.defaults().markerBatch());
    }
}
