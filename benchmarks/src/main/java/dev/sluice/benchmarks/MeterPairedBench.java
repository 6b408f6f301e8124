package dev.sluice.benchmarks;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.micrometer.DeviceMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Locale;
import java.util.function.Supplier;
import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;

/**
 * The binder's cost per operation with the two sides alternating in one process: two contexts of the backend that
 * {@code -Dsluice.api} picks (device 0), one bound to a {@link SimpleMeterRegistry} through {@link DeviceMetrics} as a
 * service would bind it (its defaults: every latency timed, percentiles 0.5, 0.9 and 0.99), the other not. Block by
 * block, in turn first, each enqueues the same operations on one of its streams, keeping at most 4,096 futures in flight
 * (as {@link MeterBenchmark}), and waits for the last; the time includes the completions, so a binder that slows the
 * completion thread shows here as well as one that slows the enqueuing thread.
 *
 * <p>Why not only {@link MeterBenchmark}: its forks differ from one another by about as much as the binder costs, so
 * two JMH runs cannot tell a 0.05 µs difference; blocks paired in one process can (the same reasoning as the per-call
 * figures' {@code PairedBench}).
 *
 * <p>Operations: {@code marker} (an event-free marker: the most operations a second a stream can complete, the
 * completion thread's and the recorder's worst case) and {@code upload} (256 bytes from pinned memory). Printed per
 * operation: {@code meter_<op>_plain_us}, {@code meter_<op>_bound_us} (medians over blocks), {@code meter_<op>_cost_us}
 * (the median of the blocks' differences) with its quartiles, and {@code meter_<op>_ratio}.
 *
 * <p>{@code --bound listener} gives the bound context a {@link DeviceListener} that does nothing instead: the cost of
 * the observation hook alone, which any listener pays.
 *
 * <pre>java -Dsluice.api=cuda -cp ... dev.sluice.benchmarks.MeterPairedBench [--blocks 40] [--ops 50000] [--bound metrics|listener]</pre>
 */
public final class MeterPairedBench {

    private static final int BACKLOG = 4096;

    private MeterPairedBench() {
    }

    public static void main(String[] args) throws Exception {
        OptionParser parser = new OptionParser(false);
        OptionSpec<Integer> blocksOption = parser.accepts("blocks", "measured block pairs per operation")
                .withRequiredArg().ofType(Integer.class).defaultsTo(40);
        OptionSpec<Integer> opsOption = parser.accepts("ops", "operations per block (uploads: a fifth of it)")
                .withRequiredArg().ofType(Integer.class).defaultsTo(50_000);
        OptionSpec<String> boundOption = parser.accepts("bound", "what the bound context gets: metrics (DeviceMetrics, its"
                + " defaults) or listener (a DeviceListener that does nothing: the hook's own cost)")
                .withRequiredArg().defaultsTo("metrics");
        int blocks;
        int ops;
        String what;
        try {
            OptionSet set = parser.parse(args);
            if (!set.nonOptionArguments().isEmpty()) {
                throw new IllegalArgumentException("unknown argument " + set.nonOptionArguments().getFirst());
            }
            blocks = set.valueOf(blocksOption);
            ops = set.valueOf(opsOption);
            what = set.valueOf(boundOption);
            if (!what.equals("metrics") && !what.equals("listener")) {
                throw new IllegalArgumentException("--bound " + what + ": metrics or listener");
            }
            if (blocks < 1 || ops < 1) {
                throw new IllegalArgumentException("--blocks and --ops must be at least 1");
            }
        } catch (OptionException | IllegalArgumentException e) {
            System.err.println("MeterPairedBench: " + e.getMessage());
            parser.printHelpOn(System.err);
            System.exit(2);
            return;
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (DeviceContext plain = DeviceContext.open(ContextOptions.defaults());
                DeviceContext bound = DeviceContext.open(ContextOptions.defaults());
                DeviceMetrics metrics = new DeviceMetrics(bound)) {
            if (what.equals("metrics")) {
                metrics.bindTo(registry);
            } else {
                bound.addListener(new DeviceListener() { });
            }
            System.out.println("backend=" + plain.backendName() + " device=" + plain.name() + " bound=" + what);
            Side p = new Side(plain);
            Side b = new Side(bound);
            compare("marker", blocks, ops, p, p.markers(), b, b.markers());
            compare("upload", blocks, Math.max(1, ops / 5), p, p.uploads(), b, b.uploads());
            p.close();
            b.close();
        }
    }

    /** One context's stream, buffers and backlog of futures. */
    private static final class Side {
        final DeviceStream stream;
        final DeviceBuffer small;
        final HostBuffer pinned;
        final DeviceFuture<?>[] backlog = new DeviceFuture<?>[BACKLOG];

        Side(DeviceContext ctx) {
            stream = ctx.createStream();
            small = ctx.allocate(DType.F32, 64);
            pinned = ctx.allocateHost(DType.F32, 64);
        }

        Supplier<DeviceFuture<?>> markers() {
            return stream::enqueueMarker;
        }

        Supplier<DeviceFuture<?>> uploads() {
            return () -> stream.enqueueCopy(pinned, small);
        }

        /** {@code n} operations, at most {@link #BACKLOG} in flight, and the wait for the last; nanoseconds. */
        long block(Supplier<DeviceFuture<?>> op, int n) {
            stream.synchronize();
            long t0 = System.nanoTime();
            DeviceFuture<?> last = null;
            for (int k = 0; k < n; k++) {
                int i = k & (BACKLOG - 1);
                DeviceFuture<?> old = backlog[i];
                if (old != null && !old.isDone()) {
                    old.join();
                }
                last = op.get();
                backlog[i] = last;
            }
            last.join();
            long t1 = System.nanoTime();
            java.util.Arrays.fill(backlog, null);
            return t1 - t0;
        }

        void close() {
            stream.synchronize();
            stream.close();
            small.close();
            pinned.close();
        }
    }

    /**
     * Five unmeasured pairs (for the JIT), then {@code blocks} measured ones, the plain side first in even pairs and the
     * bound side first in odd ones; prints the figures in the class comment.
     */
    private static void compare(String name, int blocks, int n, Side plain, Supplier<DeviceFuture<?>> plainOp, Side bound,
            Supplier<DeviceFuture<?>> boundOp) {
        double[] p = new double[blocks];
        double[] b = new double[blocks];
        for (int i = -5; i < blocks; i++) {
            long pNs;
            long bNs;
            if ((i & 1) == 0) {
                pNs = plain.block(plainOp, n);
                bNs = bound.block(boundOp, n);
            } else {
                bNs = bound.block(boundOp, n);
                pNs = plain.block(plainOp, n);
            }
            if (i >= 0) {
                p[i] = pNs / 1e3 / n;
                b[i] = bNs / 1e3 / n;
            }
        }
        double[] cost = new double[blocks];
        double[] ratio = new double[blocks];
        for (int i = 0; i < blocks; i++) {
            cost[i] = b[i] - p[i];
            ratio[i] = b[i] / p[i];
        }
        result("meter_" + name + "_plain_us", Samples.median(p));
        result("meter_" + name + "_bound_us", Samples.median(b));
        result("meter_" + name + "_cost_us", Samples.median(cost));
        result("meter_" + name + "_cost_us_q1", Samples.percentile(cost, 25));
        result("meter_" + name + "_cost_us_q3", Samples.percentile(cost, 75));
        result("meter_" + name + "_ratio", Samples.median(ratio));
    }

    private static void result(String name, double value) {
        System.out.println(name + "=" + String.format(Locale.ROOT, "%.4f", value));
    }
}
