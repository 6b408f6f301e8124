package dev.sluice.benchmarks;

import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.apache.commons.math3.stat.descriptive.rank.Percentile;
import org.apache.commons.math3.stat.descriptive.rank.Percentile.EstimationType;

/**
 * Medians and percentiles of the benchmarks' timing samples, computed by commons-math3 (which JMH brings). The
 * figures in {@code docs/benchmarks.md} and {@code docs/gpu-runs.md} are defined by these two methods.
 */
public final class Samples {

    private Samples() {
    }

    /**
     * The median of {@code samples}: the middle one, or the mean of the two middle ones when their number is even.
     * The array is left as it was.
     *
     * @throws IllegalArgumentException if {@code samples} is empty
     */
    public static double median(double[] samples) {
        requireSamples(samples);
        return new Median().evaluate(samples);
    }

    /**
     * The {@code p}-th percentile of {@code samples}, interpolated linearly between the two samples nearest to rank
     * {@code p / 100 × (n − 1)} (counting from 0): the definition R and NumPy use by default. The array is left as it was.
     *
     * @throws IllegalArgumentException if {@code samples} is empty or {@code p} is not in (0, 100]
     */
    public static double percentile(double[] samples, double p) {
        requireSamples(samples);
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile " + p + " is outside (0, 100]");
        }
        return new Percentile(p).withEstimationType(EstimationType.R_7).evaluate(samples);
    }

    private static void requireSamples(double[] samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples: a median or percentile needs at least one");
        }
    }
}
