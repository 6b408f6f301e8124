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
}
