package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArrowBenchTest {

    @Test
    void theThreeWaysRunAndReportTheirRatiosOnTheCpuBackend() throws Exception {
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = ArrowBench.run(ctx, 1, 2);
        }
        assertEquals(6, lines.size(), lines.toString());
        assertTrue(lines.get(1).startsWith("arrow-pinned "), lines.toString());
        assertTrue(lines.get(4).startsWith("ratio arrow-pinned / sluice-pinned"), lines.toString());
    }

    @Test
    void thePipelineWaysRunAndShowThatPinnedBatchesNeedNoStagingAndResultsNoNewPinnedMemoryOnTheCpuBackend() throws Exception {
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = ArrowBench.runPipelines(ctx, 1, 1 << 16, 2, 2); // 4 batches
        }
        assertEquals(8, lines.size(), lines.toString());
        assertTrue(lines.get(1).startsWith("arrow-pipeline "), lines.toString());
        assertTrue(lines.get(2).startsWith("arrow-pipeline-staged "), lines.toString());
        // Pinned batches and the sluice pipeline's pinned chunks and targets need no staging; the staged way does.
        assertTrue(lines.get(4).matches("staging buffers allocated in the first round: arrow-pipeline 0,"
                + " arrow-pipeline-staged [12], sluice-pipeline 0"), lines.get(4));
        // The pinned allocator's pool serves every batch and result after the warm-up round.
        assertTrue(lines.get(5).matches("pinned buffers allocated by the Arrow allocator: warm-up round [1-9][0-9]*,"
                + " measured rounds 0 .*"), lines.get(5));
        assertTrue(lines.get(6).startsWith("ratio arrow-pipeline / sluice-pipeline"), lines.toString());
    }
}
