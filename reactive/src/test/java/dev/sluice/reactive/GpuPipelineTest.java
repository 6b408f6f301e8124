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
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
    }

    // ---------------------------------------------------------------- back-pressure

    @Test
    void requestingOneAtATimeStopsUploadsAtTheLaneCount() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(3, 256, seq -> 0);
        AtomicInteger pulled = new AtomicInteger();
        Flux<float[]> source = Flux.range(0, 10).map(i -> chunk(i, 256)).doOnNext(c -> pulled.incrementAndGet());
        StepVerifier.Step<float[]> step = StepVerifier.create(p.process(source), 0)
                .expectSubscription()
                .thenAwait(Duration.ofMillis(100))
                .then(() -> {
                    assertEquals(3, pulled.get(), "no demand: only one chunk per lane is taken");
                    assertEquals(3, p.metrics().chunksStarted());
                });
        for (int k = 0; k < 10; k++) {
            int emitted = k + 1;
            step = step.thenRequest(1)
                    .assertNext(r -> assertResultOf(emitted - 1, 256, r))
                    .thenAwait(Duration.ofMillis(20))
                    .then(() -> assertTrue(pulled.get() <= emitted + 3, "pulled " + pulled.get() + " after " + emitted + " results"))
                    .then(() -> assertTrue(p.metrics().chunksStarted() - p.metrics().chunksEmitted() <= 3, p.metrics().toString()));
        }
        step.verifyComplete();
        assertEquals(10, pulled.get());
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
    }

    // ---------------------------------------------------------------- errors

    @Test
    void aStageThatThrowsFailsTheFluxAfterInFlightLanesHaveDrained() throws Exception {
        GpuPipeline<float[], float[]> base = scaling(3, 256, seq -> 3000);
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(3).chunkElements(256, DType.F32)
                .stage((lane, in, out) -> {
                    if (lane.sequence() == 7) {
                        throw new IllegalStateException("chunk 7 refused");
                    }
                    return base.stage().enqueue(lane, in, out);
                })
                .build(Chunks.floats());
        AtomicLong inFlightAtError = new AtomicLong(-1);
        StepVerifier.create(p.process(Flux.range(0, 50).map(i -> chunk(i, 256)))
                        .doOnError(e -> inFlightAtError.set(p.metrics().inFlight())))
                .thenConsumeWhile(r -> true)
                .expectErrorMessage("chunk 7 refused")
                .verify(Duration.ofSeconds(30));
        assertEquals(0, inFlightAtError.get(), "the error came before the chunks in flight had drained");
        assertTrue(p.metrics().chunksStarted() <= 7 + 3, p.metrics().toString());
        TestDevice.awaitReleased(p.metrics());
    }

    @Test
    void aFailedDeviceOperationOfOneChunkFailsTheFlux() throws Exception {
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(3).chunkElements(256, DType.F32)
                .stage((lane, in, out) -> {
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
        AtomicLong inFlightAtError = new AtomicLong(-1);
        StepVerifier.create(p.process(Flux.range(0, 20).map(i -> chunk(i, 256)))
                        .doOnError(e -> inFlightAtError.set(p.metrics().inFlight())))
                .thenConsumeWhile(r -> true)
                .expectErrorMessage("host step of chunk 5 failed")
                .verify(Duration.ofSeconds(30));
        assertEquals(0, inFlightAtError.get());
        TestDevice.awaitReleased(p.metrics());
    }

    @Test
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
            TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
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
        } finally {
            gate.complete(null);
            Hooks.resetOnErrorDropped();
        }
        TestDevice.awaitReleased(p.metrics());
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
        StepVerifier.create(p.process(Flux.range(0, 6).map(i -> chunk(i, 1024)))).expectNextCount(6).verifyComplete();
        // Lanes open lazily, one per chunk needed in flight at once: how many depends on how fast the device
        // drains them, never more than the 3 configured. What is promised is buffers per lane, not per chunk.
        long lanes1 = p.metrics().lanesOpened();
        long device1 = p.metrics().deviceAllocations();
        long host1 = p.metrics().hostAllocations();
        assertTrue(lanes1 >= 1 && lanes1 <= 3, "lanes opened: " + lanes1);
        assertEquals(2 * lanes1, device1, "an input and an output buffer per lane");
        assertEquals(2 * lanes1, host1, "a pinned staging buffer per direction per lane");

        StepVerifier.create(p.process(Flux.range(0, 300).map(i -> chunk(i, 1024)))).expectNextCount(300).verifyComplete();
        long lanes2 = p.metrics().lanesOpened() - lanes1;
        assertTrue(lanes2 >= 1 && lanes2 <= 3, "the second subscription opened its own lanes, at most 3: " + lanes2);
        assertEquals(2 * (lanes1 + lanes2), p.metrics().deviceAllocations(), "300 chunks allocated per lane, not per chunk");
        assertEquals(2 * (lanes1 + lanes2), p.metrics().hostAllocations());
        assertEquals(306, p.metrics().chunksEmitted());
        TestDevice.awaitReleased(p.metrics());
    }

    @Test
    void aOneChunkFluxOpensOneLaneAndAnEmptyOneNone() throws Exception {
        GpuPipeline<float[], float[]> p = scaling(4, 64, seq -> 0);
        StepVerifier.create(p.process(Flux.empty())).verifyComplete();
        assertEquals(0, p.metrics().lanesOpened());
        StepVerifier.create(p.process(Flux.just(chunk(3, 64)))).assertNext(r -> assertResultOf(3, 64, r)).verifyComplete();
        assertEquals(1, p.metrics().lanesOpened());
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(bb.metrics());
        TestDevice.awaitReleased(seg.metrics());
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
        TestDevice.awaitReleased(p.metrics());
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
        for (int round = 0; round < 3; round++) {
            for (int lanes = 1; lanes <= 3; lanes++) {
                GpuPipeline.Stage scale = scaling(1, 1, seq -> 0).stage();
                GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(lanes).chunkElements(256, DType.F32)
                        .stage((lane, in, out) -> {
                            lane.stream().waitFor(java.util.concurrent.CompletableFuture.runAsync(() -> { },
                                    java.util.concurrent.CompletableFuture.delayedExecutor(25, TimeUnit.MILLISECONDS)));
                            return scale.enqueue(lane, in, out);
                        })
                        .build(Chunks.floats());
                long t0 = System.nanoTime();
                StepVerifier.create(p.process(Flux.range(0, chunks).map(i -> chunk(i, 256)))).expectNextCount(chunks)
                        .verifyComplete();
                best[lanes] = Math.min(best[lanes], System.nanoTime() - t0);
            }
        }
        System.out.printf("%d chunks of 25 ms device time, best of 3: 1 lane %.1f ms, 2 lanes %.1f ms, 3 lanes %.1f ms%n",
                chunks, best[1] / 1e6, best[2] / 1e6, best[3] / 1e6);
        assertTrue(best[1] > 1.7 * best[3], "3 lanes not 1.7x faster than 1: " + best[1] / 1e6 + " vs " + best[3] / 1e6 + " ms");
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
        TestDevice.awaitReleased(p.metrics());
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
        TestDevice.awaitReleased(p.metrics());
        // Cancel with chunks in flight: lanes still come back through the worker, or inline once it is gone.
        GpuPipeline<float[], float[]> slow = GpuPipeline.builder(ctx).lanes(3).chunkElements(256, DType.F32)
                .hostScheduler(Schedulers.parallel())
                .stage(scaling(1, 1, seq -> 10_000).stage())
                .build(Chunks.floats());
        StepVerifier.create(slow.process(Flux.range(0, 50).map(i -> chunk(i, 256)))).expectNextCount(1).thenCancel()
                .verify(Duration.ofSeconds(30));
        TestDevice.awaitReleased(slow.metrics());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
