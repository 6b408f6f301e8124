package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.StreamOptions;
import dev.sluice.kernel.Kernels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * docs/reactive.md's snippets, written out as a new user would from the page, and the promises of the prose around them
 * (where signals arrive, a bad argument as onError, the pipeline's defaults and bounds, close).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveSnippetsTest {

    static final Kernel SCALE_ADD = TestDevice.SCALE_ADD;
    static DeviceContext ctx;
    static DeviceFunction scale;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
        scale = ctx.compile(SCALE_ADD);
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    @Test
    void reactiveStreamSnippet() {
        float[] host = {1, 2, 3, 4}, result = new float[4];
        try (DeviceStream st = ctx.createStream(); DeviceBuffer in = ctx.allocate(DType.F32, 4);
                DeviceBuffer out = ctx.allocate(DType.F32, 4)) {
            ReactiveStream rx = ReactiveStream.of(st);
            Mono<float[]> m = rx.copy(HostData.of(host), in)
                    .then(rx.launch(scale, LaunchConfig.forElements(4), in, out, 4L, 2f, 1f))
                    .then(rx.copy(out, HostData.of(result)))
                    .thenReturn(result);
            assertArrayEquals(new float[] {3, 5, 7, 9}, m.block(Duration.ofSeconds(10)));
            // a bad argument is an onError with the stream's InvalidArgumentException, nothing enqueued
            long before = st.enqueueMarker().sequence();
            StepVerifier.create(rx.copy(HostData.of(new float[3]), in))
                    .expectError(InvalidArgumentException.class).verify(Duration.ofSeconds(10));
            assertEquals(before + 1, st.enqueueMarker().sequence());
        }
    }

    @Test
    void signalsArriveOnTheCompletionThreadOrTheSubscriberIfDone() {
        try (DeviceStream st = ctx.createStream()) {
            ReactiveStream rx = ReactiveStream.of(st);
            AtomicReference<String> t = new AtomicReference<>();
            rx.hostFunction(() -> sleep(30)).doOnSuccess(v -> t.set(Thread.currentThread().getName()))
                    .block(Duration.ofSeconds(10));
            // the function sleeps, so the signal cannot find the work done at subscription
            assertTrue(t.get().startsWith("sluice-completion-"), t.get());
        }
    }

    @Test
    void devicePlanSnippetWithSwitches() {
        float[] host = {1, 2, 3, 4}, result = new float[4];
        try (DeviceStream copyStream = ctx.createStream(); DeviceStream computeStream = ctx.createStream();
                DeviceBuffer in = ctx.allocate(DType.F32, 4); DeviceBuffer out = ctx.allocate(DType.F32, 4)) {
            Mono<float[]> m = DevicePlan.on(copyStream)
                    .then(s -> s.enqueueCopy(HostData.of(host), in))
                    .switchTo(computeStream)                 // waits, on the device, for the upload
                    .then(s -> s.enqueueLaunch(scale, LaunchConfig.forElements(4), in, out, 4L, 2f, 1f))
                    .switchTo(copyStream)                    // waits, on the device, for the kernel
                    .then(s -> s.enqueueCopy(out, HostData.of(result)))
                    .toMono()
                    .thenReturn(result);
            AtomicReference<String> t = new AtomicReference<>();
            assertArrayEquals(new float[] {3, 5, 7, 9},
                    m.doOnNext(r -> t.set(Thread.currentThread().getName())).block(Duration.ofSeconds(10)));
            // the completion thread, or the subscribing thread where the plan's work was done before it subscribed
            String me = Thread.currentThread().getName();
            assertTrue(t.get().startsWith("sluice-completion-") || t.get().equals(me), t.get());
            CompletableFuture<Void> f = DevicePlan.on(copyStream).then(s -> s.enqueueMarker()).enqueue();
            f.join();
        }
    }

    @Test
    void repeatedPlanSnippet() {
        Kernel clampK = Kernels.elementwise("clamp")
                .input(KernelParam.pointer("y", DType.F32))
                .output(KernelParam.pointer("z", DType.F32))
                .body("z = min(max(y, 0.0f), 10.0f)")
                .build();
        DeviceFunction clamp = ctx.compile(clampK);
        long n = 16;
        int iterations = 5;
        LaunchConfig config = LaunchConfig.forElements(n);
        try (DeviceStream stream = ctx.createStream(); DeviceBuffer x = ctx.allocate(DType.F32, n);
                DeviceBuffer y = ctx.allocate(DType.F32, n); DeviceBuffer z = ctx.allocate(DType.F32, n)) {
            stream.enqueueFill(x, 100f);
            RepeatedPlan kept;
            try (RepeatedPlan iteration = DevicePlan.on(stream)
                    .then(s -> s.enqueueLaunch(scale, config, x, y, n, 2f, 1f))
                    .then(s -> s.enqueueLaunch(clamp, config, y, z, n))
                    .repeated()) {
                for (int i = 0; i < iterations; i++) {
                    iteration.enqueue();                     // or iteration.toMono()
                }
                stream.synchronize();
                kept = iteration;
                assertEquals(1, iteration.builds());
                assertEquals(iterations, iteration.replays());
            }
            assertEquals(10f, stream.sync().toFloatArray(z)[0]);
            kept.close(); // idempotent
            StepVerifier.create(kept.toMono()).expectError(ClosedResourceException.class).verify(Duration.ofSeconds(10));
        }
    }

    @Test
    void pipelineSnippet() {
        List<float[]> chunks = new ArrayList<>();
        for (int c = 0; c < 5; c++) {
            float[] a = new float[c == 4 ? 100 : 1000];
            java.util.Arrays.fill(a, c);
            chunks.add(a);
        }
        List<float[]> written = new ArrayList<>();
        GpuPipeline<float[], float[]> kept;
        try (DeviceContext ctx = DeviceContext.open()) {
            DeviceFunction scale = ctx.compile(SCALE_ADD);              // out = in * a + b, with (in, out, n, a, b)
            try (GpuPipeline<float[], float[]> pipeline = GpuPipeline.builder(ctx)
                    .lanes(3)                                             // at most 3 chunks in flight
                    .chunkElements(1 << 10, DType.F32)                    // lane buffers
                    .stage((lane, in, out) -> lane.stream().enqueueLaunch(scale,
                            LaunchConfig.forElements(lane.elements()), in, out, lane.elements(), 2f, 1f))
                    .build(Chunks.floats())) {                            // float[] in, float[] out
                kept = pipeline;
                assertEquals(1, pipeline.chunksPerLane());
                pipeline.process(Flux.fromIterable(chunks))              // results in input order
                        .publishOn(Schedulers.parallel())
                        .doOnNext(written::add)
                        .blockLast(Duration.ofSeconds(20));
                assertEquals(5, pipeline.metrics().chunksEmitted());
            }
            assertTrue(kept.isClosed());
            StepVerifier.create(kept.process(Flux.just(new float[1])))
                    .expectError(ClosedResourceException.class).verify(Duration.ofSeconds(10));
            kept.released().orTimeout(10, TimeUnit.SECONDS).join();
        }
        assertEquals(5, written.size());
        for (int c = 0; c < 5; c++) {
            assertEquals(chunks.get(c).length, written.get(c).length);
            assertEquals(2f * c + 1, written.get(c)[0]);
        }
    }

    @Test
    void pipelineBounds() {
        var b = GpuPipeline.builder(ctx).chunkElements(16, DType.F32);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> b.chunksPerLane(65));
        assertEquals("chunksPerLane", e.argument());
        b.chunksPerLane(64);
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(1).chunkElements(4, DType.F32).inPlace()
                .stage((lane, in, out) -> null).build(Chunks.floats())) {
            StepVerifier.create(p.process(Flux.just(new float[5]))).expectError().verify(Duration.ofSeconds(10));
            StepVerifier.create(p.process(Flux.just(new float[0]))).expectError().verify(Duration.ofSeconds(10));
        }
    }

    @Test
    void otherShapesCompile() {
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(8, DType.F32)
                .output(DType.F32, len -> 1)
                .scratch(DType.F32, 8)
                .streamOptions(StreamOptions.defaults())
                .hostScheduler(Schedulers.single())
                .graphReplay(false).elementwiseFusion(false).keepLanes(false)
                .stage((lane, in, out) -> {
                    lane.scratch(0);
                    lane.sequence();
                    return lane.stream().enqueueFill(out, 1f);
                })
                .build(Chunks.floats())) {
            List<float[]> r = p.processUnordered(Flux.just(new float[8], new float[3])).collectList()
                    .block(Duration.ofSeconds(10));
            assertEquals(2, r.size());
            assertEquals(1, r.get(0).length);
        }
    }

    @Test
    void severalDevicesSnippet() {
        Kernel SCALE = Kernel.named("scale")
                .params(KernelParam.pointer("v", DType.F32), KernelParam.scalar("n", DType.I64),
                        KernelParam.scalar("f", DType.F32))
                .java(t -> {
                    long i = t.globalIdX();
                    if (i < t.longArg(1)) {
                        var v = t.pointer(0);
                        v.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i,
                                v.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i) * t.floatArg(2));
                    }
                })
                .build();
        try (DeviceContext gpu0 = DeviceContext.open("cpu", 0); DeviceContext gpu1 = DeviceContext.open("cpu", 0)) {
            List<DeviceContext> gpus = List.of(gpu0, gpu1);
            AtomicInteger n = new AtomicInteger();
            try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(gpus).lanes(3)
                    .chunkElements(1 << 10, DType.F32).inPlace()
                    .kernel(SCALE)                                      // loaded on every context when the pipeline is built
                    .stage((lane, in, out) -> lane.stream().enqueueLaunch(lane.function(SCALE),
                            LaunchConfig.forElements(lane.elements()), in, lane.elements(), 2f))
                    .build(Chunks.floats())) {
                p.process(Flux.range(0, 8).map(i -> new float[] {i})).doOnNext(r -> assertEquals(2f * n.getAndIncrement(), r[0]))
                        .blockLast(Duration.ofSeconds(20));
            }
            assertEquals(8, n.get());
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
