package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.engine.LeakDetector;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The safety net under close(): device memory whose buffers all became unreachable while open is freed in stream order,
 * once; memory closed explicitly, or still reachable through a slice, is not freed by it. The same for pinned host
 * memory (after its copies), events (after their records and waits) and functions (after their launches), each
 * reported once, none released again by the context's close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeakDetectorTest {

    /** Held here: the JDK keeps loggers only weakly, and the handler must stay on this one. */
    private static final Logger LEAKS_LOG = Logger.getLogger("dev.sluice.leaks");

    private final AtomicInteger frees = new AtomicInteger();
    private final AtomicInteger hostToDeviceCopies = new AtomicInteger();
    private final AtomicInteger streamDestroys = new AtomicInteger();
    /** Whether the fake device has finished the work enqueued so far: markers are done while it is. */
    private volatile boolean deviceDone = true;
    private final FakeDevices.Releases releases = new FakeDevices.Releases();
    private final List<String> reports = Collections.synchronizedList(new ArrayList<>());
    /** Notes the leak reports, which every test here provokes, and keeps them off the console. */
    private final Handler reportCapture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            reports.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureReports() {
        LEAKS_LOG.addHandler(reportCapture);
        LEAKS_LOG.setUseParentHandlers(false);
    }

    @AfterEach
    void releaseReports() {
        LEAKS_LOG.removeHandler(reportCapture);
        LEAKS_LOG.setUseParentHandlers(true);
    }

    private void assertReported(String text) {
        assertTrue(reports.stream().anyMatch(m -> m.contains(text)), () -> "no leak report containing " + text + ": " + reports);
    }

    private StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> FakeDevices.marker(() -> deviceDone);
                    case "allocate" -> FakeDevices.memory((Long) args[0]);
                    case "free" -> {
                        frees.incrementAndGet();
                        yield null;
                    }
                    case "enqueue" -> {
                        if (args[0] instanceof dev.sluice.spi.WorkStep.Upload) {
                            hostToDeviceCopies.incrementAndGet();
                        }
                        yield null;
                    }
                    case "destroy" -> {
                        streamDestroys.incrementAndGet();
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    private DeviceContext open() {
        return FakeDevices.open(Api.CPU, n -> stream(), releases);
    }

    /** The leak reports that name {@code what}. */
    private long reportsOf(String what) {
        synchronized (reports) {
            return reports.stream().filter(r -> r.contains(what)).count();
        }
    }

    /** Collects garbage a few times: enough for a leak detector that would act to have acted. */
    private static void collectAFewTimes() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
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
        assertReported("LEAK: DeviceBuffer[F32 x 1024");
    }

    @Test
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
        assertReported("LEAK: DeviceBuffer[I32 x 64");
    }

    // ---------------------------------------------------------------- pinned host memory

    @Test
    void anUnreachableOpenHostBufferIsFreedOnceReportedOnceAndNotFreedAgainByTheContextsClose() throws Exception {
        DeviceContext ctx = open();
        allocateHostAndDrop(ctx, 1001);
        assertTrue(collectUntil(() -> releases.hostFrees.get() == 1), "the leaked pinned memory was freed");
        collectAFewTimes();
        assertEquals(1, releases.hostFrees.get(), "freed once");
        assertEquals(1, reportsOf("HostBuffer[F32 x 1001, "), "reported once, naming it: " + reports);
        ctx.close();
        assertEquals(1, releases.hostFrees.get(), "the context's close does not free it again");
    }

    @Test
    void aHostBufferWithAPendingCopyIsFreedOnlyAfterTheCopyHasFinished() throws Exception {
        DeviceContext ctx = open();
        DeviceBuffer destination = ctx.allocate(DType.F32, 1002);
        deviceDone = false;
        copyFromDroppedHostBuffer(ctx, destination);
        assertTrue(collectUntil(() -> reportsOf("HostBuffer[F32 x 1002, ") == 1), "the leak is reported: " + reports);
        collectAFewTimes();
        assertEquals(0, releases.hostFrees.get(), "not freed while the copy from it may still run");
        deviceDone = true;
        assertTrue(collectUntil(() -> releases.hostFrees.get() == 1), "freed once the copy has finished");
        Reference.reachabilityFence(destination);
    }

    @Test
    void aHostBufferWhoseSegmentWasTakenIsReportedButFreedOnlyByTheContextsClose() throws Exception {
        DeviceContext ctx = open();
        MemorySegment segment = segmentOfDroppedHostBuffer(ctx, 1003);
        assertTrue(collectUntil(() -> reportsOf("HostBuffer[F32 x 1003, ") == 1), "the leak is reported: " + reports);
        assertTrue(reports.stream().anyMatch(r -> r.contains("HostBuffer[F32 x 1003, ") && r.contains("segment()")),
                "the report says why it was left: " + reports);
        collectAFewTimes();
        assertEquals(0, releases.hostFrees.get(), "not freed under a segment that may still be in use");
        segment.setAtIndex(ValueLayout.JAVA_FLOAT, 0, 1f);
        ctx.close();
        assertEquals(1, releases.hostFrees.get(), "freed by the context's close");
    }

    @Test
    void aClosedHostBufferIsNotFreedAgainNorReported() throws Exception {
        DeviceContext ctx = open();
        ctx.allocateHost(DType.F32, 1004).close();
        assertEquals(1, releases.hostFrees.get());
        collectAFewTimes();
        ctx.close();
        assertEquals(1, releases.hostFrees.get(), "freed once");
        assertEquals(0, reportsOf("HostBuffer[F32 x 1004, "), "no leak: " + reports);
    }

    @Test
    void anUnreachableMappedBufferIsFreedWithoutBeingCopiedBack() throws Exception {
        DeviceContext ctx = open();
        DeviceBuffer device = ctx.allocate(DType.F32, 1005);
        mapAndDrop(device);
        assertTrue(collectUntil(() -> releases.hostFrees.get() == 1), "the leaked mapping's pinned memory was freed");
        assertEquals(0, hostToDeviceCopies.get(), "a leak is not copied back over what the device buffer holds now");
        assertEquals(1, reportsOf("HostBuffer[F32 x 1005, "), "reported once: " + reports);
        Reference.reachabilityFence(device);
    }

    // ---------------------------------------------------------------- events

    @Test
    void anUnreachableOpenEventIsDestroyedOnceReportedOnceAndNotDestroyedAgainByTheContextsClose() throws Exception {
        DeviceContext ctx = open();
        createEventAndDrop(ctx, EventFlag.TIMING);
        assertTrue(collectUntil(() -> releases.eventDestroys.get() == 1), "the leaked event was destroyed");
        collectAFewTimes();
        assertEquals(1, releases.eventDestroys.get(), "destroyed once");
        assertEquals(1, reportsOf("DeviceEvent[cpu:0 [TIMING]]"), "reported once, naming it: " + reports);
        ctx.close();
        assertEquals(1, releases.eventDestroys.get(), "the context's close does not destroy it again");
    }

    @Test
    void anEventWithAPendingRecordIsDestroyedOnlyAfterTheRecordHasRun() throws Exception {
        DeviceContext ctx = open();
        deviceDone = false;
        recordDroppedEvent(ctx.stream(), ctx, EventFlag.BLOCKING_SYNC);
        collectAFewTimes();
        assertEquals(0, releases.eventDestroys.get(), "not destroyed while its record may still run");
        deviceDone = true;
        assertTrue(collectUntil(() -> releases.eventDestroys.get() == 1), "destroyed once the record has run");
        assertEquals(1, reportsOf("DeviceEvent[cpu:0 [BLOCKING_SYNC]]"), "reported once: " + reports);
    }

    @Test
    void aGraphKeepsTheEventsItsWorkNames() throws Exception {
        DeviceContext ctx = open();
        DeviceGraph graph = graphRecordingDroppedEvent(ctx.stream(), ctx, EventFlag.INTERPROCESS);
        collectAFewTimes();
        assertEquals(0, releases.eventDestroys.get(), "not destroyed while a graph that records it lives");
        Reference.reachabilityFence(graph);
        graph = null;
        assertTrue(collectUntil(() -> releases.eventDestroys.get() == 1), "destroyed once the graph is gone too");
    }

    @Test
    void anEventWhoseNativeHandleWasTakenIsReportedButDestroyedOnlyByTheContextsClose() throws Exception {
        DeviceContext ctx = open();
        nativeHandleOfDroppedEvent(ctx, EventFlag.TIMING, EventFlag.BLOCKING_SYNC);
        assertTrue(collectUntil(() -> reportsOf("DeviceEvent[cpu:0 [TIMING, BLOCKING_SYNC]]") == 1
                || reportsOf("DeviceEvent[cpu:0 [BLOCKING_SYNC, TIMING]]") == 1), "the leak is reported: " + reports);
        collectAFewTimes();
        assertEquals(0, releases.eventDestroys.get(), "not destroyed under another library's use of its handle");
        ctx.close();
        assertEquals(1, releases.eventDestroys.get(), "destroyed by the context's close");
    }

    @Test
    void aClosedEventIsNotDestroyedAgainNorReported() throws Exception {
        DeviceContext ctx = open();
        ctx.createEvent().close();
        assertEquals(1, releases.eventDestroys.get());
        collectAFewTimes();
        ctx.close();
        assertEquals(1, releases.eventDestroys.get(), "destroyed once");
        assertEquals(0, reportsOf("DeviceEvent[cpu:0 []]"), "no leak: " + reports);
    }

    // ---------------------------------------------------------------- functions

    @Test
    void anUnreachableOpenFunctionIsUnloadedOnceReportedOnceAndNotUnloadedAgainByTheContextsClose() throws Exception {
        DeviceContext ctx = open();
        compileAndDrop(ctx, "leaked_unused");
        assertTrue(collectUntil(() -> releases.unloads.get() == 1), "the leaked function was unloaded");
        collectAFewTimes();
        assertEquals(1, releases.unloads.get(), "unloaded once");
        assertEquals(1, reportsOf("DeviceFunction[leaked_unused on cpu:0]"), "reported once, naming it: " + reports);
        ctx.close();
        assertEquals(1, releases.unloads.get(), "the context's close does not unload it again");
    }

    @Test
    void aFunctionWhoseModuleVariableWasHandedOutIsReportedButLeftToTheContextsClose() throws Exception {
        DeviceContext ctx = open();
        globalOfDroppedFunction(ctx, "leaked_with_global");
        assertTrue(collectUntil(() -> reportsOf("DeviceFunction[leaked_with_global on cpu:0]") == 1),
                "reported: " + reports);
        collectAFewTimes();
        assertEquals(0, releases.unloads.get(), "not unloaded: a copy enqueued on its variable would not keep it");
        assertTrue(reports.stream().anyMatch(m -> m.contains("global")), "says why: " + reports);
        ctx.close();
        assertEquals(1, releases.unloads.get(), "unloaded by the context's close, once");
    }

    @Test
    void aFunctionWithAPendingLaunchIsUnloadedOnlyAfterTheLaunchHasRun() throws Exception {
        DeviceContext ctx = open();
        deviceDone = false;
        launchDroppedFunction(ctx, "leaked_launched");
        collectAFewTimes();
        assertEquals(0, releases.unloads.get(), "not unloaded while its launch may still run");
        deviceDone = true;
        assertTrue(collectUntil(() -> releases.unloads.get() == 1), "unloaded once the launch has run");
        assertEquals(1, reportsOf("DeviceFunction[leaked_launched on cpu:0]"), "reported once: " + reports);
    }

    @Test
    void aClosedFunctionIsNotUnloadedAgainNorReported() throws Exception {
        DeviceContext ctx = open();
        ctx.compile(Kernel.named("closed_fn").java(t -> { }).build()).close();
        assertEquals(1, releases.unloads.get());
        collectAFewTimes();
        ctx.close();
        assertEquals(1, releases.unloads.get(), "unloaded once");
        assertEquals(0, reportsOf("DeviceFunction[closed_fn on cpu:0]"), "no leak: " + reports);
    }

    @Test
    void anUnreachableOpenStreamIsLeftToTheContextsCloseWhichDestroysItOnce() throws Exception {
        DeviceContext ctx = open();
        ctx.createStream().enqueueMarker();
        collectAFewTimes();
        assertEquals(0, streamDestroys.get(), "streams are not the leak detector's (see LeakDetector)");
        ctx.close();
        assertEquals(1, streamDestroys.get(), "the context's close destroys the stream it still owns, once");
    }

    private static void allocateHostAndDrop(DeviceContext ctx, long count) {
        ctx.allocateHost(DType.F32, count);
    }

    private static void copyFromDroppedHostBuffer(DeviceContext ctx, DeviceBuffer destination) {
        ctx.stream().enqueueCopy(ctx.allocateHost(DType.F32, destination.count()), destination);
    }

    private static MemorySegment segmentOfDroppedHostBuffer(DeviceContext ctx, long count) {
        return ctx.allocateHost(DType.F32, count).segment();
    }

    private static void mapAndDrop(DeviceBuffer device) {
        device.mapToHost().setFloat(0, 1f);
    }

    private static void createEventAndDrop(DeviceContext ctx, EventFlag flag) {
        ctx.createEvent(flag);
    }

    private static void recordDroppedEvent(DeviceStream stream, DeviceContext ctx, EventFlag flag) {
        stream.enqueueRecord(ctx.createEvent(flag));
    }

    private static DeviceGraph graphRecordingDroppedEvent(DeviceStream stream, DeviceContext ctx, EventFlag flag) {
        DeviceEvent event = ctx.createEvent(flag);
        return stream.capture(s -> s.enqueueRecord(event));
    }

    private static void nativeHandleOfDroppedEvent(DeviceContext ctx, EventFlag... flags) {
        ctx.createEvent(flags).nativeHandle();
    }

    private static void globalOfDroppedFunction(DeviceContext ctx, String name) {
        ctx.compile(Kernel.named(name).java(t -> { }).build()).global("table", DType.F32);
    }

    private static void compileAndDrop(DeviceContext ctx, String name) {
        ctx.compile(Kernel.named(name).java(t -> { }).build());
    }

    private static void launchDroppedFunction(DeviceContext ctx, String name) {
        ctx.stream().enqueueLaunch(ctx.compile(Kernel.named(name).java(t -> { }).build()), LaunchConfig.of(1, 1));
    }

    private static void allocateAndDrop(DeviceContext ctx) {
        ctx.allocate(DType.F32, 1024);
    }

    private static DeviceBuffer sliceOfDropped(DeviceContext ctx) {
        return ctx.allocate(DType.I32, 64).slice(0, 8);
    }
}
