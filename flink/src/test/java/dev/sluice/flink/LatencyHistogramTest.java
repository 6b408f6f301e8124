package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.metrics.HistogramStatistics;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void statisticsAreThoseOfTheValuesRecorded() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100; v++) {
            h.update(101 - v);
        }
        HistogramStatistics s = h.getStatistics();
        assertEquals(100, h.getCount());
        assertEquals(100, s.size());
        assertEquals(1, s.getMin());
        assertEquals(100, s.getMax());
        assertEquals(50.5, s.getMean(), 1e-9);
        assertEquals(50, s.getQuantile(0.5));
        assertEquals(99, s.getQuantile(0.99));
        assertEquals(1, s.getQuantile(0));
        assertEquals(100, s.getQuantile(1));
        assertEquals(29.011, s.getStdDev(), 1e-3);
    }

    @Test
    void theStatisticsCoverTheLatestWindowWhileTheCountCoversEveryValue() {
        LatencyHistogram h = new LatencyHistogram(4);
        for (long v = 1; v <= 10; v++) {
            h.update(v);
        }
        assertEquals(10, h.getCount());
        assertArrayEquals(new long[] {7, 8, 9, 10}, h.getStatistics().getValues());
    }

    @Test
    void anEmptyHistogramHasNoQuantile() {
        HistogramStatistics s = new LatencyHistogram().getStatistics();
        assertEquals(0, s.size());
        assertTrue(Double.isNaN(s.getQuantile(0.5)));
        assertEquals(0, s.getMean());
    }
}
