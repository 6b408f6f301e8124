package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The medians and percentiles the benchmarks report. */
class SamplesTest {

    @Test
    void medianIsTheMiddleSampleOrTheMeanOfTheTwoMiddleOnes() {
        assertEquals(3.0, Samples.median(new double[] {5, 1, 3}));
        assertEquals(2.5, Samples.median(new double[] {4, 1, 3, 2}));
        assertEquals(7.0, Samples.median(new double[] {7}));
    }

    @Test
    void percentileInterpolatesBetweenTheTwoNearestRanks() {
        double[] v = {10, 20, 30, 40, 50};
        assertEquals(30.0, Samples.percentile(v, 50));
        assertEquals(20.0, Samples.percentile(v, 25));
        assertEquals(48.0, Samples.percentile(v, 95), 1e-12); // rank 0.95 × 4 = 3.8: 40 + 0.8 × 10
        assertEquals(50.0, Samples.percentile(v, 100));
        assertEquals(Samples.median(v), Samples.percentile(v, 50));
    }

    @Test
    void samplesAreLeftInTheirOrder() {
        double[] v = {3, 1, 2};
        Samples.median(v);
        Samples.percentile(v, 99);
        assertArrayEquals(new double[] {3, 1, 2}, v);
    }

    @Test
    void noSamplesOrAPercentileOutsideItsRangeIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Samples.median(new double[0]));
        assertTrue(e.getMessage().contains("no samples"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Samples.percentile(new double[] {1}, 0));
        assertTrue(e.getMessage().contains("percentile 0.0 is outside (0, 100]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Samples.percentile(new double[] {1}, 101));
    }
}
