package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.Kernels;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;

/** {@link GpuPipeline.Builder#graphReplay}: each lane's stage as one graph launch per chunk, with the same results. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GpuPipelineReplayTest {

    static DeviceContext ctx;
    static DeviceFunction scaleAdd;
    static DeviceFunction addOne;
    /** The element-wise pair of {@link #elementwisePipeline}: compiled once, for the context's life. */
    static DeviceFunction scale;
    static DeviceFunction shift;
    static final int CHUNKS = 40;
    static final int N = 256;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
        scaleAdd = ctx.compile(TestDevice.SCALE_ADD);
        addOne = ctx.compile(TestDevice.ADD_ONE);
        // Compiled here rather than per pipeline: functions dropped unclosed while the class's context stays open are
        // freed and reported by the leak detector, in whichever later test a collection happens to run.
        scale = ctx.compile(Kernels.elementwise("scale").input(KernelParam.pointer("x", DType.F32))
                .input(KernelParam.scalar("a", DType.F32)).output(KernelParam.pointer("y", DType.F32))
                .body("y = x * a").build());
        shift = ctx.compile(Kernels.elementwise("shift").input(KernelParam.pointer("u", DType.F32))
                .output(KernelParam.pointer("w", DType.F32)).body("w = u / 4.0f - 1.0f").build());
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    /** A stage of three kernels whose scalars change with the chunk; the last chunk is shorter. */
    static GpuPipeline<float[], float[]> pipeline(boolean replay) {
        return GpuPipeline.builder(ctx)
                .lanes(2)
                .chunkElements(N, DType.F32)
                .graphReplay(replay)
                .stage((lane, in, out) -> {
                    LaunchConfig config = LaunchConfig.forElements(lane.elements());
                    lane.stream().enqueueLaunch(addOne, config, in, lane.elements());
                    lane.stream().enqueueLaunch(scaleAdd, config, in, out, lane.elements(), 2f, (float) lane.sequence());
                    return lane.stream().enqueueLaunch(addOne, config, out, lane.elements());
                })
                .build(Chunks.floats());
    }

    static List<float[]> run(GpuPipeline<float[], float[]> p) {
        return p.process(Flux.range(0, CHUNKS).map(i -> GpuPipelineTest.chunk(i, i == CHUNKS - 1 ? 100 : N)))
                .collectList().block();
    }

    @Test
    void resultsWithReplayEqualThoseWithoutAndTheLanesReplay() {
        List<float[]> replayed;
        List<float[]> plain;
        PipelineMetrics on;
        PipelineMetrics off;
        try (GpuPipeline<float[], float[]> p = pipeline(true)) {
            replayed = run(p);
            on = p.metrics();
        }
        try (GpuPipeline<float[], float[]> p = pipeline(false)) {
            plain = run(p);
            off = p.metrics();
        }
        assertEquals(CHUNKS, replayed.size());
        assertEquals(CHUNKS, plain.size());
        for (int i = 0; i < CHUNKS; i++) {
            assertArrayEquals(plain.get(i), replayed.get(i), "chunk " + i);
            float[] r = replayed.get(i);
            assertEquals(((i * 1000f + 1) * 2 + i) + 1, r[0], "chunk " + i + " computed");
        }
        assertEquals(CHUNKS, on.graphReplays(), "one graph launch per chunk");
        assertEquals(0, on.stageFallbacks());
        assertTrue(on.graphBuilds() >= 2 && on.graphBuilds() <= 3,
                "a graph per lane, and one more for the shorter last chunk: " + on.graphBuilds());
        assertEquals(0, off.graphReplays(), "off: the stage is enqueued as it is");
        assertEquals(0, off.graphBuilds());
    }

    /**
     * The chunk's upload and download are enqueued around the stage's graph, whether through the lanes' staging or from
     * and into the caller's pinned memory: each chunk's replay runs the stage alone, as the trace's replay spans say.
     */
    @Test
    void theChunksCopiesAreEnqueuedAroundTheStagesGraph() throws Exception {
        try (DeviceContext traced = DeviceContext.open(dev.sluice.ContextOptions.defaults().withTracing(true))) {
            DeviceFunction add = traced.compile(TestDevice.ADD_ONE);
            GpuPipeline.Builder b = GpuPipeline.builder(traced).lanes(1).chunkElements(N, DType.F32).inPlace()
                    .stage((lane, in, out) -> lane.stream().enqueueLaunch(add, LaunchConfig.forElements(lane.elements()),
                            in, lane.elements()));
            try (GpuPipeline<float[], float[]> p = b.build(Chunks.floats())) {
                List<float[]> out = p.process(Flux.range(0, 6).map(i -> GpuPipelineTest.chunk(i, N))).collectList()
                        .block();
                for (int i = 0; i < 6; i++) {
                    assertEquals(GpuPipelineTest.chunk(i, N)[7] + 1, out.get(i)[7], "chunk " + i);
                }
                assertEquals(6, p.metrics().graphReplays());
                TestDevice.closeAndAwaitReleased(p);
            }
            try (dev.sluice.HostBuffer pinnedIn = traced.allocateHost(DType.F32, N);
                    dev.sluice.HostBuffer pinnedOut = traced.allocateHost(DType.F32, 6L * N);
                    GpuPipeline<dev.sluice.HostBuffer, dev.sluice.HostBuffer> p = b.buildInto(Chunks.hostBuffers(),
                            (chunk, seq, n) -> pinnedOut.slice(seq * N, n))) {
                pinnedIn.setFloat(7, 41f);
                p.process(Flux.range(0, 6).map(i -> pinnedIn)).blockLast();
                for (int i = 0; i < 6; i++) {
                    assertEquals(42f, pinnedOut.getFloat(i * N + 7L), "chunk " + i);
                }
                assertEquals(6, p.metrics().graphReplays());
                assertEquals(0, p.metrics().stageFallbacks());
                TestDevice.closeAndAwaitReleased(p);
            }
            List<dev.sluice.TraceSpan> replays = traced.trace().select(t -> t.kind().startsWith("replay")).spans();
            assertEquals(12, replays.size(), replays.toString());
            for (dev.sluice.TraceSpan t : replays) {
                assertTrue(String.valueOf(t.label()).contains("kernel") && t.label().contains("(1 operation)"),
                        "the stage alone: " + t);
            }
        }
    }

    /** A stage of two element-wise kernels (the second in place), fused or not. */
    static GpuPipeline<float[], float[]> elementwisePipeline(boolean replay, boolean fuse) {
        return GpuPipeline.builder(ctx)
                .lanes(2)
                .chunkElements(N, DType.F32)
                .graphReplay(replay)
                .elementwiseFusion(fuse)
                .stage((lane, in, out) -> {
                    LaunchConfig config = LaunchConfig.forElements(lane.elements());
                    lane.stream().enqueueLaunch(scale, config, in, 1.5f + lane.sequence(), out, lane.elements());
                    return lane.stream().enqueueLaunch(shift, config, out, out, lane.elements());
                })
                .build(Chunks.floats());
    }

    @Test
    void aStageOfTwoElementwiseKernelsRunsAsOneFusedLaunchWithTheSameResults() {
        List<List<float[]>> results = new java.util.ArrayList<>();
        List<PipelineMetrics> metrics = new java.util.ArrayList<>();
        for (boolean[] setting : new boolean[][] {{true, true}, {true, false}, {false, true}}) {
            try (GpuPipeline<float[], float[]> p = elementwisePipeline(setting[0], setting[1])) {
                results.add(run(p));
                metrics.add(p.metrics());
            }
        }
        for (int i = 0; i < CHUNKS; i++) {
            assertArrayEquals(results.get(2).get(i), results.get(0).get(i), "chunk " + i + ", fused");
            assertArrayEquals(results.get(2).get(i), results.get(1).get(i), "chunk " + i + ", replayed unfused");
        }
        assertEquals(2L * CHUNKS, metrics.get(0).fusedLaunches(), "both launches of every chunk ran as one");
        assertEquals(CHUNKS, metrics.get(0).graphReplays());
        assertEquals(0, metrics.get(1).fusedLaunches(), "fusion off");
        assertEquals(CHUNKS, metrics.get(1).graphReplays());
        assertEquals(0, metrics.get(2).fusedLaunches(), "no repeated work, no fusion");
    }

    @Test
    void aStageThatWaitsFallsBackWithTheSameResults() {
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx)
                .lanes(1)
                .chunkElements(N, DType.F32)
                .stage((lane, in, out) -> {
                    lane.stream().enqueueLaunch(scaleAdd, LaunchConfig.forElements(lane.elements()), in, out,
                            lane.elements(), 2f, 1f);
                    return lane.stream().enqueueMarker(); // a marker: no graph describes it
                })
                .build(Chunks.floats())) {
            List<float[]> out = p.process(Flux.range(0, 5).map(i -> GpuPipelineTest.chunk(i, N))).collectList().block();
            for (int i = 0; i < 5; i++) {
                GpuPipelineTest.assertResultOf(i, N, out.get(i));
            }
            assertEquals(5, p.metrics().stageFallbacks());
            assertEquals(0, p.metrics().graphReplays());
        }
    }
}
