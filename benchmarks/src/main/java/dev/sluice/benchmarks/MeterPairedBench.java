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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;

/**
 * The binder's cost per operation with the two sides alternating in one process: two contexts of the backend that
 * {@code -Dsluice.api} picks (device 0), one bound to a {@link SimpleMeterRegistry} through {@link DeviceMetrics} as a
 * service would bind it (its defaults: every latency timed, percentiles 0.5, 0.9 and 0.99), the other not. Block by
 * block, in turn first, each enqueues the same operations on one of its streams, keeping at most 4,096 futures in flight
 * (a {@link Backlog}, as {@link MeterBenchmark}), and waits for the last; the time includes the completions, so a binder that slows the
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
 * <p>{@code --sampling N} binds the binder with {@link DeviceMetrics#latencySampling(int) latencySampling(N)}: one
 * successful operation in N timed, the rest only counted.
 *
 * <pre>java -Dsluice.api=cuda -cp ... dev.sluice.benchmarks.MeterPairedBench [--blocks 40] [--ops 50000] [--bound metrics|listener] [--sampling 1]</pre>
 */
public final class MeterPairedBench {

    private MeterPairedBench() {
    }

    /** The command line: block pairs, operations per block, and what the bound context gets. */
    record Options(int blocks, int ops, boolean metrics, int sampling) {

        /**
         * @throws OptionException          for an unknown option or a value that is not a number
         * @throws IllegalArgumentException for a value out of range, naming the option
         */
        static Options parse(String[] args) {
            OptionParser parser = parser();
            OptionSet set = parser.parse(args);
            if (!set.nonOptionArguments().isEmpty()) {
                throw new IllegalArgumentException("unknown argument " + set.nonOptionArguments().getFirst());
            }
            int blocks = (Integer) set.valueOf("blocks");
            int ops = (Integer) set.valueOf("ops");
            String bound = (String) set.valueOf("bound");
            int sampling = (Integer) set.valueOf("sampling");
            if (blocks < 1) {
                throw new IllegalArgumentException("--blocks " + blocks + ": at least 1");
            }
            if (ops < 5) {
                throw new IllegalArgumentException("--ops " + ops + ": at least 5 (uploads are a fifth of it)");
            }
            if (!bound.equals("metrics") && !bound.equals("listener")) {
                throw new IllegalArgumentException("--bound " + bound + ": metrics or listener");
            }
            if (sampling < 1) {
                throw new IllegalArgumentException("--sampling " + sampling + ": at least 1 (1 times every operation)");
            }
            if (sampling != 1 && !bound.equals("metrics")) {
                throw new IllegalArgumentException("--sampling " + sampling + ": only with --bound metrics");
            }
            return new Options(blocks, ops, bound.equals("metrics"), sampling);
        }

        static OptionParser parser() {
            OptionParser parser = new OptionParser(false); // no abbreviations
            parser.accepts("blocks", "measured block pairs per operation").withRequiredArg().ofType(Integer.class).defaultsTo(40);
            parser.accepts("ops", "operations per block (uploads: a fifth of it)").withRequiredArg().ofType(Integer.class)
                    .defaultsTo(50_000);
            parser.accepts("bound", "what the bound context gets: metrics (DeviceMetrics, its defaults) or listener (a"
                    + " DeviceListener that does nothing: the hook's own cost)").withRequiredArg().defaultsTo("metrics");
            parser.accepts("sampling", "the binder's latencySampling: one successful operation in N of each stream and"
                    + " category timed").withRequiredArg().ofType(Integer.class).defaultsTo(1);
            return parser;
        }
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (OptionException | IllegalArgumentException e) {
            System.err.println("MeterPairedBench: " + e.getMessage());
            Options.parser().printHelpOn(System.err);
            System.exit(2);
            return;
        }
        measure(o).forEach((k, v) -> System.out.println(k + "=" + String.format(Locale.ROOT, "%.4f", v)));
    }

    /** Both operations, paired as the class comment says, on the backend {@code -Dsluice.api} picks; the figures by name. */
    static Map<String, Double> measure(Options o) {
        Map<String, Double> out = new LinkedHashMap<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (DeviceContext plain = DeviceContext.open(ContextOptions.defaults());
                DeviceContext bound = DeviceContext.open(ContextOptions.defaults());
                DeviceMetrics metrics = new DeviceMetrics(bound)) {
            if (o.metrics()) {
                metrics.latencySampling(o.sampling()).bindTo(registry);
            } else {
                bound.addListener(new DeviceListener() { });
            }
            System.out.println("backend=" + plain.backendName() + " device=" + plain.name() + " bound="
                    + (o.metrics() ? "metrics sampling=" + o.sampling() : "listener"));
            try (Side p = new Side(plain); Side b = new Side(bound)) {
                compare(out, "marker", o.blocks(), o.ops(), p, b, s -> s.stream.enqueueMarker());
                compare(out, "upload", o.blocks(), o.ops() / 5, p, b, s -> s.stream.enqueueCopy(s.pinned, s.small));
            }
        } finally {
            registry.close();
        }
        return out;
    }

    /** One context's stream, buffers and backlog of futures. */
    private static final class Side implements AutoCloseable {
        final DeviceStream stream;
        final DeviceBuffer small;
        final HostBuffer pinned;
        final Backlog backlog = new Backlog(4096);

        Side(DeviceContext ctx) {
            stream = ctx.createStream();
            small = ctx.allocate(DType.F32, 64);
            pinned = ctx.allocateHost(DType.F32, 64);
        }

        /** {@code n} operations through the backlog, and the wait for the last; nanoseconds. */
        long block(Function<Side, DeviceFuture<?>> op, int n) {
            stream.synchronize();
            long t0 = System.nanoTime();
            DeviceFuture<?> last = null;
            for (int k = 0; k < n; k++) {
                last = backlog.add(op.apply(this));
            }
            last.join();
            long t1 = System.nanoTime();
            backlog.drain(); // all done already: empties it for the next block
            return t1 - t0;
        }

        @Override
        public void close() {
            stream.synchronize();
            stream.close();
            small.close();
            pinned.close();
        }
    }

    /**
     * Five unmeasured pairs (for the JIT), then {@code blocks} measured ones, the plain side first in even pairs and the
     * bound side first in odd ones; puts the figures in the class comment into {@code out}.
     */
    private static void compare(Map<String, Double> out, String name, int blocks, int n, Side plain, Side bound,
            Function<Side, DeviceFuture<?>> op) {
        double[] p = new double[blocks];
        double[] b = new double[blocks];
        for (int i = -5; i < blocks; i++) {
            long pNs;
            long bNs;
            if ((i & 1) == 0) {
                pNs = plain.block(op, n);
                bNs = bound.block(op, n);
            } else {
                bNs = bound.block(op, n);
                pNs = plain.block(op, n);
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
        String key = "meter_" + name + "_";
        out.put(key + "plain_us", Samples.median(p));
        out.put(key + "bound_us", Samples.median(b));
        out.put(key + "cost_us", Samples.median(cost));
        out.put(key + "cost_us_q1", Samples.percentile(cost, 25));
        out.put(key + "cost_us_q3", Samples.percentile(cost, 75));
        out.put(key + "ratio", Samples.median(ratio));
    }
}
