package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The matrix benchmark on the CPU simulator: every shape's row and column sums, and both copy directions, timed. */
class MatrixBenchSmokeTest {

    @Test
    void aShortRunTimesEveryReductionAndBothCopies() {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (PrintStream p = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(p);
            MatrixBench.run(MatrixBench.Options.parse(new String[] {"--api", "cpu", "--reps", "1"}));
        } finally {
            System.setOut(stdout);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        for (String shape : new String[] {"| 1024 | 1024 |", "| 16384 | 64 |", "| 64 | 16384 |"}) {
            assertTrue(out.contains("| rows " + shape), out);
            assertTrue(out.contains("| columns " + shape), out);
        }
        assertTrue(out.contains("| host to device | 1024 | 1024 | 1088 |"), out);
        assertTrue(out.contains("| device to host | 1024 | 1024 | 1088 |"), out);
    }
}
