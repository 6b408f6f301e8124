package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.testing.ExpectWarning;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** {@link GpuPipeline#onProgress}: chunks and bytes done, once per result, over every subscription. */
class PipelineProgressTest {

    private static DeviceContext ctx;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    private static GpuPipeline<float[], float[]> copying() {
        return GpuPipeline.builder(ctx).lanes(2).chunkElements(128, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out))
                .build(Chunks.floats());
    }

    @Test
    void progressCountsEveryResultAndItsBytesAcrossSubscriptions() {
        try (GpuPipeline<float[], float[]> p = copying()) {
            List<PipelineProgress> seen = new CopyOnWriteArrayList<>();
            p.onProgress(seen::add);
            p.process(Flux.range(0, 5).map(i -> new float[128])).blockLast();
            p.process(Flux.range(0, 3).map(i -> new float[100])).blockLast(); // a short chunk: 100 elements
            assertEquals(8, seen.size(), seen.toString());
            for (int i = 0; i < 8; i++) {
                assertEquals(i + 1, seen.get(i).chunksDone(), seen.toString());
            }
            assertEquals(5 * 128 * 4 + 3 * 100 * 4, seen.get(7).bytesDone());
            assertTrue(seen.get(4).bytesDone() == 5 * 128 * 4, seen.toString());
        }
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.reactive.GpuPipeline", containing = "threw; ignored")
    void aThrowingOrRemovedListenerLeavesTheResultsAlone() {
        try (GpuPipeline<float[], float[]> p = copying()) {
            p.onProgress(x -> {
                throw new IllegalStateException("listener bug");
            });
            assertEquals(4, p.process(Flux.range(0, 4).map(i -> new float[128])).collectList().block().size());
            List<PipelineProgress> seen = new CopyOnWriteArrayList<>();
            p.onProgress(seen::add);
            p.onProgress(null);
            p.process(Flux.range(0, 2).map(i -> new float[128])).blockLast();
            assertTrue(seen.isEmpty(), seen.toString());
        }
    }
}
