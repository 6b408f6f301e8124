package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PrintThreadsTest {

    private static final Pattern LINE = Pattern.compile("block_idx: \\[ (\\d+) (\\d+) (\\d+) \\]\\tthread_idx: \\[ (\\d+) (\\d+) (\\d+) \\]"
            + "\\tglobal_idx: \\[ (\\d+) (\\d+) (\\d+) \\]\\tcalculated global_idx: \\[ (\\d+) (\\d+) (\\d+) \\]");

    @Test
    void everyThreadOfTheGridPrintsItsIndicesThenDone() {
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = Stdout.lines(() -> PrintThreads.run(ctx));
        }
        assertTrue(lines.getFirst().startsWith("Running on cpu device 0: "), lines.getFirst());
        assertEquals("Done", lines.getLast());
        List<String> threadLines = lines.subList(1, lines.size() - 1);
        assertEquals(128, threadLines.size(), "one line per thread: 2x2x1 blocks of 4x4x2 threads");

        int[] grid = {2, 2, 1};
        int[] block = {4, 4, 2};
        Set<List<Integer>> globals = new HashSet<>();
        for (String line : threadLines) {
            Matcher m = LINE.matcher(line);
            assertTrue(m.matches(), () -> "not in the Mojo page's format: " + line);
            for (int d = 0; d < 3; d++) {
                int blockIdx = Integer.parseInt(m.group(1 + d));
                int threadIdx = Integer.parseInt(m.group(4 + d));
                int globalIdx = Integer.parseInt(m.group(7 + d));
                int calculated = Integer.parseInt(m.group(10 + d));
                assertTrue(blockIdx < grid[d] && threadIdx < block[d], line);
                assertEquals(blockIdx * block[d] + threadIdx, globalIdx, line);
                assertEquals(globalIdx, calculated, line);
            }
            globals.add(List.of(Integer.parseInt(m.group(7)), Integer.parseInt(m.group(8)), Integer.parseInt(m.group(9))));
        }
        assertEquals(128, globals.size(), "every thread has its own global index");
    }
}
