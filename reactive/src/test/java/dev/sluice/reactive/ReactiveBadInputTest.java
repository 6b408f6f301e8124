package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.InvalidArgumentException;
import dev.sluice.testing.ExpectWarning;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Bad input to the module's public calls, each refused clearly where it is made (or, for what only a running
 * subscription can see, by failing that subscription, naming the culprit), with nothing hanging and nothing leaked.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveBadInputTest {

    static DeviceContext ctx;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
    }

    @AfterAll
    static void close() {
        if (ctx != null) {
            ctx.close();
        }
    }

    private static GpuPipeline.Builder copying() {
        return GpuPipeline.builder(ctx).lanes(2).chunkElements(4, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out));
    }

    private static Flux<float[]> chunks(int n) {
        return Flux.range(0, n).map(i -> new float[] {i, i, i, i});
    }

    /** Subscribes with a CoreSubscriber (no Reactor wrapper checks its requests) that asks for {@code n} at once. */
    private static <T> CompletableFuture<Throwable> requesting(org.reactivestreams.Publisher<T> p, long n) {
        CompletableFuture<Throwable> end = new CompletableFuture<>();
        p.subscribe(new BaseSubscriber<T>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(n);
            }

            @Override
            protected void hookOnError(Throwable t) {
                end.complete(t);
            }

            @Override
            protected void hookOnComplete() {
                end.completeExceptionally(new AssertionError("completed after request(" + n + ")"));
            }
        });
        return end;
    }

    @Test
    void aSinkReturningNullFailsTheFluxNamingTheSinkAndTheChunk() throws Exception {
        ChunkSink<float[]> nullSink = new ChunkSink<>() {
            @Override
            public boolean accepts(DType type) {
                return type == DType.F32;
            }

            @Override
            public float[] read(MemorySegment result, DType type, long elements) {
                return null;
            }

            @Override
            public String toString() {
                return "nullSink";
            }
        };
        GpuPipeline<float[], float[]> p = copying().build(Chunks.floats(), nullSink);
        AtomicInteger nulls = new AtomicInteger();
        StepVerifier.create(p.process(chunks(3)).doOnNext(r -> {
                    if (r == null) {
                        nulls.incrementAndGet();
                    }
                }))
                .expectErrorSatisfies(e -> {
                    InvalidArgumentException iae = assertInstanceOf(InvalidArgumentException.class, e);
                    assertEquals("sink", iae.argument());
                    assertTrue(e.getMessage().contains("nullSink returned null for chunk 0"), e.getMessage());
                })
                .verify(Duration.ofSeconds(30));
        assertEquals(0, nulls.get(), "onNext(null) reached the subscriber");
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aRequestOfZeroOrLessFailsThePipelinesFluxAndItsLanesGoBack() throws Exception {
        GpuPipeline<float[], float[]> p = copying().build(Chunks.floats());
        for (long n : new long[] {0, -1, Long.MIN_VALUE}) {
            for (boolean ordered : new boolean[] {true, false}) {
                Flux<float[]> f = ordered ? p.process(chunks(20)) : p.processUnordered(chunks(20));
                Throwable e = requesting(f, n).get(20, TimeUnit.SECONDS);
                assertInstanceOf(IllegalArgumentException.class, e);
                assertTrue(e.getMessage().contains("3.9"), e.getMessage());
            }
        }
        // Each of those subscriptions ended: the pipeline releases everything once closed.
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aRequestOfZeroOrLessFailsADeviceMonoAndReleasesItsValue() throws Exception {
        ReactiveStream rx = ReactiveStream.of(ctx);
        Throwable e = requesting(rx.marker(), 0).get(20, TimeUnit.SECONDS);
        assertInstanceOf(IllegalArgumentException.class, e);
        e = requesting(DevicePlan.on(ctx.stream()).then(s -> s.enqueueMarker()).toMono(), -1).get(20, TimeUnit.SECONDS);
        assertInstanceOf(IllegalArgumentException.class, e);
        // Asked for nothing before the operation ended: its buffer waits for a demand, and request(0) ends that wait.
        CompletableFuture<DeviceBuffer> released = new CompletableFuture<>();
        CompletableFuture<DeviceBuffer> made = new CompletableFuture<>();
        Mono<DeviceBuffer> alloc = DeviceMonos.enqueue(() -> {
            var f = ctx.stream().enqueueAllocate(DType.F32, 16).ready();
            f.whenComplete((b, t) -> made.complete(b));
            return f;
        }, released::complete);
        CompletableFuture<Throwable> end = new CompletableFuture<>();
        CompletableFuture<Subscription> subscription = new CompletableFuture<>();
        BaseSubscriber<DeviceBuffer> idle = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                subscription.complete(s); // no request yet; BaseSubscriber.request would drop a bad one unseen
            }

            @Override
            protected void hookOnNext(DeviceBuffer b) {
                end.completeExceptionally(new AssertionError("emitted without a valid request"));
            }

            @Override
            protected void hookOnError(Throwable t) {
                end.complete(t);
            }
        };
        alloc.subscribe(idle);
        DeviceBuffer b = made.get(20, TimeUnit.SECONDS);
        subscription.get(20, TimeUnit.SECONDS).request(0);
        assertInstanceOf(IllegalArgumentException.class, end.get(20, TimeUnit.SECONDS));
        // The buffer the operation made is released for the subscriber that never got it.
        assertTrue(released.get(20, TimeUnit.SECONDS) == b);
        b.close();
    }

    @Test
    void builderSizesWhoseByteSizeOverflowsAreRefusedAtTheCall() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> GpuPipeline.builder(ctx).chunkElements(Long.MAX_VALUE / 2, DType.F32));
        assertEquals("chunkElements", e.argument());
        assertTrue(e.getMessage().contains(String.valueOf(Long.MAX_VALUE / 2)) && e.getMessage().contains("at most "
                + Long.MAX_VALUE / 4), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> GpuPipeline.builder(ctx).scratch(DType.F64, Long.MAX_VALUE));
        assertEquals("count", e.argument());
        e = assertThrows(InvalidArgumentException.class,
                () -> copying().output(DType.F32, n -> Long.MAX_VALUE).build(Chunks.floats()));
        assertEquals("output", e.argument());
        assertTrue(e.getMessage().contains(String.valueOf(Long.MAX_VALUE)), e.getMessage());
    }

    @Test
    void aHugeButRepresentableChunkFailsAtItsAllocationNotAtAnOverflowedPoolLimit() throws Exception {
        GpuPipeline<float[], float[]> p = copying().chunkElements(Long.MAX_VALUE / 4, DType.F32).build(Chunks.floats());
        StepVerifier.create(p.process(chunks(1)))
                .expectErrorSatisfies(e -> assertFalse(e.getMessage().contains("limitBytes") || e.getMessage().contains("bytes: value -"),
                        e.toString()))
                .verify(Duration.ofSeconds(30));
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void buildingOnAClosedContextFailsAtBuild() {
        DeviceContext closed = TestDevice.open();
        GpuPipeline.Builder b = GpuPipeline.builder(closed).chunkElements(4, DType.F32).stage((lane, in, out) -> null);
        closed.close();
        assertThrows(ClosedResourceException.class, () -> b.build(Chunks.floats()));
    }

    @Test
    void aScratchIndexOutOfRangeNamesTheIndex() throws Exception {
        GpuPipeline<float[], float[]> p = copying().scratch(DType.F32, 4)
                .stage((lane, in, out) -> {
                    lane.scratch(1);
                    return null;
                })
                .build(Chunks.floats());
        StepVerifier.create(p.process(chunks(1)))
                .expectErrorSatisfies(e -> {
                    InvalidArgumentException iae = assertInstanceOf(InvalidArgumentException.class, e);
                    assertEquals("i", iae.argument());
                    assertTrue(e.getMessage().contains("value 1 is outside 0 to 0"), e.getMessage());
                })
                .verify(Duration.ofSeconds(30));
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aClosedRepeatedPlanSaysSoOnce() {
        RepeatedPlan rp = DevicePlan.on(ctx.stream()).then(s -> s.enqueueMarker()).then(s -> s.enqueueMarker()).repeated();
        rp.close();
        ClosedResourceException e = assertThrows(ClosedResourceException.class, () -> rp.toMono().block(Duration.ofSeconds(20)));
        assertFalse(e.getMessage().contains("is closed is closed"), e.getMessage());
    }

    @Test
    void aKeptLaneOfAContextClosedSinceIsReleasedAndTheFluxNamesTheContext() throws Exception {
        DeviceContext c = TestDevice.open();
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(c).lanes(2).chunkElements(4, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out)).build(Chunks.floats());
        StepVerifier.create(p.process(chunks(1))).expectNextCount(1).verifyComplete(); // keeps one lane
        c.close();
        StepVerifier.create(p.process(chunks(1)))
                .expectErrorSatisfies(e -> {
                    assertInstanceOf(ClosedResourceException.class, e);
                    assertTrue(e.getMessage().contains("DeviceContext") || e.getMessage().contains("DeviceStream"),
                            e.getMessage());
                })
                .verify(Duration.ofSeconds(30));
        assertEquals(0, p.metrics().lanesReused(), "a lane of the closed context served a chunk");
        p.close();
        p.released().get(20, TimeUnit.SECONDS);
    }

    @Test
    void aNegativeProgressIsRefusedNamingTheComponent() {
        assertEquals("chunksDone", assertThrows(InvalidArgumentException.class, () -> new PipelineProgress(-1, 0)).argument());
        assertEquals("bytesDone", assertThrows(InvalidArgumentException.class, () -> new PipelineProgress(0, -1)).argument());
        assertEquals(new PipelineProgress(0, 0), new PipelineProgress(0, 0));
    }

    @Test
    void theBlockHoundIntegrationNamesANullBuilder() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new SluiceBlockHoundIntegration().applyTo(null));
        assertEquals("builder", e.getMessage());
    }

    /** Floats in a chunk large enough for the pipeline's parallel host copies (2 MiB; the default threshold is 1 MiB). */
    private static final int LARGE = 1 << 19;

    @Test
    void aSourceSegmentOfAnotherSizeThanItsElementsFailsTheChunkNamingTheSource() throws Exception {
        ChunkSource<float[]> shortSegment = new ChunkSource<>() {
            @Override
            public boolean accepts(DType type) {
                return type == DType.F32;
            }

            @Override
            public long elements(float[] chunk, DType type) {
                return chunk.length;
            }

            @Override
            public void copyTo(float[] chunk, MemorySegment staging) {
                MemorySegment.copy(MemorySegment.ofArray(chunk), 0, staging, 0, staging.byteSize());
            }

            @Override
            public MemorySegment segment(float[] chunk) {
                return MemorySegment.ofArray(chunk).asSlice(0, 16); // 4 of its floats
            }

            @Override
            public String toString() {
                return "shortSegment";
            }
        };
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(LARGE, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out)).build(shortSegment, Chunks.floats());
        float[] ones = new float[LARGE];
        java.util.Arrays.fill(ones, 1f);
        StepVerifier.create(p.process(Flux.just(ones)))
                .expectErrorSatisfies(e -> {
                    InvalidArgumentException iae = assertInstanceOf(InvalidArgumentException.class, e,
                            "a wrong result was emitted instead of an error");
                    assertEquals("source", iae.argument());
                    assertTrue(e.getMessage().contains("segment of 16 bytes") && e.getMessage().contains((long) LARGE * 4 + " bytes"),
                            e.getMessage());
                })
                .verify(Duration.ofSeconds(30));
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aSinkAllocatingAResultOfAnotherSizeFailsTheChunkNamingTheSink() throws Exception {
        ChunkSink<float[]> tooSmall = new ChunkSink<>() {
            @Override
            public boolean accepts(DType type) {
                return type == DType.F32;
            }

            @Override
            public float[] read(MemorySegment result, DType type, long elements) {
                return new float[(int) elements];
            }

            @Override
            public float[] allocate(DType type, long elements) {
                return new float[1];
            }

            @Override
            public MemorySegment segment(float[] result) {
                return MemorySegment.ofArray(result);
            }
        };
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(LARGE, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out)).build(Chunks.floats(), tooSmall);
        StepVerifier.create(p.process(Flux.just(new float[LARGE], new float[LARGE])))
                .expectErrorSatisfies(e -> {
                    InvalidArgumentException iae = assertInstanceOf(InvalidArgumentException.class, e);
                    assertEquals("sink", iae.argument());
                    assertTrue(e.getMessage().contains("segment of 4 bytes"), e.getMessage());
                })
                .verify(Duration.ofSeconds(30));
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aReleasedDeviceLaneRefusesToFillAndCopyRefusesAReadOnlyTarget() {
        try (dev.sluice.HostBufferPool pool = dev.sluice.HostBufferPool.of(ctx, 1 << 20)) {
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 0, pool, false, false);
            dev.sluice.HostBuffer staging = lane.staging(0, DType.F32, 4);
            lane.close();
            // Its staging buffer went back to the pool, which may give it to another lane.
            assertThrows(ClosedResourceException.class, () -> lane.fill(staging, MemorySegment.ofArray(new float[4])));
        }
        for (int n : new int[] {4, LARGE}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> DeviceLane.copy(
                    MemorySegment.ofArray(new float[n]), MemorySegment.ofArray(new float[n]).asReadOnly()));
            assertEquals("to", e.argument());
        }
    }

    private static void assertArgument(String argument, org.junit.jupiter.api.function.Executable call) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, call);
        assertEquals(argument, e.argument(), e.getMessage());
    }

    @Test
    void theCodecsCheckTheirArgumentsAndNameThem() {
        ChunkCodec<float[]> floats = Chunks.floats();
        assertEquals("Chunks.floats()", floats.toString());
        assertFalse(floats.accepts(null));
        assertFalse(Chunks.byteBuffers().accepts(null));
        assertArgument("chunk", () -> floats.elements(null, DType.F32));
        assertArgument("type", () -> floats.elements(new float[4], null));
        assertArgument("type", () -> floats.elements(new float[4], DType.F64));
        // Was a NegativeArraySizeException from inside.
        assertArgument("elements", () -> floats.allocate(DType.F32, -1));
        assertArgument("elements", () -> Chunks.bytes().allocate(DType.F64, Long.MAX_VALUE / 2));
        assertArgument("elements", () -> floats.allocate(DType.F32, Integer.MAX_VALUE));
        // Was a float[] for an F64 result, silently.
        assertArgument("type", () -> floats.allocate(DType.F64, 4));
        assertArgument("type", () -> floats.read(MemorySegment.ofArray(new float[8]), DType.F64, 4));
        assertArgument("result", () -> floats.read(null, DType.F32, 4));
        assertArgument("result", () -> floats.read(MemorySegment.ofArray(new float[2]), DType.F32, 4));
        assertArgument("elements", () -> floats.read(MemorySegment.ofArray(new float[2]), DType.F32, -1));
        assertArgument("staging", () -> floats.copyTo(new float[4], MemorySegment.ofArray(new float[2])));
        assertArgument("staging", () -> floats.copyTo(new float[4], null));
        assertArgument("chunk", () -> floats.copyTo(null, MemorySegment.ofArray(new float[4])));
        assertArgument("staging", () -> floats.copyTo(new float[4], MemorySegment.ofArray(new float[4]).asReadOnly()));
        // A ByteBuffer chunk copied the staging buffer's size from it: a larger staging buffer read past the chunk, a
        // smaller one took part of it, silently.
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.allocate(16);
        assertArgument("staging", () -> Chunks.byteBuffers().copyTo(bb, MemorySegment.ofArray(new byte[8])));
        assertArgument("chunk", () -> Chunks.segments().segment(null));
        assertArgument("chunk", () -> Chunks.hostBuffers().elements(null, DType.F32));
        float[] in = {1, 2, 3, 4};
        MemorySegment staging = MemorySegment.ofArray(new float[4]);
        floats.copyTo(in, staging);
        assertEquals(4, floats.read(staging, DType.F32, 4).length);
        assertEquals(0, floats.read(staging, DType.F32, 0).length);
    }

    @Test
    void aDisposedHostSchedulerIsRefusedAtTheCall() {
        reactor.core.scheduler.Scheduler gone = reactor.core.scheduler.Schedulers.newSingle("gone");
        gone.dispose();
        assertArgument("scheduler", () -> copying().hostScheduler(gone));
    }

    @Test
    void aSourceThatThrowsFromSubscribeFailsTheFluxAndThePipelineIsStillReleased() throws Exception {
        GpuPipeline<float[], float[]> p = copying().build(Chunks.floats());
        org.reactivestreams.Publisher<float[]> throwsAtOnce = s -> {
            throw new IllegalStateException("subscribe threw");
        };
        org.reactivestreams.Publisher<float[]> throwsAfterOnSubscribe = s -> {
            s.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                }

                @Override
                public void cancel() {
                }
            });
            throw new IllegalStateException("subscribe threw");
        };
        for (org.reactivestreams.Publisher<float[]> source : java.util.List.of(throwsAtOnce, throwsAfterOnSubscribe)) {
            StepVerifier.create(p.process(source))
                    .expectErrorMessage("subscribe threw")
                    .verify(Duration.ofSeconds(20));
        }
        // Each subscription ended: before, each stayed registered and released() never completed.
        p.close();
        p.released().get(20, TimeUnit.SECONDS);
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.reactive.GpuPipeline", containing = "threw; ignored")
    void aProgressListenerThrowingAnErrorLosesNoResult() throws Exception {
        GpuPipeline<float[], float[]> p = copying().build(Chunks.floats());
        p.onProgress(progress -> {
            throw new AssertionError("listener failed");
        });
        StepVerifier.create(p.process(chunks(5))).expectNextCount(5).verifyComplete();
        TestDevice.closeAndAwaitReleased(p);
    }

    @Test
    void aDeviceLaneRefusesAClosedStreamAtOpen() {
        dev.sluice.DeviceStream closed = ctx.createStream();
        closed.close();
        try (dev.sluice.HostBufferPool pool = dev.sluice.HostBufferPool.of(ctx, 1 << 20)) {
            for (boolean replay : new boolean[] {false, true}) {
                assertThrows(ClosedResourceException.class, () -> DeviceLane.open(closed, 0, pool, replay, replay));
            }
        }
    }

    @Test
    void aDeviceLaneReleasedThroughARejectingExecutorIsStillReleased() throws Exception {
        java.util.concurrent.Executor rejecting = task -> {
            throw new java.util.concurrent.RejectedExecutionException("shut down");
        };
        try (dev.sluice.HostBufferPool pool = dev.sluice.HostBufferPool.of(ctx, 1 << 20)) {
            for (boolean withBuffers : new boolean[] {false, true}) {
                dev.sluice.DeviceStream stream = ctx.createStream();
                DeviceLane lane = DeviceLane.open(stream, 0, pool, false, false);
                if (withBuffers) {
                    lane.deviceBuffer(0, DType.F32, 4); // its free comes first: the close then follows it
                    lane.staging(0, DType.F32, 4);
                }
                lane.release(rejecting).get(20, TimeUnit.SECONDS);
                assertTrue(stream.isClosed());
                assertEquals(0, pool.takenBuffers(), pool.toString());
            }
        }
    }

    @Test
    void aNullForkBranchIsNamedByItsIndex() {
        DevicePlan plan = DevicePlan.on(ctx.stream());
        DevicePlan branch = DevicePlan.on(ctx.stream()).then(s -> s.enqueueMarker());
        NullPointerException e = assertThrows(NullPointerException.class, () -> plan.fork(branch, null));
        assertEquals("branches[1]", e.getMessage());
    }

    @Test
    void aSegmentChunkOfAClosedOrConfinedArenaFailsTheFluxNamingTheChunk() throws Exception {
        MemorySegment freed;
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            freed = arena.allocate(16);
        }
        GpuPipeline<MemorySegment, float[]> p = copying().build(Chunks.segments(), Chunks.floats());
        try (java.lang.foreign.Arena confined = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment owned = confined.allocate(16);
            for (MemorySegment chunk : java.util.List.of(freed, owned)) {
                StepVerifier.create(p.process(Flux.just(chunk)))
                        .expectErrorSatisfies(e -> {
                            InvalidArgumentException iae = assertInstanceOf(InvalidArgumentException.class, e);
                            assertEquals("chunk", iae.argument());
                        })
                        .verify(Duration.ofSeconds(20));
                assertArgument("chunk", () -> Chunks.segments().copyTo(chunk, MemorySegment.ofArray(new byte[16])));
            }
            java.lang.foreign.Arena shared = java.lang.foreign.Arena.ofShared();
            java.nio.ByteBuffer closedView = shared.allocate(16).asByteBuffer();
            shared.close();
            assertArgument("chunk", () -> Chunks.byteBuffers().elements(closedView, DType.F32));
            assertArgument("chunk", () -> Chunks.byteBuffers().elements(owned.asByteBuffer(), DType.F32));
        }
        TestDevice.closeAndAwaitReleased(p);
    }
}
