package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoTest {

    @Test
    void pipelineOverOneAndSeveralStreamsChecksItsResultAndPrintsTheTable() {
        // 100,000 floats in chunks of 8 Ki: the last chunk is a short one.
        Demo.Options options = Demo.Options.parse(new String[] {"--size", "100000", "--chunk=8Ki", "--repeat", "1"}, Api.CPU);
        List<Demo.Row> rows;
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            List<List<Demo.Row>> result = new java.util.ArrayList<>();
            lines = Stdout.lines(() -> result.add(Demo.run(ctx, options)));
            rows = result.getFirst();
        }
        assertEquals(List.of(1, 2, 3, 4), rows.stream().map(Demo.Row::streams).toList());
        assertEquals(1.0, rows.getFirst().speedup());
        assertTrue(rows.stream().allMatch(r -> r.nanos() > 0 && r.gigabytesPerSecond() > 0), rows::toString);

        assertTrue(lines.getFirst().startsWith("Sluice demo: y = 2.0*x + 1.0 over 100,000 floats"), lines.getFirst());
        assertTrue(lines.contains("streams   time (ms)     GB/s   speedup"), lines::toString);
        for (int streams = 1; streams <= 4; streams++) {
            String prefix = String.format("%7d ", streams);
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(prefix) && l.endsWith("x")), () -> "no row for " + prefix);
        }
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("Running on cpu device 0: ")), lines::toString);
        assertEquals("result: all 100,000 values equal a*x + b computed on the host", lines.getLast());
        assertEquals(Demo.CPU_NOTE, lines.get(lines.size() - 2), "the CPU simulator says its times are not a GPU's");
        assertTrue(lines.contains("time: median of 1 runs per stream count, taken in turns after 2 warm-up runs of each,"
                + " from the first staging copy to the last value in y"), lines::toString);
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(5, Demo.median(new long[] {9, 1, 5}));
        assertEquals(4, Demo.median(new long[] {9, 1, 3, 5}));
        assertEquals(7, Demo.median(new long[] {7}));
    }

    @Test
    void checkRejectsAWrongValue() {
        float[] x = {1, 2, 3};
        float[] y = {3, 5, 8};
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Demo.check(x, y));
        assertTrue(e.getMessage().startsWith("y[2] = 8.0 but a*x + b = 7.0"), e.getMessage());
        Demo.check(x, new float[] {3, 5, 7});
    }

    @Test
    void optionsTakeBinarySuffixesAndDefaultByBackend() {
        assertEquals(4 << 20, Demo.Options.parseCount("--size", "4Mi"));
        assertEquals(256 << 10, Demo.Options.parseCount("--size", "256k"));
        assertEquals(1L << 30, Demo.Options.parseCount("--size", "1G"));
        assertEquals(1000, Demo.Options.parseCount("--size", "1000"));
        assertThrows(IllegalArgumentException.class, () -> Demo.Options.parseCount("--size", "4 MB"));

        Demo.Options gpu = Demo.Options.parse(new String[0], Api.CUDA);
        assertEquals(64 << 20, gpu.size());
        assertEquals(4 << 20, gpu.chunk());
        assertArrayEquals(new int[] {1, 2, 3, 4}, gpu.streams());
        assertEquals(1 << 20, Demo.Options.parse(new String[0], Api.CPU).size());

        Demo.Options o = Demo.Options.parse(new String[] {"--size=1000", "--chunk", "4Ki", "--streams", "1, 4"}, Api.CPU);
        assertEquals(1000, o.chunk(), "a chunk is at most the whole array");
        assertArrayEquals(new int[] {1, 4}, o.streams());
        assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse(new String[] {"--streams", "0"}, Api.CPU));
        assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse(new String[] {"--colour", "red"}, Api.CPU));
        assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse(new String[] {"--size"}, Api.CPU));
    }
}
