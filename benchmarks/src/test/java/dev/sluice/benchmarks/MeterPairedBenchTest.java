package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import joptsimple.OptionException;
import org.junit.jupiter.api.Test;

/** The binder's paired benchmark: its command line, and a short run on the CPU simulator. */
class MeterPairedBenchTest {

    @Test
    void readsItsOptionsAndKeepsTheDefaults() {
        assertEquals(new MeterPairedBench.Options(40, 50_000, true, 1), MeterPairedBench.Options.parse(new String[0]));
        assertEquals(new MeterPairedBench.Options(3, 100, true, 16),
                MeterPairedBench.Options.parse(new String[] {"--blocks", "3", "--ops", "100", "--sampling", "16"}));
        assertEquals(new MeterPairedBench.Options(3, 100, false, 1),
                MeterPairedBench.Options.parse(new String[] {"--blocks", "3", "--ops", "100", "--bound", "listener"}));
    }

    @Test
    void refusesWhatItDoesNotKnowNamingTheOption() {
        assertRefused("--bound x", "--bound", "x");
        assertRefused("--blocks 0", "--blocks", "0");
        assertRefused("--ops 4", "--ops", "4");
        assertRefused("--sampling 0", "--sampling", "0");
        assertRefused("only with --bound metrics", "--bound", "listener", "--sampling", "8");
        assertThrows(OptionException.class, () -> MeterPairedBench.Options.parse(new String[] {"--bogus"}));
        assertThrows(OptionException.class, () -> MeterPairedBench.Options.parse(new String[] {"--blocks", "x"}));
    }

    @Test
    void aShortRunGivesEveryFigureForBothOperations() {
        for (boolean metrics : new boolean[] {true, false}) {
            Map<String, Double> figures = MeterPairedBench.measure(new MeterPairedBench.Options(2, 200, metrics, metrics ? 4 : 1));
            for (String op : List.of("marker", "upload")) {
                for (String figure : List.of("plain_us", "bound_us", "cost_us", "cost_us_q1", "cost_us_q3", "ratio")) {
                    Double v = figures.get("meter_" + op + "_" + figure);
                    assertFalse(v == null || v.isNaN() || v.isInfinite(), op + " " + figure + ": " + v);
                }
                assertTrue(figures.get("meter_" + op + "_plain_us") > 0, op);
                assertTrue(figures.get("meter_" + op + "_bound_us") > 0, op);
            }
        }
    }

    private static void assertRefused(String part, String... args) {
        String m = assertThrows(IllegalArgumentException.class, () -> MeterPairedBench.Options.parse(args)).getMessage();
        assertTrue(m.contains(part), m);
    }
}
