package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.InvalidArgumentException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark's smoke test on the CPU simulator (two devices, set by Surefire): every way runs and is checked. */
class FlinkBenchTest {

    @Test
    void everyWayRunsOverOneAndTwoDevicesAndPrintsItsRatios() throws Exception {
        List<String> out = FlinkBench.run(new String[] {"--api", "cpu", "--batches", "8", "--floats", "512", "--work", "1",
                "--runs", "1"});
        for (int work : new int[] {1}) {
            String key = "flinkbench_work" + work + "_";
            for (String way : List.of("pipeline_1gpu", "pipeline_2gpu", "flink_p1_1gpu", "flink_p2_1gpu", "flink_p4_1gpu",
                    "flink_p1_immutable_1gpu", "flink_p2_2gpu", "flink_p4_2gpu")) {
                assertTrue(out.stream().anyMatch(l -> l.startsWith(key + way + "_ms=")), () -> key + way + " in " + out);
            }
            for (String ratio : List.of("flink_p1_1gpu_over_pipeline_1gpu", "flink_p1_immutable_1gpu_over_pipeline_1gpu",
                    "pipeline_2gpu_over_pipeline_1gpu",
                    "flink_p4_2gpu_over_flink_p4_1gpu", "flink_2gpu_over_1gpu")) {
                assertTrue(out.stream().anyMatch(l -> l.matches(key + ratio + "=\\d+\\.\\d{3}")), () -> ratio + " in " + out);
            }
            assertTrue(out.contains(key + "fmas_per_element=" + work * SpinLoad.FMAS_PER_PASS), out::toString);
        }
    }

    @Test
    void oneDeviceLeavesTheTwoDeviceWaysOutAndNoWorkIsCopiesAlone() throws Exception {
        List<String> out = FlinkBench.run(new String[] {"--api", "cpu", "--batches", "4", "--floats", "256", "--runs", "1",
                "--devices", "1", "--work", "0"});
        assertTrue(out.stream().anyMatch(l -> l.startsWith("flinkbench_work0_flink_p4_1gpu_over_pipeline_1gpu=")),
                out::toString);
        assertTrue(out.stream().noneMatch(l -> l.contains("2gpu")), out::toString);
    }

    @Test
    void theKernelsResultsAreTheHostsAndAWrongOneIsNamed() {
        float[] expected = SpinLoad.expected(2);
        assertEquals(1 + 2 * SpinLoad.FMAS_PER_PASS * 0.25f, expected[0]);
        assertEquals(2, FlinkBench.check(new float[] {expected[2], 0f, expected[2]}, expected));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> FlinkBench.check(new float[] {expected[1], expected[2]}, expected));
        assertEquals("a result of 2 floats begins with 66.0 and ends with 67.0; expected one of [65.0, 66.0, 67.0, 68.0]"
                + " at both ends", e.getMessage());
    }

    @Test
    void badOptionsAreNamedWithTheirValue() {
        assertEquals("--batches: value 0 is outside 1 to 2147483647", assertThrows(InvalidArgumentException.class,
                () -> FlinkBench.options(new String[] {"--api", "cpu", "--batches", "0"})).getMessage());
        assertEquals("--work: 'x' is not a whole number", assertThrows(InvalidArgumentException.class,
                () -> FlinkBench.options(new String[] {"--api", "cpu", "--work", "1,x"})).getMessage());
        assertEquals("--devices: value 3 is outside 1 to 2", assertThrows(InvalidArgumentException.class,
                () -> FlinkBench.options(new String[] {"--api", "cpu", "--devices", "3"})).getMessage());
        assertTrue(assertThrows(InvalidArgumentException.class, () -> FlinkBench.options(new String[] {"--size", "1"}))
                .getMessage().startsWith("--size: no such option"));
    }
}
