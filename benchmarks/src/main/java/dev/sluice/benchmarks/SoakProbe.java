package dev.sluice.benchmarks;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.LaunchConfig;
import java.util.Arrays;

/**
 * The per-enqueue cost of the soak benchmark: a fixed batch of enqueues, an empty-kernel launch and a marker in turn,
 * timed one by one on the host on a stream of the probe's own while the workers run, then drained. A cost that grows over a long
 * run means the library keeps something per stream, per request or per future that it should have let go of (a list
 * that is searched, a map that fills up). Samples are kept until {@link #takeMedian()} takes the median of those since
 * the last call: one figure per report interval.
 */
final class SoakProbe implements AutoCloseable {

    /** Enqueues per sample: a fraction of a millisecond of the probe thread's time, five times a second. */
    static final int BATCH = 1_000;

    private static final LaunchConfig ONE = LaunchConfig.of(1, 1);

    private final DeviceStream stream;
    private final DeviceFunction empty;
    private final double[] batch = new double[BATCH];
    private double[] samples = new double[64];
    private int count;

    SoakProbe(DeviceContext ctx) {
        this.stream = ctx.createStream();
        this.empty = ctx.compile(BenchKernels.EMPTY0);
    }

    /**
     * Times one batch and keeps its median nanoseconds per enqueue. Each enqueue is timed on its own (one clock read
     * between two enqueues, its 20-odd ns included in every figure) and the batch's median kept: where the workers
     * outnumber the cores they preempt the probe in the middle of a batch now and then, which moves a batch's mean by
     * as much as the enqueues cost but leaves its median alone.
     */
    void sample() {
        long before = System.nanoTime();
        for (int i = 0; i < BATCH; i++) {
            if ((i & 1) == 0) {
                stream.enqueueLaunch(empty, ONE);
            } else {
                stream.enqueueMarker();
            }
            long after = System.nanoTime();
            batch[i] = after - before;
            before = after;
        }
        stream.synchronize(); // the next batch starts on an idle stream, as this one did
        if (count == samples.length) {
            samples = Arrays.copyOf(samples, 2 * count);
        }
        samples[count++] = Samples.median(batch);
    }

    /** The median ns per enqueue of the samples taken since the last call (one taken now if there were none). */
    double takeMedian() {
        if (count == 0) {
            sample(); // an interval shorter than the probe period still gets a figure
        }
        double median = Samples.median(Arrays.copyOf(samples, count));
        count = 0;
        return median;
    }

    @Override
    public void close() {
        stream.close();
    }
}
