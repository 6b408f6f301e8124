package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.HostData;
import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectWarning;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Observation without tracing: {@link DeviceListener}s registered on a context, and the Flight Recorder events that a
 * recording switches on through its settings alone (the {@code sluice.jfc} profile in the api jar).
 */
public abstract class AbstractObservationTest extends ConformanceBase {

    /** Records what a listener is told, per category. */
    static final class Recorder implements DeviceListener {
        final Map<String, AtomicLong> enqueued = new ConcurrentHashMap<>();
        final Map<String, AtomicLong> completed = new ConcurrentHashMap<>();
        final Map<String, AtomicLong> bytes = new ConcurrentHashMap<>();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final List<String> compiled = new CopyOnWriteArrayList<>();
        final AtomicLong allocated = new AtomicLong();
        final AtomicLong freed = new AtomicLong();
        final AtomicLong closed = new AtomicLong();
        final AtomicLong negativeLatencies = new AtomicLong();

        @Override
        public void operationEnqueued(DeviceStream stream, String category, long b) {
            enqueued.computeIfAbsent(category, k -> new AtomicLong()).incrementAndGet();
            bytes.computeIfAbsent(category, k -> new AtomicLong()).addAndGet(b);
        }

        @Override
        public void operationCompleted(DeviceStream stream, String category, long b, long latencyNanos, @Nullable Throwable failure) {
            completed.computeIfAbsent(category, k -> new AtomicLong()).incrementAndGet();
            if (latencyNanos < 0) {
                negativeLatencies.incrementAndGet();
            }
            if (failure != null) {
                failures.add(failure);
            }
        }

        @Override
        public void memoryAllocated(DeviceContext context, long b) {
            allocated.addAndGet(b);
        }

        @Override
        public void memoryFreed(DeviceContext context, long b) {
            freed.addAndGet(b);
        }

        @Override
        public void kernelCompiled(DeviceContext context, String kernel, long nanos, @Nullable Throwable failure) {
            compiled.add(kernel);
        }

        @Override
        public void closed(DeviceContext context) {
            closed.incrementAndGet();
        }

        long count(Map<String, AtomicLong> m, String category) {
            AtomicLong v = m.get(category);
            return v == null ? 0 : v.get();
        }
    }

    @Test
    void a2DCopyIsOneOperationCountingTheRectanglesBytesNotItsExtent() {
        DeviceContext c = open(ContextOptions.defaults());
        Recorder r = new Recorder();
        c.addListener(r);
        DeviceStream s = c.createStream();
        DeviceBuffer a = c.allocate(DType.F32, 100);
        DeviceBuffer b = c.allocate(DType.F32, 100);
        float[] host = new float[100];
        // 5 rows of 3 elements, 20 apart: 60 bytes moved, an extent of 4 * 20 + 3 = 83 elements
        s.enqueueCopy2D(HostData.of(host), 20, a, 20, 3, 5);
        s.enqueueCopy2D(a, 20, b, 10, 3, 5);
        DeviceFuture<Void> last = s.enqueueCopy2D(b, 10, HostData.of(host), 20, 3, 5);
        assertEquals(last.sequence() + 1, s.enqueueMarker().sequence(), "one operation each, no row-by-row markers");
        c.synchronize();
        assertEquals(1, r.count(r.enqueued, "upload"));
        assertEquals(1, r.count(r.enqueued, "d2d"));
        assertEquals(1, r.count(r.enqueued, "download"));
        assertEquals(60, r.count(r.bytes, "upload"));
        assertEquals(60, r.count(r.bytes, "d2d"));
        assertEquals(60, r.count(r.bytes, "download"));
    }

