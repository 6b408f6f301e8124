package dev.sluice.flink;

import java.util.Arrays;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;

/**
 * A Flink {@link Histogram} of the latest {@link #WINDOW} values: flink-metrics-core has the interface only, and Flink's
 * own implementation ({@code DescriptiveStatisticsHistogram}) is an internal class of flink-runtime. Updated from the
 * threads that complete elements (one context's completion thread, or the stage's own); read by reporters. Each
 * {@link #getStatistics()} copies and sorts the window: reporters ask every few seconds, elements arrive far more often.
 */
final class LatencyHistogram implements Histogram {

    /** The values the statistics are computed over: the latest 1,024 elements of a subtask. */
    static final int WINDOW = 1024;

    private final long[] window;
    /** Values recorded since the start; the next one goes to {@code window[count % window.length]}. Guarded by this. */
    private long count;

    LatencyHistogram() {
        this(WINDOW);
    }

    LatencyHistogram(int window) {
        this.window = new long[window];
    }

    @Override
    public synchronized void update(long value) {
        window[(int) (count % window.length)] = value;
        count++;
    }

    @Override
    public synchronized long getCount() {
        return count;
    }

    @Override
    public HistogramStatistics getStatistics() {
        long[] values;
        synchronized (this) {
            values = Arrays.copyOf(window, (int) Math.min(count, window.length));
        }
        Arrays.sort(values);
        return new Statistics(values);
    }

    /** The statistics of a sorted snapshot of the window. */
    private static final class Statistics extends HistogramStatistics {
        private final long[] sorted;

        Statistics(long[] sorted) {
            this.sorted = sorted;
        }

        /** Nearest rank: the smallest value that at least {@code quantile} of the values do not exceed; NaN if empty. */
        @Override
        public double getQuantile(double quantile) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(quantile * sorted.length);
            return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
        }

        @Override
        public long[] getValues() {
            return sorted.clone();
        }

        @Override
        public int size() {
            return sorted.length;
        }

        @Override
        public double getMean() {
            if (sorted.length == 0) {
                return 0;
            }
            double sum = 0;
            for (long v : sorted) {
                sum += v;
            }
            return sum / sorted.length;
        }

        /** The sample standard deviation (n - 1); 0 for fewer than two values. */
        @Override
        public double getStdDev() {
            if (sorted.length < 2) {
                return 0;
            }
            double mean = getMean();
            double squares = 0;
            for (long v : sorted) {
                squares += (v - mean) * (v - mean);
            }
            return Math.sqrt(squares / (sorted.length - 1));
        }

        @Override
        public long getMax() {
            return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
        }

        @Override
        public long getMin() {
            return sorted.length == 0 ? 0 : sorted[0];
        }
    }
}
