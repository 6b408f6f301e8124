package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectWarning;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GpuPipelineTest {

    static DeviceContext ctx;
    static DeviceFunction scaleAdd;
    static DeviceFunction addOne;
    static DeviceFunction sum;
    static DeviceFunction delay;
    static final LaunchConfig ONE = LaunchConfig.of(1, 1);

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
        compileKernels();
    }

    /**
     * Makes {@code c} the tests' context, closing the one a superclass's {@code @BeforeAll} may have opened before a
     * subclass's (JUnit runs both where the subclass's does not hide it, which leaked that context and its functions).
     */
    static void useContext(DeviceContext c) {
        if (ctx != null && ctx != c) {
            ctx.close();
        }
        ctx = c;
        compileKernels();
    }

    static void compileKernels() {
        scaleAdd = ctx.compile(TestDevice.SCALE_ADD);
        addOne = ctx.compile(TestDevice.ADD_ONE);
        sum = ctx.compile(TestDevice.SUM);
        delay = ctx.compile(TestDevice.DELAY);
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    /** Chunk {@code i}: element j is i * 1000 + j (exact in float for the sizes used here). */
    static float[] chunk(int i, int n) {
        float[] c = new float[n];
        for (int j = 0; j < n; j++) {
            c[j] = i * 1000 + j;
        }
        return c;
    }

    static void assertResultOf(int i, int n, float[] r) {
        assertEquals(n, r.length, "length of result " + i);
        for (int j = 0; j < n; j++) {
            if (r[j] != (i * 1000 + j) * 2f + 1f) {
                throw new AssertionError("result " + i + "[" + j + "] = " + r[j] + ", expected " + ((i * 1000 + j) * 2f + 1f));
            }
        }
    }

    /** The chunk number a result of {@link #scaling} came from. */
    static int idOf(float[] r) {
        return Math.round((r[0] - 1f) / 2f / 1000f);
    }

    /** out = in * 2 + 1, after a device-side delay of {@code delayUs.applyAsLong(sequence)} µs. */
    static GpuPipeline<float[], float[]> scaling(int lanes, long chunkElements, LongUnaryOperator delayUs) {
        return GpuPipeline.builder(ctx)
                .lanes(lanes)
                .chunkElements(chunkElements, DType.F32)
                .stage((lane, in, out) -> {
                    long d = delayUs.applyAsLong(lane.sequence());
                    if (d > 0) {
                        lane.stream().enqueueLaunch(delay, ONE, d);
                    }
                    return lane.stream().enqueueLaunch(scaleAdd, LaunchConfig.forElements(lane.elements()), in, out,
                            lane.elements(), 2f, 1f);
                })
                .build(Chunks.floats());
    }

    // ---------------------------------------------------------------- order

    @Test
    void resultsComeOutInInputOrderAcrossLanes() throws Exception {
        // In each group of three, the first chunk is the slowest: lanes finish out of order.
        GpuPipeline<float[], float[]> p = scaling(3, 512, seq -> (3 - seq % 3) * 1500);
        StepVerifier.create(p.process(Flux.range(0, 30).map(i -> chunk(i, 512))))
                .recordWith(ArrayList::new)
                .expectNextCount(30)
                .consumeRecordedWith(results -> {
                    int i = 0;
                    for (float[] r : results) {
                        assertResultOf(i++, 512, r);
                    }
                })
                .verifyComplete();
        assertEquals(3, p.metrics().lanesOpened());
        assertTrue(p.metrics().maxInFlight() <= 3, p.metrics().toString());
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void unorderedEmitsEveryResultOnceAsSoonAsReady() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(3, 512, seq -> (3 - seq % 3) * 1500);
        List<Integer> order = new ArrayList<>();
        StepVerifier.create(p.processUnordered(Flux.range(0, 30).map(i -> chunk(i, 512))))
                .recordWith(ArrayList::new)
                .expectNextCount(30)
                .consumeRecordedWith(results -> {
                    for (float[] r : results) {
                        int id = idOf(r);
                        assertResultOf(id, 512, r);
                        order.add(id);
                    }
                })
                .verifyComplete();
        assertEquals(30, new TreeSet<>(order).size(), "each chunk exactly once: " + order);
        assertTrue(p.metrics().maxInFlight() <= 3);
        System.out.println("unordered emission order: " + order);
        TestDevice.closeAndAwaitReleased(p);
    }

    // ---------------------------------------------------------------- back-pressure

    @Test
    void requestingOneAtATimeStopsUploadsAtTheLaneCount() throws Exception {
        assertRequestingOneAtATimeTakesAtMost(scaling(3, 256, seq -> 0), 3, "no demand: only one chunk per lane is taken");
    }

    /**
     * Requests results one at a time from a 10-chunk {@code Flux} through {@code p}: with no demand exactly
     * {@code limit} chunks are taken, and after each result at most {@code limit} more than were emitted.
     */
    private static void assertRequestingOneAtATimeTakesAtMost(GpuPipeline<float[], float[]> p, int limit, String why)
            throws Exception {
        AtomicInteger pulled = new AtomicInteger();
        Flux<float[]> source = Flux.range(0, 10).map(i -> chunk(i, 256)).doOnNext(c -> pulled.incrementAndGet());
        StepVerifier.Step<float[]> step = StepVerifier.create(p.process(source), 0)
                .expectSubscription()
                .thenAwait(Duration.ofMillis(100))
                .then(() -> {
                    assertEquals(limit, pulled.get(), why);
                    assertEquals(limit, p.metrics().chunksStarted());
                });
        for (int k = 0; k < 10; k++) {
            int emitted = k + 1;
            step = step.thenRequest(1)
                    .assertNext(r -> assertResultOf(emitted - 1, 256, r))
                    .thenAwait(Duration.ofMillis(20))
                    .then(() -> assertTrue(pulled.get() <= emitted + limit, "pulled " + pulled.get() + " after " + emitted + " results"))
                    .then(() -> assertTrue(p.metrics().chunksStarted() - p.metrics().chunksEmitted() <= limit, p.metrics().toString()));
        }
        step.verifyComplete();
        assertEquals(10, pulled.get());
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aSlowSubscriberNeverHasMoreThanLanesChunksTaken() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(2, 256, seq -> 200);
        AtomicInteger pulled = new AtomicInteger();
        AtomicLong worst = new AtomicLong();
        Flux<float[]> source = Flux.range(0, 40).map(i -> chunk(i, 256)).doOnNext(c -> {
            long taken = pulled.incrementAndGet() - p.metrics().chunksEmitted();
            worst.accumulateAndGet(taken, Math::max);
        });
        StepVerifier.create(p.process(source)
                        .publishOn(Schedulers.boundedElastic(), 1)
                        .doOnNext(r -> sleep(3))) // a slow subscriber, on a thread where it may block
                .expectNextCount(40)
                .verifyComplete();
        assertTrue(worst.get() <= 2, "chunks taken beyond results emitted: " + worst.get());
        assertTrue(p.metrics().maxInFlight() <= 2);
        TestDevice.closeAndAwaitReleased(p);
    }

    // ---------------------------------------------------------------- errors

    @Test
    void aStageThatThrowsFailsTheFluxAfterInFlightLanesHaveDrained() throws Exception {
        assertAStageThrowingAtChunk7FailsTheFluxOnceDrained(GpuPipeline.builder(ctx).lanes(3), 3);
    }

    /**
     * The scaling stage, 3 ms of device time per chunk, on chunks of 256 floats from {@code builder}, throwing for
     * chunk 7: the Flux fails with that error only once the chunks in flight have drained, and no more than
     * {@code inFlight} chunks were started after chunk 7.
     */
    private static void assertAStageThrowingAtChunk7FailsTheFluxOnceDrained(GpuPipeline.Builder builder, int inFlight)
            throws Exception {
        GpuPipeline.Stage base = scaling(1, 1, seq -> 3000).stage();
        GpuPipeline<float[], float[]> p = builder.chunkElements(256, DType.F32)
                .stage((lane, in, out) -> {
                    if (lane.sequence() == 7) {
                        throw new IllegalStateException("chunk 7 refused");
                    }
                    return base.enqueue(lane, in, out);
                })
                .build(Chunks.floats());
        AtomicLong inFlightAtError = new AtomicLong(-1);
        StepVerifier.create(p.process(Flux.range(0, 50).map(i -> chunk(i, 256)))
                        .doOnError(e -> inFlightAtError.set(p.metrics().inFlight())))
                .thenConsumeWhile(r -> true)
                .expectErrorMessage("chunk 7 refused")
                .verify(Duration.ofSeconds(30));
        assertEquals(0, inFlightAtError.get(), "the error came before the chunks in flight had drained");
        assertTrue(p.metrics().chunksStarted() <= 7 + inFlight, p.metrics().toString());
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aFailedDeviceOperationOfOneChunkFailsTheFlux() throws Exception {
        GpuPipeline<float[], float[]> p = failingAtChunk5(GpuPipeline.builder(ctx).lanes(3), 0);
        assertFailsWithChunk5sErrorOnceDrained(p);
        TestDevice.closeAndAwaitReleased(p);
    }

    /**
     * The scaling stage on chunks of 256 floats, after a device-side delay of {@code delayUs} µs (0: none), whose
     * chunk 5 then fails on the device: a host step on its stream throws.
     */
    private static GpuPipeline<float[], float[]> failingAtChunk5(GpuPipeline.Builder builder, long delayUs) {
        return builder.chunkElements(256, DType.F32)
                .stage((lane, in, out) -> {
                    if (delayUs > 0) {
                        lane.stream().enqueueLaunch(delay, ONE, delayUs);
                    }
                    DeviceFuture<Void> k = lane.stream().enqueueLaunch(scaleAdd, LaunchConfig.forElements(lane.elements()), in, out,
                            lane.elements(), 2f, 1f);
                    if (lane.sequence() == 5) {
                        return lane.stream().enqueueHostFunction(() -> {
                            throw new IllegalStateException("host step of chunk 5 failed");
                        });
                    }
                    return k;
                })
                .build(Chunks.floats());
    }

    /** 20 chunks through {@code p}: the Flux fails with chunk 5's error, and only once no chunk is in flight. */
    private static void assertFailsWithChunk5sErrorOnceDrained(GpuPipeline<float[], float[]> p) {
        AtomicLong inFlightAtError = new AtomicLong(-1);
        StepVerifier.create(p.process(Flux.range(0, 20).map(i -> chunk(i, 256)))
                        .doOnError(e -> inFlightAtError.set(p.metrics().inFlight())))
                .thenConsumeWhile(r -> true)
                .expectErrorMessage("host step of chunk 5 failed")
                .verify(Duration.ofSeconds(30));
        assertEquals(0, inFlightAtError.get());
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.reactive.PipelineSubscriber", containing = "threw; the subscription ends with it")
    void aSubscriberWhoseOnNextThrowsEndsItsSubscriptionAndTheLanesGoBack() throws Exception {
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(4, DType.F32).inPlace()
                .stage((lane, in, out) -> null).build(Chunks.floats());
        java.util.concurrent.CompletableFuture<Throwable> error = new java.util.concurrent.CompletableFuture<>();
        AtomicInteger nexts = new AtomicInteger();
        p.process(Flux.range(0, 50).map(i -> new float[] {i, i, i, i})).subscribe(new reactor.core.CoreSubscriber<>() {
            @Override
            public void onSubscribe(org.reactivestreams.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(float[] value) {
                nexts.incrementAndGet();
                throw new IllegalStateException("a broken subscriber"); // against rule 2.13
            }

            @Override
            public void onError(Throwable t) {
                error.complete(t);
            }

            @Override
            public void onComplete() {
                error.complete(null);
            }
        });
        Throwable t = error.get(10, TimeUnit.SECONDS);
        assertTrue(t instanceof IllegalStateException && "a broken subscriber".equals(t.getMessage()), "its error: " + t);
        assertEquals(1, nexts.get(), "nothing after the throw");
        p.close();
        p.released().get(10, TimeUnit.SECONDS); // the subscription ended and handed its lanes back
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void aDeviceFaultFailsTheFluxWithTheDevicesErrorAndStillReleasesTheLanes() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ctx.api() == dev.sluice.Api.CPU,
                "a real device fault poisons the GPU context for the rest of the JVM; simulated on the CPU backend only");
        dev.sluice.Kernel boom = dev.sluice.Kernel.named("boom")
                .params(dev.sluice.KernelParam.pointer("v", DType.F32))
                .java(t -> {
                    throw new IllegalStateException("illegal address");
                })
                .build();
        try (DeviceContext own = DeviceContext.open(dev.sluice.Api.CPU, 0)) {
            DeviceFunction f = own.compile(boom);
            DeviceFunction d = own.compile(TestDevice.DELAY);
            GpuPipeline<float[], float[]> p = GpuPipeline.builder(own).lanes(3).chunkElements(64, DType.F32).inPlace()
                    .stage((lane, in, out) -> {
                        lane.stream().enqueueLaunch(d, ONE, 2000L);
                        return lane.sequence() == 4 ? lane.stream().enqueueLaunch(f, ONE, in) : null;
                    })
                    .build(Chunks.floats());
            StepVerifier.create(p.process(Flux.range(0, 30).map(i -> chunk(i, 64))))
                    .thenConsumeWhile(r -> true)
                    .expectError(dev.sluice.DeviceException.class)
                    .verify(Duration.ofSeconds(30));
            TestDevice.closeAndAwaitReleased(p);
            assertTrue(own.isFaulted());
        }
    }

    @Test
    void anUpstreamErrorFailsTheFluxAfterInFlightLanesHaveDrained() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(3, 256, seq -> 5000);
        AtomicLong inFlightAtError = new AtomicLong(-1);
        Flux<float[]> source = Flux.concat(Flux.range(0, 4).map(i -> chunk(i, 256)), Flux.error(new IOException("source broke")));
        StepVerifier.create(p.process(source).doOnError(e -> inFlightAtError.set(p.metrics().inFlight())))
                .thenConsumeWhile(r -> true)
                .expectErrorSatisfies(e -> assertTrue(e instanceof IOException && e.getMessage().equals("source broke"), e.toString()))
                .verify(Duration.ofSeconds(30));
        assertEquals(0, inFlightAtError.get());
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aChunkLargerThanTheLanesBuffersFailsNamingTheBound() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(2, 256, seq -> 0);
        StepVerifier.create(p.process(Flux.just(chunk(0, 256), chunk(1, 257))))
                .thenConsumeWhile(r -> true) // chunk 0's result is dropped if it was not emitted before the error
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof InvalidArgumentException, e.toString());
                    assertTrue(e.getMessage().contains("chunk 1 has 257 elements") && e.getMessage().contains("chunkElements 256"),
                            e.getMessage());
                })
                .verify(Duration.ofSeconds(30));
        TestDevice.closeAndAwaitReleased(p);
    }

    // ---------------------------------------------------------------- cancellation and resources

    @Test
    void cancellingReleasesEveryBufferOnlyOnceTheDeviceIsDoneWithIt() throws Exception {
        long freeBefore = ctx.memoryInfo().free();
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        GpuPipeline.Stage scale = scaling(1, 1, seq -> 0).stage();
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(3).chunkElements(4096, DType.F32)
                .stage((lane, in, out) -> {
                    if (lane.sequence() >= 2) {
                        lane.stream().waitFor(gate); // chunks 2 and later stay on the device until the test says
                    }
                    return scale.enqueue(lane, in, out);
                })
                .build(Chunks.floats());
        AtomicReference<Throwable> dropped = new AtomicReference<>();
        Hooks.onErrorDropped(dropped::set);
        try {
            StepVerifier.create(p.process(Flux.range(0, 100).map(i -> chunk(i, 4096))))
                    .expectNextCount(2)
                    .thenAwait(Duration.ofMillis(50))
                    .then(() -> assertEquals(3, p.metrics().inFlight(), p.metrics().toString()))
                    .thenCancel()
                    .verify(Duration.ofSeconds(30));
            Thread.sleep(100);
            PipelineMetrics m = p.metrics();
            assertEquals(3, m.inFlight(), "cancelling stops nothing on the device");
            assertEquals(3 * 4, m.liveAllocations(), "all 3 lanes hold chunks on the device: nothing released " + m);
            assertEquals(0, m.deviceReleases(), "no device buffer freed while the device may use it: " + m);
            // Closing the pipeline now frees nothing either: its lanes are still the device's.
            p.close();
            Thread.sleep(100);
            assertEquals(3 * 4, m.liveAllocations(), "close() freed memory the device may still use: " + m);
            assertEquals(0, m.deviceReleases(), m.toString());
            assertTrue(!p.released().isDone(), "released before the device was done");
        } finally {
            gate.complete(null);
            Hooks.resetOnErrorDropped();
        }
        p.released().get(20, TimeUnit.SECONDS);
        TestDevice.closeAndAwaitReleased(p);
        assertEquals(3, p.metrics().lanesClosed());
        assertEquals(0, p.metrics().inFlight());
        assertEquals(5, p.metrics().chunksStarted(), p.metrics().toString());
        assertNull(dropped.get(), "an error was dropped after cancel");
        if (ctx.api() == dev.sluice.Api.CPU) {
            assertEquals(freeBefore, ctx.memoryInfo().free(), "device memory back to where it was");
        }
    }

    @Test
    void buffersAreAllocatedPerLaneNeverPerChunk() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(3, 1024, seq -> 0);
        StepVerifier.create(p.process(Flux.range(0, 300).map(i -> chunk(i, 1024)))).expectNextCount(300).verifyComplete();
        // Lanes open lazily, one per chunk needed in flight at once: how many depends on how fast the device
        // drains them, never more than the 3 configured. What is promised is buffers per lane, not per chunk.
        long lanes = p.metrics().lanesOpened();
        assertTrue(lanes >= 1 && lanes <= 3, "lanes opened: " + lanes);
        assertEquals(2 * lanes, p.metrics().deviceAllocations(), "an input and an output buffer per lane, for 300 chunks");
        assertEquals(2 * lanes, p.metrics().hostAllocations(), "a pinned staging buffer per direction per lane");
        TestDevice.closeAndAwaitReleased(p);
    }

    /**
     * The lanes outlive a subscription: a second and a third {@code process} call run on the lanes the first
     * opened, with no device or pinned allocation and no new stream (the issue: allocating 32 MiB pinned
     * buffers per call cost milliseconds on CUDA), and close() then releases them all.
     */
    @Test
    void lanesAreKeptAcrossProcessCallsAndReusedWithoutAllocating() throws Exception {
        // 1 ms of device time per chunk: the first call has 3 chunks in flight at once, so it opens all 3 lanes.
        GpuPipeline<float[], float[]> p = scaling(3, 1024, seq -> 1000);
        PipelineMetrics m = p.metrics();
        StepVerifier.create(p.process(Flux.range(0, 9).map(i -> chunk(i, 1024))))
                .recordWith(ArrayList::new).expectNextCount(9)
                .consumeRecordedWith(rs -> assertInOrder(rs, 1024))
                .verifyComplete();
        assertEquals(3, m.lanesOpened(), m.toString());
        assertEquals(6, m.deviceAllocations(), m.toString());
        assertEquals(6, m.hostAllocations(), m.toString());
        awaitUntil(() -> m.liveAllocations() == 12 && m.inFlight() == 0, m);
        Thread.sleep(50);
        assertEquals(12, m.liveAllocations(), "the pipeline keeps its lanes after the subscription: " + m);
        assertEquals(0, m.lanesClosed(), m.toString());
        long freeBetween = ctx.memoryInfo().free();

        assertSixtyChunksOfVaryingSizesComeOutInOrder(p);
        StepVerifier.create(p.processUnordered(Flux.range(0, 30).map(i -> chunk(i, 1024)))).expectNextCount(30).verifyComplete();
        assertEquals(3, m.lanesOpened(), "no lane opened by the second and third calls: " + m);
        assertTrue(m.lanesReused() >= 2 && m.lanesReused() <= 6, m.toString());
        assertEquals(6, m.deviceAllocations(), "no device allocation after the first call: " + m);
        assertEquals(6, m.hostAllocations(), "no pinned allocation after the first call: " + m);
        assertEquals(99, m.chunksEmitted());
        if (ctx.api() == dev.sluice.Api.CPU) {
            assertEquals(freeBetween, ctx.memoryInfo().free(), "the context's free device memory did not move");
        }
        assertTrue(!p.released().isDone());

        TestDevice.closeAndAwaitReleased(p);
        assertEquals(3, m.lanesClosed());
        assertEquals(0, m.liveAllocations());
        p.close(); // idempotent
        StepVerifier.create(p.process(Flux.just(chunk(0, 1024))))
                .expectError(dev.sluice.ClosedResourceException.class)
                .verify(Duration.ofSeconds(5));
        assertEquals(3, m.lanesOpened(), "a closed pipeline opens nothing");
    }

    @Test
    void withKeepLanesFalseEachSubscriptionReleasesItsLanes() throws Exception {
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(256, DType.F32).keepLanes(false)
                .stage(scaling(1, 1, seq -> 0).stage()).build(Chunks.floats());
        assertTrue(!p.keepsLanes());
        for (int k = 0; k < 2; k++) {
            StepVerifier.create(p.process(Flux.range(0, 5).map(i -> chunk(i, 256)))).expectNextCount(5).verifyComplete();
            TestDevice.awaitReleased(p.metrics()); // without close()
        }
        assertEquals(0, p.metrics().lanesReused());
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void closingWhileASubscriptionRunsLetsItFinishThenReleasesItsLanes() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(3, 512, seq -> 2000);
        AtomicInteger seen = new AtomicInteger();
        StepVerifier.create(p.process(Flux.range(0, 20).map(i -> chunk(i, 512)))
                        .doOnNext(r -> {
                            if (seen.incrementAndGet() == 3) {
                                p.close(); // on the completion thread: must not block
                            }
                        }))
                .recordWith(ArrayList::new).expectNextCount(20)
                .consumeRecordedWith(rs -> assertInOrder(rs, 512))
                .verifyComplete();
        p.released().get(20, TimeUnit.SECONDS);
        TestDevice.awaitReleased(p.metrics());
        assertEquals(p.metrics().lanesOpened(), p.metrics().lanesClosed());
    }

    @Test
    void concurrentSubscriptionsEachGetLanesAndThePipelineKeepsAtMostLanes() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(2, 256, seq -> 500);
        Flux<List<float[]>> a = p.process(Flux.range(0, 20).map(i -> chunk(i, 256))).collectList()
                .subscribeOn(Schedulers.boundedElastic()).flux();
        Flux<List<float[]>> b = p.process(Flux.range(0, 20).map(i -> chunk(i, 256))).collectList()
                .subscribeOn(Schedulers.boundedElastic()).flux();
        StepVerifier.create(Flux.merge(a, b))
                .assertNext(rs -> assertInOrder(rs, 256))
                .assertNext(rs -> assertInOrder(rs, 256))
                .verifyComplete();
        PipelineMetrics m = p.metrics();
        assertTrue(m.lanesOpened() <= 4, m.toString());
        // Lanes beyond the 2 the pipeline keeps are released once their subscription has ended.
        awaitUntil(() -> m.lanesClosed() == m.lanesOpened() - Math.min(2, m.lanesOpened()), m);
        awaitUntil(() -> m.liveAllocations() == 4 * (m.lanesOpened() - m.lanesClosed()), m);
        TestDevice.closeAndAwaitReleased(p);
    }

    // ---------------------------------------------------------------- results straight into the caller's pinned memory

    /**
     * {@code buildInto}: input given as pinned slices of one host array, results downloaded by the device
     * straight into pinned slices of another (as the plain API does it): the lanes allocate device buffers
     * only, and the emitted buffers are the caller's slices, in order, holding the results.
     */
    @Test
    void aChunkTargetReceivesEachResultDirectlyWithNoStaging() throws Exception {
        int n = 300;
        int chunks = 10;
        try (HostBuffer in = ctx.allocateHost(DType.F32, (long) n * chunks);
                HostBuffer out = ctx.allocateHost(DType.F32, (long) n * chunks)) {
            for (int c = 0; c < chunks; c++) {
                for (int j = 0; j < n; j++) {
                    in.setFloat((long) c * n + j, c * 1000 + j);
                }
            }
            GpuPipeline<HostBuffer, HostBuffer> p = GpuPipeline.builder(ctx).lanes(3).chunkElements(n, DType.F32)
                    .stage(scaling(1, 1, seq -> seq % 3 == 0 ? 1500 : 0).stage()) // lanes finish out of order
                    .buildInto(Chunks.hostBuffers(), (chunk, seq, elements) -> out.slice(seq * n, elements));
            for (int round = 0; round < 2; round++) {
                out.segment().fill((byte) 0);
                StepVerifier.create(p.process(Flux.range(0, chunks).map(c -> in.slice((long) c * n, n))))
                        .recordWith(ArrayList::new).expectNextCount(chunks)
                        .consumeRecordedWith(rs -> {
                            int c = 0;
                            for (HostBuffer r : rs) {
                                assertEquals(out.segment().address() + (long) c * n * Float.BYTES, r.segment().address(),
                                        "result " + c + " is the caller's slice for chunk " + c);
                                assertEquals(n, r.count());
                                float[] got = new float[n];
                                MemorySegment.copy(r.segment(), ValueLayout.JAVA_FLOAT, 0, got, 0, n);
                                assertResultOf(c, n, got);
                                c++;
                            }
                        })
                        .verifyComplete();
            }
            PipelineMetrics m = p.metrics();
            assertEquals(0, m.hostAllocations(), "no staging in either direction: " + m);
            assertEquals(2 * m.lanesOpened(), m.deviceAllocations(), m.toString());
            assertEquals(2L * chunks, m.graphReplays(), "each chunk's stage as one graph launch: " + m);
            assertEquals(0, m.stageFallbacks(), m.toString());
            assertTrue(m.lanesOpened() <= 3 && m.lanesReused() >= 1, m.toString());
            TestDevice.closeAndAwaitReleased(p);
        }
    }

    /**
     * A chunk in two pieces of pinned memory (each half of it in a buffer of its own, as an Arrow batch's columns are),
     * which the source uploads itself, one copy per piece: no staging; a chunk the source declines is staged.
     */
    @Test
    void aSourceUploadsAChunkOfSeveralPinnedPiecesItselfWithNoStaging() throws Exception {
        record Halves(HostBuffer first, HostBuffer second, boolean upload) {
        }
        ChunkSource<Halves> halves = new ChunkSource<>() {
            @Override
            public boolean accepts(DType type) {
                return type == DType.F32;
            }

            @Override
            public long elements(Halves c, DType type) {
                return c.first().count() + c.second().count();
            }

            @Override
            public void copyTo(Halves c, MemorySegment staging) {
                MemorySegment.copy(c.first().segment(), 0, staging, 0, c.first().byteSize());
                MemorySegment.copy(c.second().segment(), 0, staging, c.first().byteSize(), c.second().byteSize());
            }

            @Override
            public DeviceFuture<?> enqueueUpload(Halves c, dev.sluice.DeviceStream stream, dev.sluice.DeviceBuffer in) {
                if (!c.upload()) {
                    return null;
                }
                long n = c.first().count();
                stream.enqueueCopy(c.first(), in.slice(0, n));
                return stream.enqueueCopy(c.second(), in.slice(n, c.second().count()));
            }
        };
        int n = 256;
        int chunks = 6;
        try (HostBuffer in = ctx.allocateHost(DType.F32, (long) n * chunks);
                HostBuffer out = ctx.allocateHost(DType.F32, (long) n * chunks)) {
            for (int j = 0; j < n * chunks; j++) {
                in.setFloat(j, j / n * 1000 + j % n);
            }
            for (boolean upload : new boolean[] {true, false}) {
                GpuPipeline<Halves, HostBuffer> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(n, DType.F32)
                        .stage(scaling(1, 1, seq -> 0).stage())
                        .buildInto(halves, (chunk, seq, elements) -> out.slice(seq * n, elements));
                out.segment().fill((byte) 0);
                StepVerifier.create(p.process(Flux.range(0, chunks).map(c -> new Halves(in.slice((long) c * n, 100),
                                in.slice((long) c * n + 100, n - 100), upload))))
                        .expectNextCount(chunks)
                        .verifyComplete();
                for (int c = 0; c < chunks; c++) {
                    float[] got = new float[n];
                    MemorySegment.copy(out.segment(), ValueLayout.JAVA_FLOAT, (long) c * n * Float.BYTES, got, 0, n);
                    assertResultOf(c, n, got);
                }
                PipelineMetrics m = p.metrics();
                if (upload) {
                    assertEquals(0, m.hostAllocations(), "uploaded by the source: no staging buffer at all: " + m);
                } else {
                    assertEquals(m.lanesOpened(), m.hostAllocations(), "declined: staged, input only: " + m);
                }
                TestDevice.closeAndAwaitReleased(p);
            }
        }
    }

    @Test
    void aChunkTargetWithStagedInputAndAShorterOutput() throws Exception {
        // float[] chunks (staged upload), a reduction of each into a one-element slice of the caller's buffer.
        try (HostBuffer sums = ctx.allocateHost(DType.F32, 4)) {
            GpuPipeline<float[], HostBuffer> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(100, DType.F32)
                    .output(DType.F32, len -> 1)
                    .stage((lane, in, out) -> lane.stream().enqueueLaunch(sum, ONE, in, out, lane.elements()))
                    .buildInto(Chunks.floats(), (chunk, seq, elements) -> sums.slice(seq, elements));
            StepVerifier.create(p.process(Flux.just(new float[] {1, 2, 3}, new float[] {10, 20}, new float[] {5}, new float[] {7, 7})))
                    .expectNextCount(4)
                    .verifyComplete();
            assertArrayEquals(new float[] {6, 30, 5, 14}, sums.segment().toArray(ValueLayout.JAVA_FLOAT));
            assertEquals(p.metrics().lanesOpened(), p.metrics().hostAllocations(), "input staging only");
            TestDevice.closeAndAwaitReleased(p);
        }
    }

    @Test
    void aChunkTargetSizesEachResultFromItsChunkAndTheStageSeesIt() throws Exception {
        // The result of chunk i is its first i + 1 elements, whatever the chunk's length: a size the builder's
        // output(type, elementsForInput) cannot tell from the length alone.
        try (HostBuffer out = ctx.allocateHost(DType.F32, 64)) {
            ChunkTarget<float[]> firstFew = new ChunkTarget<>() {
                @Override
                public HostBuffer bufferFor(float[] chunk, long seq, long elements) {
                    return out.slice(seq * 16, elements);
                }

                @Override
                public long resultElements(float[] chunk, long seq, long elements) {
                    return seq + 1;
                }
            };
            GpuPipeline<float[], HostBuffer> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(16, DType.F32)
                    .output(DType.F32)
                    .stage((lane, in, out2) -> {
                        assertEquals(lane.sequence() + 1, lane.outputElements());
                        assertEquals(lane.sequence() * 1000f, ((float[]) lane.chunk())[0], "the stage sees its chunk");
                        return lane.stream().enqueueCopy(in.slice(0, lane.outputElements()), out2);
                    })
                    .buildInto(Chunks.floats(), firstFew);
            StepVerifier.create(p.process(Flux.range(0, 4).map(i -> chunk(i, 8))))
                    .expectNextMatches(b -> b.count() == 1).expectNextMatches(b -> b.count() == 2)
                    .expectNextMatches(b -> b.count() == 3).expectNextMatches(b -> b.count() == 4)
                    .verifyComplete();
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j <= i; j++) {
                    assertEquals(i * 1000 + j, out.segment().getAtIndex(ValueLayout.JAVA_FLOAT, i * 16 + j), i + "," + j);
                }
            }
            ChunkTarget<float[]> tooLarge = new ChunkTarget<>() {
                @Override
                public HostBuffer bufferFor(float[] chunk, long seq, long elements) {
                    return out.slice(0, elements);
                }

                @Override
                public long resultElements(float[] chunk, long seq, long elements) {
                    return 17;
                }
            };
            GpuPipeline<float[], HostBuffer> q = GpuPipeline.builder(ctx).lanes(2).chunkElements(16, DType.F32)
                    .output(DType.F32).stage((lane, in, o) -> null).buildInto(Chunks.floats(), tooLarge);
            StepVerifier.create(q.process(Flux.just(chunk(0, 8))))
                    .expectErrorSatisfies(e -> {
                        assertEquals("target", ((InvalidArgumentException) e).argument(), e.getMessage());
                        assertTrue(e.getMessage().contains("17 elements, outside 1 to the output capacity 16"), e.getMessage());
                    })
                    .verify(Duration.ofSeconds(30));
            assertEquals(0, q.metrics().chunksStarted(), "nothing of the refused chunk was enqueued: " + q.metrics());
            TestDevice.closeAndAwaitReleased(p);
            TestDevice.closeAndAwaitReleased(q);
        }
    }

    @Test
    void aBadTargetFailsTheFluxNamingTheArgumentBeforeEnqueuingTheChunk() throws Exception {
        try (HostBuffer good = ctx.allocateHost(DType.F32, 64);
                HostBuffer ints = ctx.allocateHost(DType.I32, 64);
                DeviceContext other = DeviceContext.open(dev.sluice.Api.CPU, 0)) {
            HostBuffer foreign = other.allocateHost(DType.F32, 64);
            HostBuffer closed = ctx.allocateHost(DType.F32, 64);
            closed.close();
            List<ChunkTarget<float[]>> bad = List.of(
                    (c, seq, n) -> seq == 0 ? good.slice(0, n) : good.slice(0, n - 1), // wrong size
                    (c, seq, n) -> seq == 0 ? good.slice(0, n) : ints.slice(0, n),     // wrong type
                    (c, seq, n) -> seq == 0 ? good.slice(0, n) : foreign.slice(0, n),  // another context
                    (c, seq, n) -> seq == 0 ? good.slice(0, n) : null);
            for (ChunkTarget<float[]> t : bad) {
                GpuPipeline<float[], HostBuffer> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(64, DType.F32)
                        .stage(scaling(1, 1, seq -> 0).stage()).buildInto(Chunks.floats(), t);
                StepVerifier.create(p.process(Flux.range(0, 5).map(i -> chunk(i, 64))))
                        .thenConsumeWhile(r -> true)
                        .expectErrorSatisfies(e -> {
                            assertTrue(e instanceof InvalidArgumentException, e.toString());
                            assertEquals("target", ((InvalidArgumentException) e).argument(), e.getMessage());
                            assertTrue(e.getMessage().contains("chunk 1"), e.getMessage());
                        })
                        .verify(Duration.ofSeconds(30));
                assertEquals(1, p.metrics().chunksStarted(), "nothing of the refused chunk was enqueued: " + p.metrics());
                TestDevice.closeAndAwaitReleased(p);
            }
            GpuPipeline<float[], HostBuffer> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(64, DType.F32)
                    .stage(scaling(1, 1, seq -> 0).stage()).buildInto(Chunks.floats(), (c, seq, n) -> closed);
            StepVerifier.create(p.process(Flux.just(chunk(0, 64)))).expectError(dev.sluice.ClosedResourceException.class)
                    .verify(Duration.ofSeconds(30));
            TestDevice.closeAndAwaitReleased(p);
        }
    }

    @Test
    void badBuilderArgumentsNameTheArgument() {
        GpuPipeline.Stage st = scaling(1, 1, seq -> 0).stage();
        assertArgument("lanes", () -> GpuPipeline.builder(ctx).lanes(0));
        assertArgument("chunkElements", () -> GpuPipeline.builder(ctx).chunkElements(0, DType.F32));
        assertArgument("count", () -> GpuPipeline.builder(ctx).scratch(DType.F32, 0));
        assertArgument("chunkElements", () -> GpuPipeline.builder(ctx).stage(st).buildInto(Chunks.floats(), (c, s, n) -> null));
        assertArgument("stage", () -> GpuPipeline.builder(ctx).chunkElements(8, DType.F32).buildInto(Chunks.floats(), (c, s, n) -> null));
        assertArgument("source", () -> GpuPipeline.builder(ctx).chunkElements(8, DType.F64).stage(st)
                .buildInto(Chunks.floats(), (c, s, n) -> null));
        assertArgument("sink", () -> GpuPipeline.builder(ctx).chunkElements(8, DType.F32).output(DType.I32).stage(st)
                .build(Chunks.floats(), Chunks.floats()));
        assertArgument("output", () -> GpuPipeline.builder(ctx).chunkElements(8, DType.F32).output(DType.F32, n -> 0).stage(st)
                .buildInto(Chunks.floats(), (c, s, n) -> null));
        org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class,
                () -> GpuPipeline.builder(ctx).chunkElements(8, DType.F32).stage(st).buildInto(Chunks.floats(), null));
    }

    private static void assertArgument(String argument, Runnable r) {
        InvalidArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidArgumentException.class, r::run);
        assertEquals(argument, e.argument(), e.getMessage());
    }

    static void assertInOrder(java.util.Collection<float[]> results, int n) {
        int i = 0;
        for (float[] r : results) {
            assertResultOf(i++, n, r);
        }
    }

    static void awaitUntil(java.util.function.BooleanSupplier condition, PipelineMetrics m) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met after 20 s: " + m);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void aOneChunkFluxOpensOneLaneAndAnEmptyOneNone() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(4, 64, seq -> 0);
        StepVerifier.create(p.process(Flux.empty())).verifyComplete();
        assertEquals(0, p.metrics().lanesOpened());
        StepVerifier.create(p.process(Flux.just(chunk(3, 64)))).assertNext(r -> assertResultOf(3, 64, r)).verifyComplete();
        assertEquals(1, p.metrics().lanesOpened());
        TestDevice.closeAndAwaitReleased(p);
    }

    // ---------------------------------------------------------------- shapes of stages and chunks

    @Test
    void shorterChunksSeeSlicesOfTheLaneBuffers() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(2, 256, seq -> 0);
        int[] sizes = {1, 17, 256, 100, 255, 256, 3};
        StepVerifier.Step<float[]> step = StepVerifier.create(p.process(Flux.range(0, sizes.length).map(i -> chunk(i, sizes[i]))));
        for (int i = 0; i < sizes.length; i++) {
            int k = i;
            step = step.assertNext(r -> assertResultOf(k, sizes[k], r));
        }
        step.verifyComplete();
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aReductionEmitsItsSmallerOutput() throws Exception {
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(100, DType.F32)
                .output(DType.F32, n -> 1)
                .stage((lane, in, out) -> lane.stream().enqueueLaunch(sum, ONE, in, out, lane.elements()))
                .build(Chunks.floats());
        StepVerifier.create(p.process(Flux.just(new float[] {1, 2, 3}, new float[] {10, 20})))
                .assertNext(r -> assertArrayEquals(new float[] {6}, r))
                .assertNext(r -> assertArrayEquals(new float[] {30}, r))
                .verifyComplete();
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aStageOfSeveralKernelsUsesItsScratchBuffer() throws Exception {
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(128, DType.F32)
                .scratch(DType.F32, 128)
                .stage((lane, in, out) -> {
                    var tmp = lane.scratch(0).slice(0, lane.elements());
                    LaunchConfig cfg = LaunchConfig.forElements(lane.elements());
                    lane.stream().enqueueLaunch(scaleAdd, cfg, in, tmp, lane.elements(), 2f, 0f);
                    return lane.stream().enqueueLaunch(scaleAdd, cfg, tmp, out, lane.elements(), 1f, 1f);
                })
                .build(Chunks.floats());
        StepVerifier.create(p.process(Flux.range(0, 5).map(i -> chunk(i, 100 + i))))
                .assertNext(r -> assertResultOf(0, 100, r)).assertNext(r -> assertResultOf(1, 101, r))
                .assertNext(r -> assertResultOf(2, 102, r)).assertNext(r -> assertResultOf(3, 103, r))
                .assertNext(r -> assertResultOf(4, 104, r))
                .verifyComplete();
        assertEquals(3 * p.metrics().lanesOpened(), p.metrics().deviceAllocations(), "in, out and scratch per lane");
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void anInPlaceStageUsesOneDeviceBufferPerLane() throws Exception {
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(64, DType.F32).inPlace()
                .stage((lane, in, out) -> lane.stream().enqueueLaunch(addOne, LaunchConfig.forElements(lane.elements()), out,
                        lane.elements()))
                .build(Chunks.floats());
        StepVerifier.create(p.process(Flux.just(new float[] {1, 2}, new float[] {5})))
                .assertNext(r -> assertArrayEquals(new float[] {2, 3}, r))
                .assertNext(r -> assertArrayEquals(new float[] {6}, r))
                .verifyComplete();
        assertEquals(p.metrics().lanesOpened(), p.metrics().deviceAllocations());
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void byteBufferAndMemorySegmentChunks() throws Exception {
        GpuPipeline.Stage scale = scaling(1, 1, seq -> 0).stage();
        GpuPipeline<ByteBuffer, ByteBuffer> bb = GpuPipeline.builder(ctx).lanes(2).chunkElements(64, DType.F32).stage(scale)
                .build(Chunks.byteBuffers());
        ByteBuffer in = ByteBuffer.allocateDirect(3 * 4).order(ByteOrder.nativeOrder());
        in.putFloat(1).putFloat(2).putFloat(3).flip();
        StepVerifier.create(bb.process(Flux.just(in)))
                .assertNext(r -> {
                    assertEquals(12, r.remaining());
                    assertEquals(3f, r.getFloat(0));
                    assertEquals(7f, r.getFloat(8));
                })
                .verifyComplete();
        assertEquals(0, in.position(), "the input's position is not moved");

        GpuPipeline<MemorySegment, float[]> seg = GpuPipeline.builder(ctx).lanes(2).chunkElements(64, DType.F32).stage(scale)
                .build(Chunks.segments(), Chunks.floats());
        StepVerifier.create(seg.process(Flux.just(MemorySegment.ofArray(new float[] {4, 5}))))
                .assertNext(r -> assertArrayEquals(new float[] {9, 11}, r))
                .verifyComplete();
        TestDevice.closeAndAwaitReleased(bb);
        TestDevice.closeAndAwaitReleased(seg);
    }

    @Test
    void pinnedHostBufferChunksAreUploadedWithoutStaging() throws Exception {
        GpuPipeline<HostBuffer, float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(64, DType.F32)
                .stage(scaling(1, 1, seq -> 0).stage())
                .build(Chunks.hostBuffers(), Chunks.floats());
        List<HostBuffer> inputs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            HostBuffer h = ctx.allocateHost(DType.F32, 64);
            for (int j = 0; j < 64; j++) {
                h.setFloat(j, i * 1000 + j);
            }
            inputs.add(h);
        }
        StepVerifier.create(p.process(Flux.fromIterable(inputs)))
                .assertNext(r -> assertResultOf(0, 64, r)).assertNext(r -> assertResultOf(1, 64, r))
                .assertNext(r -> assertResultOf(2, 64, r)).assertNext(r -> assertResultOf(3, 64, r))
                .verifyComplete();
        assertEquals(p.metrics().lanesOpened(), p.metrics().hostAllocations(), "only the download staging buffer per lane");
        inputs.forEach(HostBuffer::close);
        TestDevice.closeAndAwaitReleased(p);
    }

    // ---------------------------------------------------------------- overlap

    /**
     * Each chunk holds its lane's stream for 25 ms of simulated device time (a gate that a timer opens: it
     * takes no CPU, so the 2-core CI machine's load blurs it less). One lane serialises the chunks; three
     * overlap them. Three rounds, lane counts interleaved, best time of each; prints the times.
     */
    @Test
    void moreLanesOverlapChunksOnTheDevice() {
        int chunks = 18;
        long[] best = {0, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
        // One pipeline per lane count, built (and its lanes opened by a warm-up) outside the timed runs, as a
        // user would keep it.
        List<GpuPipeline<float[], float[]>> pipelines = new ArrayList<>();
        pipelines.add(null);
        GpuPipeline.Stage scale = scaling(1, 1, seq -> 0).stage();
        for (int lanes = 1; lanes <= 3; lanes++) {
            GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(lanes).chunkElements(256, DType.F32)
                    .stage((lane, in, out) -> {
                        lane.stream().waitFor(java.util.concurrent.CompletableFuture.runAsync(() -> { },
                                java.util.concurrent.CompletableFuture.delayedExecutor(25, TimeUnit.MILLISECONDS)));
                        return scale.enqueue(lane, in, out);
                    })
                    .build(Chunks.floats());
            StepVerifier.create(p.process(Flux.range(0, lanes).map(i -> chunk(i, 256)))).expectNextCount(lanes).verifyComplete();
            pipelines.add(p);
        }
        for (int round = 0; round < 3; round++) {
            for (int lanes = 1; lanes <= 3; lanes++) {
                GpuPipeline<float[], float[]> p = pipelines.get(lanes);
                long allocations = p.metrics().allocations();
                long t0 = System.nanoTime();
                StepVerifier.create(p.process(Flux.range(0, chunks).map(i -> chunk(i, 256)))).expectNextCount(chunks)
                        .verifyComplete();
                best[lanes] = Math.min(best[lanes], System.nanoTime() - t0);
                assertEquals(allocations, p.metrics().allocations(), "allocated during a timed run: " + p.metrics());
            }
        }
        for (int lanes = 1; lanes <= 3; lanes++) {
            pipelines.get(lanes).close();
        }
        System.out.printf("%d chunks of 25 ms device time, best of 3: 1 lane %.1f ms, 2 lanes %.1f ms, 3 lanes %.1f ms%n",
                chunks, best[1] / 1e6, best[2] / 1e6, best[3] / 1e6);
        assertTrue(best[1] > 1.7 * best[3], "3 lanes not 1.7x faster than 1: " + best[1] / 1e6 + " vs " + best[3] / 1e6 + " ms");
    }

    // ---------------------------------------------------------------- several chunks per lane

    /** As {@link #scaling}, with {@code perLane} chunks per lane. */
    static GpuPipeline<float[], float[]> deep(int lanes, int perLane, long chunkElements, LongUnaryOperator delayUs) {
        return GpuPipeline.builder(ctx).lanes(lanes).chunksPerLane(perLane).chunkElements(chunkElements, DType.F32)
                .stage(scaling(1, 1, delayUs).stage())
                .build(Chunks.floats());
    }

    /**
     * One lane of 4 chunks: while chunk 0 holds the stream (a gate the test opens), chunks 1 to 3 are already
     * enqueued behind it on the same stream; the 5th is not taken from upstream. Then all 10 come out in order.
     */
    @Test
    void oneLaneKeepsChunksPerLaneChunksQueuedOnItsStream() throws Exception {
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        GpuPipeline.Stage scale = scaling(1, 1, seq -> 0).stage();
        List<Long> streamsSeen = java.util.Collections.synchronizedList(new ArrayList<>());
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(1).chunksPerLane(4).chunkElements(512, DType.F32)
                .stage((lane, in, out) -> {
                    if (lane.sequence() == 0) {
                        lane.stream().waitFor(gate);
                    }
                    streamsSeen.add((long) System.identityHashCode(lane.stream()));
                    return scale.enqueue(lane, in, out);
                })
                .build(Chunks.floats());
        assertEquals(4, p.chunksPerLane());
        AtomicInteger pulled = new AtomicInteger();
        try {
            StepVerifier.create(p.process(Flux.range(0, 10).map(i -> chunk(i, 512)).doOnNext(c -> pulled.incrementAndGet())))
                    .expectSubscription()
                    .thenAwait(Duration.ofMillis(100))
                    .then(() -> {
                        assertEquals(4, p.metrics().inFlight(), "4 chunks on the one lane's stream: " + p.metrics());
                        assertEquals(4, p.metrics().chunksStarted(), p.metrics().toString());
                        assertEquals(4, pulled.get(), "lanes * chunksPerLane chunks taken from upstream");
                        assertEquals(1, p.metrics().lanesOpened());
                    })
                    .then(() -> gate.complete(null))
                    .recordWith(ArrayList::new)
                    .expectNextCount(10)
                    .consumeRecordedWith(rs -> assertInOrder(rs, 512))
                    .verifyComplete();
        } finally {
            gate.complete(null);
        }
        assertEquals(1, new TreeSet<>(streamsSeen).size(), "every chunk on the one lane's stream");
        assertEquals(4, p.metrics().maxInFlight(), p.metrics().toString());
        assertEquals(1, p.metrics().deviceAllocations() / 2, p.metrics().toString());
        TestDevice.closeAndAwaitReleased(p);
    }

    /** With a slow kernel, one lane of 3 has 3 chunks in flight most of the time; results stay in order and right. */
    @Test
    void aDeepLaneStaysFullWithASlowKernelAndKeepsOrder() throws Exception {
        GpuPipeline<float[], float[]> p = deep(1, 3, 300, seq -> 1000);
        StepVerifier.create(p.process(Flux.range(0, 20).map(i -> chunk(i, 300))))
                .recordWith(ArrayList::new).expectNextCount(20)
                .consumeRecordedWith(rs -> assertInOrder(rs, 300))
                .verifyComplete();
        assertEquals(3, p.metrics().maxInFlight(), p.metrics().toString());
        assertEquals(1, p.metrics().lanesOpened());
        TestDevice.closeAndAwaitReleased(p);
    }

    /** Two lanes of 3: chunks spread over both streams first, then queue behind; never more than 6 at once. */
    @Test
    void severalDeepLanesSpreadChunksAndBoundThemByLanesTimesChunksPerLane() throws Exception {
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        GpuPipeline.Stage scale = scaling(1, 1, seq -> 0).stage();
        int[] perLane = new int[2];
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunksPerLane(3).chunkElements(256, DType.F32)
                .stage((lane, in, out) -> {
                    lane.stream().waitFor(gate);
                    perLane[lane.index()]++; // the stage runs in the serialised drain loop
                    return scale.enqueue(lane, in, out);
                })
                .build(Chunks.floats());
        try {
            StepVerifier.create(p.process(Flux.range(0, 30).map(i -> chunk(i, 256))))
                    .expectSubscription()
                    .thenAwait(Duration.ofMillis(100))
                    .then(() -> {
                        assertEquals(6, p.metrics().inFlight(), p.metrics().toString());
                        assertEquals(2, p.metrics().lanesOpened());
                        assertEquals(3, perLane[0]);
                        assertEquals(3, perLane[1]);
                    })
                    .then(() -> gate.complete(null))
                    .recordWith(ArrayList::new).expectNextCount(30)
                    .consumeRecordedWith(rs -> assertInOrder(rs, 256))
                    .verifyComplete();
        } finally {
            gate.complete(null);
        }
        assertEquals(6, p.metrics().maxInFlight(), p.metrics().toString());
        TestDevice.closeAndAwaitReleased(p);
    }

    /** 60 chunks of 1000 to 1023 floats (not the lanes' size: staged), each result right and in input order. */
    private static void assertSixtyChunksOfVaryingSizesComeOutInOrder(GpuPipeline<float[], float[]> p) {
        StepVerifier.create(p.process(Flux.range(0, 60).map(i -> chunk(i, 1000 + i % 24))))
                .recordWith(ArrayList::new).expectNextCount(60)
                .consumeRecordedWith(rs -> {
                    int i = 0;
                    for (float[] r : rs) {
                        assertResultOf(i, 1000 + i % 24, r);
                        i++;
                    }
                })
                .verifyComplete();
    }

    @Test
    void aDeepLaneWithStagingAndChunksFinishingOutOfOrderAcrossLanes() throws Exception {
        // Each place in a lane stages on its own: variable sizes, variable delays, results in order and right.
        GpuPipeline<float[], float[]> p = deep(2, 3, 1024, seq -> seq % 5 == 0 ? 1500 : seq % 3 * 200);
        assertSixtyChunksOfVaryingSizesComeOutInOrder(p);
        assertTrue(p.metrics().maxInFlight() <= 6, p.metrics().toString());
        StepVerifier.create(p.processUnordered(Flux.range(0, 40).map(i -> chunk(i, 1024))))
                .recordWith(ArrayList::new).expectNextCount(40)
                .consumeRecordedWith(rs -> {
                    TreeSet<Integer> ids = new TreeSet<>();
                    for (float[] r : rs) {
                        int id = idOf(r);
                        assertResultOf(id, 1024, r);
                        ids.add(id);
                    }
                    assertEquals(40, ids.size(), "each chunk exactly once");
                })
                .verifyComplete();
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void requestingOneAtATimeStopsUploadsAtLanesTimesChunksPerLane() throws Exception {
        assertRequestingOneAtATimeTakesAtMost(deep(1, 3, 256, seq -> 0), 3,
                "no demand: chunksPerLane chunks are taken for the one lane");
    }

    @Test
    void aStageThatThrowsInADeepLaneFailsTheFluxAfterTheChunksQueuedBeforeItHaveDrained() throws Exception {
        assertAStageThrowingAtChunk7FailsTheFluxOnceDrained(GpuPipeline.builder(ctx).lanes(1).chunksPerLane(4), 4);
    }

    @Test
    void aFailedDeviceOperationInADeepLaneFailsTheFluxAndTheLaneIsNotKept() throws Exception {
        GpuPipeline<float[], float[]> p = failingAtChunk5(GpuPipeline.builder(ctx).lanes(1).chunksPerLane(3), 500L);
        assertFailsWithChunk5sErrorOnceDrained(p);
        PipelineMetrics m = p.metrics();
        awaitUntil(() -> m.lanesClosed() == 1, m); // released, not kept, without close()
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void cancellingADeepLaneFreesNothingTheDeviceMayStillUse() throws Exception {
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        GpuPipeline.Stage scale = scaling(1, 1, seq -> 0).stage();
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(1).chunksPerLane(3).chunkElements(4096, DType.F32)
                .stage((lane, in, out) -> {
                    if (lane.sequence() == 2) {
                        lane.stream().waitFor(gate); // chunk 2, and the chunks queued behind it, wait for the test
                    }
                    return scale.enqueue(lane, in, out);
                })
                .build(Chunks.floats());
        PipelineMetrics m = p.metrics();
        try {
            StepVerifier.create(p.process(Flux.range(0, 100).map(i -> chunk(i, 4096))))
                    .expectNextCount(2)
                    .thenAwait(Duration.ofMillis(50))
                    .then(() -> assertEquals(3, m.inFlight(), m.toString()))
                    .thenCancel()
                    .verify(Duration.ofSeconds(30));
            Thread.sleep(100);
            assertEquals(3, m.inFlight(), "cancelling stops nothing on the device");
            // One lane: in and out device buffers, and an input and an output staging buffer for each of its 3 places.
            assertEquals(2 + 2 * 3, m.liveAllocations(), m.toString());
            assertEquals(0, m.deviceReleases(), "no device buffer freed while the device may use it: " + m);
            p.close();
            Thread.sleep(100);
            assertEquals(2 + 2 * 3, m.liveAllocations(), "close() freed memory the device may still use: " + m);
            assertTrue(!p.released().isDone(), "released before the device was done");
        } finally {
            gate.complete(null);
        }
        p.released().get(20, TimeUnit.SECONDS);
        TestDevice.closeAndAwaitReleased(p);
        assertEquals(0, m.inFlight());
        assertEquals(5, m.chunksStarted(), m.toString());
    }

    /** Pinned input and ChunkTarget output, 4 chunks per lane: device buffers only, allocated once, reused by later calls. */
    @Test
    void aDeepLaneAllocatesPerLaneNeverPerChunk() throws Exception {
        int n = 256;
        int chunks = 64;
        try (HostBuffer in = ctx.allocateHost(DType.F32, (long) n * chunks);
                HostBuffer out = ctx.allocateHost(DType.F32, (long) n * chunks)) {
            for (int c = 0; c < chunks; c++) {
                for (int j = 0; j < n; j++) {
                    in.setFloat((long) c * n + j, c * 1000 + j);
                }
            }
            GpuPipeline<HostBuffer, HostBuffer> p = GpuPipeline.builder(ctx).lanes(1).chunksPerLane(4).chunkElements(n, DType.F32)
                    .stage(scaling(1, 1, seq -> 100).stage())
                    .buildInto(Chunks.hostBuffers(), (chunk, seq, elements) -> out.slice(seq * n, elements));
            PipelineMetrics m = p.metrics();
            for (int round = 0; round < 3; round++) {
                out.segment().fill((byte) 0);
                StepVerifier.create(p.process(Flux.range(0, chunks).map(c -> in.slice((long) c * n, n))))
                        .expectNextCount(chunks).verifyComplete();
                float[] got = new float[n];
                for (int c = 0; c < chunks; c++) {
                    MemorySegment.copy(out.segment(), ValueLayout.JAVA_FLOAT, (long) c * n * Float.BYTES, got, 0, n);
                    assertResultOf(c, n, got);
                }
                assertEquals(2, m.deviceAllocations(), "an input and an output buffer for the one lane: " + m);
                assertEquals(0, m.hostAllocations(), "no staging: " + m);
                assertEquals(1, m.lanesOpened(), m.toString());
            }
            assertEquals(4, m.maxInFlight(), m.toString());
            assertEquals(2, m.lanesReused(), m.toString());
            TestDevice.closeAndAwaitReleased(p);
        }
        // Staged: at most one staging buffer per direction per place in the lane, however many chunks.
        GpuPipeline<float[], float[]> staged = deep(1, 4, 512, seq -> 100);
        StepVerifier.create(staged.process(Flux.range(0, 200).map(i -> chunk(i, 512)))).expectNextCount(200).verifyComplete();
        long host = staged.metrics().hostAllocations();
        assertTrue(host >= 2 && host <= 2 * 4, staged.metrics().toString());
        StepVerifier.create(staged.process(Flux.range(0, 200).map(i -> chunk(i, 512)))).expectNextCount(200).verifyComplete();
        assertTrue(staged.metrics().hostAllocations() <= 2 * 4, staged.metrics().toString());
        assertEquals(2, staged.metrics().deviceAllocations(), staged.metrics().toString());
        TestDevice.closeAndAwaitReleased(staged);
    }

    /**
     * A stage that runs its kernel on another stream and returns that future: with one or several chunks per lane, the
     * pipeline makes the lane's stream wait for it before the download (and so before the next chunk's upload
     * overwrites the input), so every result is right even though the stage ordered nothing itself.
     */
    @Test
    void aDeepLaneWaitsForAStageFutureOfAnotherStream() throws Exception {
        for (int perLane : new int[] {1, 3}) {
            waitsForAStageFutureOfAnotherStream(perLane);
        }
    }

    private static void waitsForAStageFutureOfAnotherStream(int perLane) throws Exception {
        try (dev.sluice.DeviceStream side = ctx.createStream()) {
            GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(1).chunksPerLane(perLane).chunkElements(256, DType.F32)
                    .stage((lane, in, out) -> {
                        side.waitFor(lane.stream()); // after the upload
                        side.enqueueLaunch(delay, ONE, 1000L);
                        return side.enqueueLaunch(scaleAdd, LaunchConfig.forElements(lane.elements()), in, out, lane.elements(), 2f, 1f);
                    })
                    .build(Chunks.floats());
            StepVerifier.create(p.process(Flux.range(0, 12).map(i -> chunk(i, 256))))
                    .recordWith(ArrayList::new).expectNextCount(12)
                    .consumeRecordedWith(rs -> assertInOrder(rs, 256))
                    .verifyComplete();
            TestDevice.closeAndAwaitReleased(p);
        }
    }

    @Test
    void badChunksPerLaneIsRejectedNamingTheArgumentTheValueAndTheLimit() {
        for (int bad : new int[] {0, -1, GpuPipeline.Builder.MAX_CHUNKS_PER_LANE + 1}) {
            InvalidArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidArgumentException.class,
                    () -> GpuPipeline.builder(ctx).chunksPerLane(bad));
            assertEquals("chunksPerLane", e.argument(), e.getMessage());
            assertTrue(e.getMessage().contains(String.valueOf(bad)) && e.getMessage().contains("1 to 64"), e.getMessage());
        }
        assertEquals(64, GpuPipeline.builder(ctx).chunksPerLane(64).chunkElements(8, DType.F32)
                .stage(scaling(1, 1, seq -> 0).stage()).build(Chunks.floats()).chunksPerLane());
        assertEquals(1, scaling(1, 8, seq -> 0).chunksPerLane(), "default: one chunk per lane");
    }

    // ---------------------------------------------------------------- threads

    @Test
    void runsAcrossReactorNonBlockingThreadsWithoutBlockingThem() throws Exception {
        // BlockHound is installed: a blocking call on a parallel thread or a completion thread fails the Flux.
        GpuPipeline<float[], float[]> p = scaling(3, 512, seq -> 300);
        Flux<float[]> results = p.process(Flux.range(0, 40).map(i -> chunk(i, 512)).subscribeOn(Schedulers.parallel()))
                .publishOn(Schedulers.parallel(), 2);
        StepVerifier.create(results)
                .recordWith(ArrayList::new)
                .expectNextCount(40)
                .consumeRecordedWith(rs -> {
                    int i = 0;
                    for (float[] r : rs) {
                        assertResultOf(i++, 512, r);
                    }
                })
                .verifyComplete();
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aHostSchedulerTakesTheHostWorkOffTheCompletionThread() throws Exception {
        AtomicReference<String> emittedOn = new AtomicReference<>();
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(3).chunkElements(256, DType.F32)
                .hostScheduler(Schedulers.single())
                .stage(scaling(1, 1, seq -> 0).stage())
                .build(Chunks.floats());
        StepVerifier.create(p.process(Flux.range(0, 20).map(i -> chunk(i, 256)))
                        .doOnNext(r -> emittedOn.compareAndSet(null, Thread.currentThread().getName())))
                .recordWith(ArrayList::new)
                .expectNextCount(20)
                .consumeRecordedWith(rs -> {
                    int i = 0;
                    for (float[] r : rs) {
                        assertResultOf(i++, 256, r);
                    }
                })
                .verifyComplete();
        assertTrue(emittedOn.get().startsWith("single-"), emittedOn.get());
        TestDevice.closeAndAwaitReleased(p);
        // Cancel with chunks in flight: lanes still come back through the worker, or inline once it is gone.
        GpuPipeline<float[], float[]> slow = GpuPipeline.builder(ctx).lanes(3).chunkElements(256, DType.F32)
                .hostScheduler(Schedulers.parallel())
                .stage(scaling(1, 1, seq -> 10_000).stage())
                .build(Chunks.floats());
        StepVerifier.create(slow.process(Flux.range(0, 50).map(i -> chunk(i, 256)))).expectNextCount(1).thenCancel()
                .verify(Duration.ofSeconds(30));
        TestDevice.closeAndAwaitReleased(slow);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