    @Test
    void aListenerSeesEveryOperationEnqueuedAndCompletedWithCopyBytes() {
        DeviceContext c = open(ContextOptions.defaults());
        Recorder r = new Recorder();
        DeviceListener.Registration reg = c.addListener(r);
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.F32, 256);
        DeviceBuffer b2 = s.enqueueAllocate(DType.F32, 256);
        float[] host = new float[256];
        s.enqueueCopy(HostData.of(host), b);
        s.enqueueLaunch(fn(c, TestKernels.SCALAR_ADD), LaunchConfig.forElements(256), b, 256L, 1f);
        s.enqueueCopy(b, b2);
        s.enqueueCopy(b2, HostData.of(host));
        s.enqueueMemset(b, 0);
        s.enqueueFree(b2);
        await(s.enqueueMarker());
        c.synchronize();

        assertEquals(1, r.count(r.enqueued, "upload"));
        assertEquals(1, r.count(r.enqueued, "kernel"));
        assertEquals(1, r.count(r.enqueued, "d2d"));
        assertEquals(1, r.count(r.enqueued, "download"));
        assertEquals(1, r.count(r.enqueued, "memset"));
        assertEquals(1, r.count(r.enqueued, "alloc"));
        assertEquals(1, r.count(r.enqueued, "free"));
        assertEquals(1024, r.count(r.bytes, "upload"));
        assertEquals(1024, r.count(r.bytes, "download"));
        assertEquals(1024, r.count(r.bytes, "d2d"));
        assertEquals(0, r.count(r.bytes, "memset"), "only copies count bytes");
        assertEquals(r.enqueued.keySet(), r.completed.keySet());
        r.enqueued.forEach((k, v) -> assertEquals(v.get(), r.count(r.completed, k), "every " + k + " completed"));
        assertEquals(0, r.negativeLatencies.get());
        assertTrue(r.failures.isEmpty(), r.failures.toString());
        assertEquals(2048, r.allocated.get(), "both allocations, synchronous and in stream order");
        assertEquals(1024, r.freed.get());
        assertEquals(List.of(TestKernels.SCALAR_ADD.name()), r.compiled);

