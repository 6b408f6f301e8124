package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command lines of the overlap and soak benchmarks. */
class BenchmarkOptionsTest {

    @Test
    void overlapReadsEveryOptionAndKeepsTheDefaultsOfTheOthers() {
        OverlapBenchmark.Options o = OverlapBenchmark.Options.parse(new String[] {"--api", "cpu", "--chunks", "4,8", "--passes", "40",
                "--modes", "reactive", "--chunks-per-lane", "all", "--svg", "t.svg", "--trace-config", "reactive:2:8"});
        assertEquals("cpu", o.api);
        assertArrayEquals(new int[] {4, 8}, o.chunks);
        assertArrayEquals(new int[] {1, 2, 3, 4}, o.streams);
        assertEquals(40, o.passes);
        assertEquals(5, o.reps);
        assertEquals(List.of("reactive"), o.modes);
        assertEquals(0, o.chunksPerLane);
        assertEquals(Path.of("t.svg"), o.svg);
        assertNull(o.nativeResults);
        assertEquals("reactive", o.traceMode);
        assertEquals(2, o.traceStreams);
        assertEquals(8, o.traceChunks);
    }

    @Test
    void overlapQuickTimesOneRunUnlessRepsSaysOtherwise() {
        assertEquals(1, OverlapBenchmark.Options.parse(new String[] {"--quick"}).reps);
        assertEquals(3, OverlapBenchmark.Options.parse(new String[] {"--quick", "--reps", "3"}).reps);
        assertEquals(3, OverlapBenchmark.Options.parse(new String[] {"--reps", "3", "--quick"}).reps);
    }

    @Test
    void overlapRefusesWhatItDoesNotKnowNamingIt() {
        assertMessage(thrown(() -> OverlapBenchmark.Options.parse(new String[] {"--bogus"})), "bogus is not a recognized option");
        assertMessage(thrown(() -> OverlapBenchmark.Options.parse(new String[] {"--reps"})), "Option reps requires an argument");
        assertMessage(thrown(() -> OverlapBenchmark.Options.parse(new String[] {"--reps", "x"})), "'x' of option reps");
        assertMessage(thrown(() -> OverlapBenchmark.Options.parse(new String[] {"extra"})), "unknown argument extra");
        assertMessage(thrown(() -> OverlapBenchmark.Options.parse(new String[] {"--chunk", "4"})), "chunk is not a recognized option");
        assertMessage(thrown(() -> OverlapBenchmark.Options.parse(new String[] {"--chunks-per-lane", "some"})),
                "--chunks-per-lane takes all or a number, not some");
        assertMessage(thrown(() -> OverlapBenchmark.Options.parse(new String[] {"--modes", "plain,fast"})), "unknown mode fast");
    }

    @Test
    void soakReadsItsOptionsAndDerivesTheIntervals() {
        Soak.Options o = Soak.Options.parse(new String[] {"--api", "cpu", "--minutes", "2", "--threads", "8", "--cost-tolerance", "2"});
        assertEquals("cpu", o.api);
        assertEquals(120.0, o.seconds);
        assertEquals(8, o.threads);
        assertEquals(2.0, o.costTolerance);
        assertEquals(5.0, o.reportSeconds, "runs under 5 minutes report every 5 s");
        assertEquals(24.0, o.warmupSeconds, "a fifth of the run");
        assertEquals(30.0, Soak.Options.parse(new String[] {"--seconds", "600"}).reportSeconds);
    }

    @Test
    void soakRefusesBadValuesNamingTheOption() {
        assertMessage(thrown(() -> Soak.Options.parse(new String[] {"--threads", "x"})), "'x' of option threads");
        assertMessage(thrown(() -> Soak.Options.parse(new String[] {"--threads", "0"})), "--threads");
        assertMessage(thrown(() -> Soak.Options.parse(new String[] {"--minutes", "1", "--seconds", "5"})),
                "--minutes and --seconds both set the length");
    }

    private static String thrown(Runnable parse) {
        return assertThrows(IllegalArgumentException.class, parse::run).getMessage();
    }

    private static void assertMessage(String message, String part) {
        assertTrue(message.contains(part), message);
    }
}
