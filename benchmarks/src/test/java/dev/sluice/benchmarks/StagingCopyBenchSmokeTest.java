package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The staging copy benchmark on the CPU simulator, small: a row per thread count and one for the lanes' fill. */
class StagingCopyBenchSmokeTest {

    @Test
    void aShortRunTimesEveryRowAndChecksTheCopy() throws Exception {
        List<String> rows = StagingCopyBench.run(StagingCopyBench.Options.parse(
                new String[] {"--api", "cpu", "--mib", "2", "--reps", "2"}));
        assertTrue(rows.getFirst().startsWith("| 1 thread(s) | "), rows::toString);
        assertTrue(rows.getLast().startsWith("| DeviceLane.fill | "), rows::toString);
        for (String r : rows) {
            double gbs = Double.parseDouble(r.substring(r.lastIndexOf("| ", r.length() - 3) + 2, r.length() - 2));
            assertTrue(gbs > 0, r);
        }
        assertEquals(rows.size(), rows.stream().distinct().count(), "one row per form");
    }
}
