package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.InvalidArgumentException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark's smoke test on the CPU simulator (two devices, set by Surefire): every way runs and is checked. */
class SparkBenchTest {

    @Test
    void everyWayRunsOnComputeAndTransferLoadsAndPrintsItsRatio() {
        List<String> out = SparkBench.run(new String[] {"--api", "cpu", "--rows", "10000", "--batch-rows", "1024",
                "--work", "0,1", "--runs", "1"});
        for (int work : new int[] {0, 1}) {
            String key = "sparkbench_work" + work + "_";
            for (String figure : List.of("pipeline_ms=", "spark_ms=", "spark_floor_ms=")) {
                assertTrue(out.stream().anyMatch(l -> l.startsWith(key + figure)), () -> key + figure + " in " + out);
            }
            assertTrue(out.stream().anyMatch(l -> l.matches(key + "spark_over_pipeline=\\d+\\.\\d{3}")), out::toString);
            assertTrue(out.stream().anyMatch(l -> l.matches(key + "spark_over_floor=\\d+\\.\\d{3}")), out::toString);
            assertTrue(out.contains(key + "fmas_per_element=" + work * SpinLoad.FMAS_PER_PASS), out::toString);
            // The plugin's figures of the one measured run: 4 partitions (2 threads, 2 devices) of 2,500 rows, each in 3
            // batches of at most 1,024, each batch's device work replayed as a graph (built in this run only where a
            // kept lane meets a shape of batch, full or short, for the first time: which lane takes which batch varies).
            assertTrue(out.stream().anyMatch(l -> l.matches(key + "spark_per_run batches=12 graphBuilds=\\d+"
                    + " graphReplays=12 .*")), out::toString);
        }
    }

    @Test
    void theKernelsResultsAreTheHosts() {
        float[] expected = SpinLoad.expected(2);
        assertEquals(1 + 2 * SpinLoad.FMAS_PER_PASS * 0.25f, expected[0]);
    }

    @Test
    void badOptionsAreNamedWithTheirValue() {
        assertEquals("--rows: value 0 is outside 1 to 2147483647", assertThrows(InvalidArgumentException.class,
                () -> SparkBench.options(new String[] {"--api", "cpu", "--rows", "0"})).getMessage());
        assertEquals("--work: 'x' is not a whole number", assertThrows(InvalidArgumentException.class,
                () -> SparkBench.options(new String[] {"--api", "cpu", "--work", "1,x"})).getMessage());
        assertTrue(assertThrows(InvalidArgumentException.class, () -> SparkBench.options(new String[] {"--size", "1"}))
                .getMessage().startsWith("--size: no such option"));
    }
}