        reg.close();
        reg.close(); // idempotent
        await(s.enqueueMemset(b, 1));
        assertEquals(1, r.count(r.enqueued, "memset"), "a removed listener hears nothing more");
        c.close();
        assertEquals(0, r.closed.get(), "a removed listener is not told of the close");
    }

    @Test
    void aListenerIsToldOfTheCloseAndAClosedContextRefusesListeners() {
        DeviceContext c = open(ContextOptions.defaults());
        Recorder r = new Recorder();
        c.addListener(r);
        c.close();
        assertEquals(1, r.closed.get());
        assertThrows(ClosedResourceException.class, () -> c.addListener(new Recorder()));
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> ctx.addListener(null));
        assertMentions(e, "listener");
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.Observers", containing = "threw on an enqueue; ignored")
    @ExpectWarning(logger = "dev.sluice.Observers", containing = "threw on a completion; ignored")
    void aThrowingListenerDoesNotBreakTheOperation() {
        DeviceContext c = open(ContextOptions.defaults());
        c.addListener(new DeviceListener() {
            @Override
            public void operationEnqueued(DeviceStream stream, String category, long bytes) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void operationCompleted(DeviceStream stream, String category, long bytes, long latencyNanos,
                    @Nullable Throwable failure) {
                throw new IllegalStateException("listener bug");
            }
        });
        Recorder r = new Recorder();
        c.addListener(r);
        DeviceBuffer b = c.allocate(DType.I32, 16);
        await(c.stream().enqueueFill(b, 7));
        assertEquals(7, readInts(c.stream(), b)[3]);
        assertEquals(1, r.count(r.completed, "memset"), "later listeners still run (a fill is a memset)");
    }

    /** A listener that throws {@code error} from every callback. */
    private static DeviceListener throwing(java.util.function.Supplier<? extends Throwable> error) {
        return new DeviceListener() {
            private void fail() {
                Throwable t = error.get();
                if (t instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) t;
            }

            @Override
            public void operationEnqueued(DeviceStream stream, String category, long bytes) {
                fail();
            }

            @Override
            public void operationCompleted(DeviceStream stream, String category, long bytes, long latencyNanos,
                    @Nullable Throwable failure) {
                fail();
            }

            @Override
            public void memoryAllocated(DeviceContext context, long bytes) {
                fail();
            }

            @Override
            public void memoryFreed(DeviceContext context, long bytes) {
                fail();
            }

            @Override
            public void kernelCompiled(DeviceContext context, String kernel, long nanos, @Nullable Throwable failure) {
                fail();
            }

            @Override
            public void faulted(DeviceContext context, Throwable fault) {
                fail();
            }

            @Override
            public void closed(DeviceContext context) {
                fail();
            }
        };
    }

    @ExpectWarning(logger = "dev.sluice.Observers", containing = "threw on")
    @Test
    void aListenerThrowingAnErrorIsLoggedAndTheContextKeepsCompletingFutures() {
        DeviceContext c = open(ContextOptions.defaults());
        c.addListener(throwing(() -> new AssertionError("listener assertion")));
        Recorder r = new Recorder();
        c.addListener(r);
        DeviceBuffer b = c.allocate(DType.I32, 16);
        DeviceStream s = c.createStream();
        List<DeviceFuture<Void>> fills = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fills.add(s.enqueueFill(b, i));
        }
        for (DeviceFuture<Void> f : fills) {
            await(f); // none is left pending by the listener's error
        }
        assertEquals(49, readInts(s, b)[3]);
        assertFalse(c.isFaulted(), "an ordinary Error from a listener is the listener's, not the context's");
        assertEquals(50, r.count(r.completed, "memset"), "later listeners still run");
        b.close();
        long start = System.nanoTime();
        c.close();
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(WAIT_SECONDS).toNanos(), "close returned");
    }

    @ExpectWarning(logger = "dev.sluice.Observers", containing = "removed from")
    @Test
    void aListenerThrowingAVirtualMachineErrorIsRemovedAndTheContextGoesOn() {
        DeviceContext c = open(ContextOptions.defaults());
        DeviceBuffer b = c.allocate(DType.I32, 16);
        DeviceStream s = c.createStream();
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        c.addListener(new DeviceListener() {
            @Override
            public void operationCompleted(DeviceStream stream, String category, long bytes, long latencyNanos,
                    @Nullable Throwable failure) {
                calls.incrementAndGet();
                throw new StackOverflowError("listener recursion");
            }
        });
        Recorder r = new Recorder();
        c.addListener(r);
        List<DeviceFuture<Void>> fills = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            fills.add(s.enqueueFill(b, i));
        }
        for (DeviceFuture<Void> f : fills) {
            await(f); // every one completes normally: the device did the work
        }
        assertFalse(c.isFaulted(), "a listener's error is not the device's");
        int before = calls.get();
        assertTrue(before >= 1);
        for (int i = 0; i < 10; i++) {
            await(s.enqueueFill(b, 100 + i));
        }
        assertEquals(before, calls.get(), "the listener was removed: later operations do not reach it");
        assertEquals(30, r.count(r.completed, "memset"), "the other listener hears of every operation");
        assertEquals(109, readInts(s, b)[0]);
        b.close();
        c.close();
        c.close();
    }

    private static Configuration sluiceProfile() throws Exception {
        try (Reader in = new InputStreamReader(DeviceContext.class.getResourceAsStream("/dev/sluice/sluice.jfc"),
                StandardCharsets.UTF_8)) {
            return Configuration.create(in);
        }
    }

    @Test
    void theShippedProfileSwitchesEveryEventOnWithoutCode(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sluice.jfr");
        String kernel = TestKernels.SCALAR_ADD.name();
        String contextName;
        try (Recording rec = new Recording(sluiceProfile())) {
            rec.enable("dev.sluice.Operation").withThreshold(Duration.ZERO); // every operation, not only slow ones
            rec.start();
            DeviceContext c = open(ContextOptions.defaults()); // opened after the recording started
            contextName = c.toString();
            try (var l = c.stream().label("jfr")) {
                DeviceBuffer b = c.allocate(DType.F32, 64);
                c.stream().enqueueCopy(HostData.of(new float[64]), b);
                c.stream().enqueueLaunch(fn(c, TestKernels.SCALAR_ADD), LaunchConfig.forElements(64), b, 64L, 1f);
                b.close();
            }
            c.synchronize();
            c.close();
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Map<String, List<RecordedEvent>> byName = events.stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.sluice."))
                .collect(Collectors.groupingBy(e -> e.getEventType().getName()));
        List<RecordedEvent> ops = byName.getOrDefault("dev.sluice.Operation", List.of()).stream()
                .filter(e -> "jfr".equals(e.getString("label"))).toList();
        assertTrue(ops.stream().anyMatch(e -> e.getString("kind").equals("upload") && e.getLong("bytes") == 256), ops.toString());
        assertTrue(ops.stream().anyMatch(e -> e.getString("kind").equals("kernel " + kernel)), ops.toString());
        assertTrue(ops.stream().allMatch(e -> !e.getDuration().isNegative() && e.getString("failure") == null), ops.toString());
        assertTrue(byName.getOrDefault("dev.sluice.KernelCompilation", List.of()).stream()
                .anyMatch(e -> kernel.equals(e.getString("kernel"))), byName.keySet().toString());
        assertTrue(byName.getOrDefault("dev.sluice.Allocation", List.of()).stream().anyMatch(e -> e.getLong("bytes") == 256),
                byName.keySet().toString());
        assertTrue(byName.getOrDefault("dev.sluice.Free", List.of()).stream().anyMatch(e -> e.getLong("bytes") == 256),
                byName.keySet().toString());
        // The recording is the JVM's: other suites running in parallel open contexts too.
        RecordedEvent opened = byName.get("dev.sluice.ContextOpen").stream()
                .filter(e -> contextName.equals(e.getString("context"))).findFirst().orElseThrow();
        assertEquals(target().backendName(), opened.getString("backend"));
        assertNotNull(byName.get("dev.sluice.ContextClose"), byName.keySet().toString());
    }

    @Test
    void operationEventsStayOffUnderARecordingThatDoesNotEnableThem(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("plain.jfr");
        try (Recording rec = new Recording()) {
            rec.enable("dev.sluice.ContextOpen");
            rec.start();
            DeviceContext c = open(ContextOptions.defaults());
            DeviceBuffer b = c.allocate(DType.I32, 16);
            await(c.stream().enqueueMemset(b, 1));
            rec.stop();
            rec.dump(file);
        }
        List<String> names = RecordingFile.readAllEvents(file).stream().map(e -> e.getEventType().getName())
                .filter(n -> n.startsWith("dev.sluice.")).distinct().toList();
        assertTrue(names.contains("dev.sluice.ContextOpen"), names.toString());
        assertFalse(names.contains("dev.sluice.Operation"), "the Operation event is off unless a recording enables it: " + names);
    }

    @Test
    void operationEventsStartForContextsAlreadyOpenWhenARecordingStarts(@TempDir Path dir) throws Exception {
        DeviceContext c = open(ContextOptions.defaults());
        DeviceBuffer b = c.allocate(DType.I32, 16);
        await(c.stream().enqueueMemset(b, 1));
        Path file = dir.resolve("late.jfr");
        try (Recording rec = new Recording()) {
            rec.enable("dev.sluice.Operation").withThreshold(Duration.ZERO);
            rec.start();
            try (var l = c.stream().label("late")) {
                await(c.stream().enqueueMemset(b, 2));
            }
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> ops = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.sluice.Operation"))
                .filter(e -> "late".equals(e.getString("label"))).toList();
        assertEquals(1, ops.size(), ops.toString());
        assertEquals("memset", ops.get(0).getString("kind"));
        assertNull(ops.get(0).getString("failure"));
    }
}
