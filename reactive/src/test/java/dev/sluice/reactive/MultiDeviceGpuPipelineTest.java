package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceException;
import dev.sluice.DeviceFunction;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.SluiceProperties;
import dev.sluice.testing.ExpectWarning;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;

/**
 * A {@link GpuPipeline} over two contexts, one per device: lanes on both, results in input order, kernels loaded
 * on each, pinned chunks and targets of either context, and a fault on one device failing the {@code Flux}
 * without hanging the other. On the CPU simulator the test gives itself a second device
 * ({@code sluice.cpu.devices}); on a GPU backend it needs two devices and skips, saying so, on one.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MultiDeviceGpuPipelineTest {

    private static final int N = 4096;
    private static @org.jspecify.annotations.Nullable String cpuDevicesBefore;
    private static boolean cpuDevicesSet;
    private static Api api;
    private static DeviceContext first;
    private static DeviceContext second;

    @BeforeAll
    static void open() {
        try (DeviceContext probe = TestDevice.open()) {
            api = probe.api();
        }
        if (api == Api.CPU && DeviceContext.deviceCount(Api.CPU) < 2) {
            cpuDevicesBefore = System.getProperty(SluiceProperties.CPU_DEVICES);
            cpuDevicesSet = true;
            System.setProperty(SluiceProperties.CPU_DEVICES, "2");
        }
        int count = DeviceContext.deviceCount(api);
        Assumptions.assumeTrue(count >= 2, () -> "a pipeline over two devices needs two " + api.id() + " devices; this machine has "
                + count);
        first = DeviceContext.open(api, 0);
        second = DeviceContext.open(api, 1);
    }

    /** A JVM run for the fault case runs only that: after a device fault, a GPU's every context fails for the process. */
    @org.junit.jupiter.api.BeforeEach
    void onlyTheFaultCaseInAFaultRun(org.junit.jupiter.api.TestInfo test) {
        String name = test.getTestMethod().map(java.lang.reflect.Method::getName).orElse("");
        Assumptions.assumeFalse(Boolean.getBoolean("sluice.reactive.faultTest") && !name.equals("aFaultOnOneDeviceFailsTheFluxAndTheOtherDeviceGoesOn"),
                () -> "this JVM runs only the device-fault case (-Dsluice.reactive.faultTest=true)");
    }

    @AfterAll
    static void close() {
        if (first != null) {
            first.close();
        }
        if (second != null) {
            second.close();
        }
        if (cpuDevicesSet) {
            if (cpuDevicesBefore == null) {
                System.clearProperty(SluiceProperties.CPU_DEVICES);
            } else {
                System.setProperty(SluiceProperties.CPU_DEVICES, cpuDevicesBefore);
            }
        }
    }

    private static float[] chunk(int i) {
        float[] c = new float[N];
        for (int j = 0; j < N; j++) {
            c[j] = i * 10_000 + j;
        }
        return c;
    }

    private static void assertResult(int i, float[] r) {
        assertEquals(N, r.length);
        for (int j = 0; j < N; j++) {
            float expected = (i * 10_000 + j) * 2f + 1f;
            if (r[j] != expected) {
                throw new AssertionError("chunk " + i + " element " + j + ": " + r[j] + ", expected " + expected);
            }
        }
    }

    /** A stage that scales on whichever device its lane is, and counts the chunks each context ran. */
    private static GpuPipeline.Stage scaling(Map<DeviceContext, AtomicInteger> perContext) {
        return (lane, in, out) -> {
            perContext.computeIfAbsent(lane.context(), c -> new AtomicInteger()).incrementAndGet();
            lane.stream().enqueueLaunch(lane.function(TestDevice.DELAY), LaunchConfig.of(1, 1), 200L);
            return lane.stream().enqueueLaunch(lane.function(TestDevice.SCALE_ADD), LaunchConfig.forElements(lane.elements()),
                    in, out, lane.elements(), 2f, 1f);
        };
    }

    @Test
    void lanesOpenOnEveryContextAndResultsKeepTheirOrder() throws Exception {
        Map<DeviceContext, AtomicInteger> perContext = new ConcurrentHashMap<>();
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(List.of(first, second)).lanes(2)
                .chunkElements(N, DType.F32).kernel(TestDevice.SCALE_ADD).kernel(TestDevice.DELAY)
                .stage(scaling(perContext)).build(Chunks.floats())) {
            assertEquals(4, p.lanes(), "lanes(2) on each of two contexts");
            assertEquals(List.of(first, second), p.contexts());
            assertEquals(first, p.context());
            for (int run = 0; run < 2; run++) {
                List<float[]> results = p.process(Flux.range(0, 40).map(MultiDeviceGpuPipelineTest::chunk))
                        .collectList().block(java.time.Duration.ofSeconds(60));
                assertEquals(40, results.size());
                for (int i = 0; i < 40; i++) {
                    assertResult(i, results.get(i));
                }
            }
            assertTrue(perContext.getOrDefault(first, new AtomicInteger()).get() > 0, () -> "no chunk ran on " + first + ": " + perContext);
            assertTrue(perContext.getOrDefault(second, new AtomicInteger()).get() > 0, () -> "no chunk ran on " + second + ": " + perContext);
            assertEquals(80, perContext.values().stream().mapToInt(AtomicInteger::get).sum());
            assertEquals(4, p.metrics().lanesOpened(), "the second run reuses the lanes of both contexts");
        }
    }

    @Test
    void theKernelsArePerContextAndClosedOnceThePipelineIsReleased() throws Exception {
        List<DeviceFunction> seen = new ArrayList<>();
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(List.of(first, second)).lanes(1)
                .chunkElements(N, DType.F32).kernel(TestDevice.SCALE_ADD).kernel(TestDevice.SCALE_ADD)
                .stage((lane, in, out) -> {
                    DeviceFunction f = lane.function(TestDevice.SCALE_ADD);
                    assertEquals(lane.context(), f.context(), "the function of the lane's context");
                    synchronized (seen) {
                        seen.add(f);
                    }
                    return lane.stream().enqueueLaunch(f, LaunchConfig.forElements(lane.elements()), in, out, lane.elements(), 2f, 1f);
                })
                .build(Chunks.floats());
        List<float[]> results = p.process(Flux.range(0, 8).map(MultiDeviceGpuPipelineTest::chunk)).collectList()
                .block(java.time.Duration.ofSeconds(60));
        for (int i = 0; i < 8; i++) {
            assertResult(i, results.get(i));
        }
        p.close();
        p.released().get(30, TimeUnit.SECONDS);
        assertFalse(seen.isEmpty());
        for (DeviceFunction f : seen) {
            assertTrue(f.isClosed(), () -> f + " is owned by the released pipeline");
        }
    }

    @Test
    void aKernelThatWasNotDeclaredFailsTheChunkNamingIt() {
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(List.of(first, second)).lanes(1)
                .chunkElements(N, DType.F32).kernel(TestDevice.DELAY)
                .stage((lane, in, out) -> lane.stream().enqueueLaunch(lane.function(TestDevice.SCALE_ADD),
                        LaunchConfig.forElements(lane.elements()), in, out, lane.elements(), 2f, 1f))
                .build(Chunks.floats())) {
            AtomicReference<Throwable> error = new AtomicReference<>();
            p.process(Flux.range(0, 3).map(MultiDeviceGpuPipelineTest::chunk)).doOnError(error::set).onErrorComplete()
                    .blockLast(java.time.Duration.ofSeconds(60));
            InvalidArgumentException e = assertInstanceOf(InvalidArgumentException.class, error.get());
            assertTrue(e.getMessage().contains("kernel") && e.getMessage().contains("scale_add")
                    && e.getMessage().contains("delay_us"), e.getMessage());
        }
    }

    @Test
    void pinnedChunksAndTargetsOfEitherContextWork() throws Exception {
        int chunks = 12;
        // Inputs all pinned on the first context, targets all on the second: where the contexts share pinned memory
        // (every built-in backend) each lane copies both directly, with no staging; otherwise the lanes of one of the
        // two take the staged path for one direction.
        List<HostBuffer> inputs = new ArrayList<>();
        try (HostBuffer out = second.allocateHost(DType.F32, (long) chunks * N)) {
            for (int i = 0; i < chunks; i++) {
                HostBuffer h = first.allocateHost(DType.F32, N);
                float[] c = chunk(i);
                for (int j = 0; j < N; j++) {
                    h.setFloat(j, c[j]);
                }
                inputs.add(h);
            }
            Map<DeviceContext, AtomicInteger> perContext = new ConcurrentHashMap<>();
            try (GpuPipeline<HostBuffer, HostBuffer> p = GpuPipeline.builder(List.of(first, second)).lanes(2)
                    .chunkElements(N, DType.F32).kernel(TestDevice.SCALE_ADD).kernel(TestDevice.DELAY)
                    .stage(scaling(perContext))
                    .buildInto(Chunks.hostBuffers(), (chunk, seq, n) -> out.slice(seq * N, n))) {
                List<HostBuffer> results = p.process(Flux.fromIterable(inputs)).collectList().block(java.time.Duration.ofSeconds(60));
                assertEquals(chunks, results.size());
                for (int i = 0; i < chunks; i++) {
                    float[] r = new float[N];
                    for (int j = 0; j < N; j++) {
                        r[j] = out.getFloat((long) i * N + j);
                    }
                    assertResult(i, r);
                }
                assertTrue(perContext.size() == 2, () -> "chunks ran on " + perContext);
                if (first.sharesPinnedMemoryWith(second)) {
                    assertEquals(0, p.metrics().hostAllocations(), "no staging buffer where every lane can use the chunks' and"
                            + " targets' pinned memory directly");
                } else {
                    assertTrue(p.metrics().hostAllocations() > 0, "staging buffers for the lanes of the other context");
                }
            }
        } finally {
            inputs.forEach(HostBuffer::close);
        }
    }

    @Test
    void aTargetOfAContextOutsideThePipelineIsRefused() throws Exception {
        try (DeviceContext outsider = DeviceContext.open(api, 0);
             HostBuffer foreign = outsider.allocateHost(DType.F32, N);
             GpuPipeline<float[], HostBuffer> p = GpuPipeline.builder(List.of(first, second)).lanes(1)
                     .chunkElements(N, DType.F32).kernel(TestDevice.SCALE_ADD).kernel(TestDevice.DELAY)
                     .stage(scaling(new ConcurrentHashMap<>()))
                     .buildInto(Chunks.floats(), (chunk, seq, n) -> foreign)) {
            AtomicReference<Throwable> error = new AtomicReference<>();
            p.process(Flux.just(chunk(0))).doOnError(error::set).onErrorComplete().blockLast(java.time.Duration.ofSeconds(60));
            InvalidArgumentException e = assertInstanceOf(InvalidArgumentException.class, error.get());
            assertTrue(e.getMessage().contains("one of the pipeline's contexts"), e.getMessage());
        }
    }

    @Test
    void theBuilderChecksItsContexts() {
        assertThrows(NullPointerException.class, () -> GpuPipeline.builder((List<DeviceContext>) null));
        assertArgument("contexts", "holds 0 contexts", () -> GpuPipeline.builder(List.of()));
        assertArgument("contexts", "element 1 is null", () -> GpuPipeline.builder(Arrays.asList(first, null)));
        assertArgument("contexts", "appears twice", () -> GpuPipeline.builder(List.of(first, second, first)));
        List<DeviceContext> many = new ArrayList<>();
        for (int i = 0; i <= GpuPipeline.Builder.MAX_CONTEXTS; i++) {
            many.add(first);
        }
        assertArgument("contexts", "1 to " + GpuPipeline.Builder.MAX_CONTEXTS, () -> GpuPipeline.builder(many));
        assertThrows(NullPointerException.class, () -> GpuPipeline.builder(first).kernel(null));
    }

    private static void assertArgument(String argument, String text, Runnable r) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, r::run);
        assertEquals(argument, e.argument());
        assertTrue(e.getMessage().contains(text), e.getMessage());
    }

    /** Throws in the simulator; writes through a null pointer on a GPU. */
    static final Kernel FAULT = Kernel.named("pipeline_fault")
            .params(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void pipeline_fault(long long n) {
                        *((volatile long long*) 0x8) = n;
                    }""")
            .java(t -> {
                throw new IllegalStateException("deliberate fault of the multi-device pipeline test");
            })
            .build();

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void aFaultOnOneDeviceFailsTheFluxAndTheOtherDeviceGoesOn() throws Exception {
        // A fault on a GPU leaves its device unusable for the rest of the process, so only where it can be undone:
        // the simulator, or a GPU run that asks for it in a JVM of its own.
        Assumptions.assumeTrue(api == Api.CPU || Boolean.getBoolean("sluice.reactive.faultTest"), () -> "a device fault on "
                + api.id() + " poisons the device for the process; run alone with -Dsluice.reactive.faultTest=true");
        try (DeviceContext healthy = DeviceContext.open(api, 0, dev.sluice.ContextOptions.defaults().withPrimaryContext(false));
             DeviceContext faulty = DeviceContext.open(api, 1, dev.sluice.ContextOptions.defaults().withPrimaryContext(false))) {
            Map<DeviceContext, AtomicInteger> perContext = new ConcurrentHashMap<>();
            GpuPipeline.Stage scale = scaling(perContext);
            GpuPipeline<float[], float[]> p = GpuPipeline.builder(List.of(healthy, faulty)).lanes(2)
                    .chunkElements(N, DType.F32).kernel(TestDevice.SCALE_ADD).kernel(TestDevice.DELAY).kernel(FAULT)
                    .stage((lane, in, out) -> lane.context() == faulty
                            ? lane.stream().enqueueLaunch(lane.function(FAULT), LaunchConfig.of(1, 1), 1L)
                            : scale.enqueue(lane, in, out))
                    .build(Chunks.floats());
            AtomicReference<Throwable> error = new AtomicReference<>();
            p.process(Flux.range(0, 40).map(MultiDeviceGpuPipelineTest::chunk)).doOnError(error::set).onErrorComplete()
                    .blockLast(java.time.Duration.ofSeconds(60));
            assertInstanceOf(DeviceException.class, error.get(), () -> "the fault fails the Flux: " + error.get());
            assertTrue(faulty.isFaulted());
            p.close();
            p.released().get(30, TimeUnit.SECONDS);

            // The healthy device goes on, in a pipeline of its own. Except on CUDA: its driver keeps an illegal address
            // in every context of every device for the rest of the process (CudaFaultIsolationTest shows it with a
            // context that Sluice never touched), so there the healthy device's pipeline must fail cleanly instead.
            boolean processPoisoned = api == Api.CUDA;
            if (!processPoisoned) {
                assertFalse(healthy.isFaulted());
            }
            AtomicReference<Throwable> later = new AtomicReference<>();
            List<float[]> results = null;
            try (GpuPipeline<float[], float[]> alone = GpuPipeline.builder(List.of(healthy)).lanes(2)
                    .chunkElements(N, DType.F32).kernel(TestDevice.SCALE_ADD).kernel(TestDevice.DELAY)
                    .stage(scaling(new ConcurrentHashMap<>())).build(Chunks.floats())) {
                results = alone.process(Flux.range(0, 6).map(MultiDeviceGpuPipelineTest::chunk)).doOnError(later::set)
                        .onErrorComplete().collectList().block(java.time.Duration.ofSeconds(60));
            } catch (DeviceException refused) { // the pipeline could not even open its lanes
                later.set(refused);
            }
            if (processPoisoned) {
                assertInstanceOf(DeviceException.class, later.get(), () -> "the poisoned process fails the healthy device's"
                        + " pipeline as a device fault: " + later.get());
            } else {
                assertEquals(null, later.get());
                for (int i = 0; i < 6; i++) {
                    assertResult(i, results.get(i));
                }
            }
        }
    }
}
