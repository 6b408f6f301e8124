package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The fusion benchmark on the CPU simulator, small: both Sluice forms timed, and the fused result the unfused one's. */
class FusionBenchSmokeTest {

    @Test
    void aShortRunTimesBothFormsAndFindsThemEqualBitForBit() {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (PrintStream p = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(p);
            FusionBench.run(FusionBench.Options.parse(new String[] {"--api", "cpu", "--mib", "1", "--reps", "1"}));
        } finally {
            System.setOut(stdout);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        assertTrue(out.contains("| unfused (Sluice, 8 stages) | 8 |"), out);
        assertTrue(out.contains("| fused (Sluice, Kernels.fuse) | 1 |"), out);
        assertTrue(out.contains("fused = unfused bit for bit: yes"), out);
    }
}
