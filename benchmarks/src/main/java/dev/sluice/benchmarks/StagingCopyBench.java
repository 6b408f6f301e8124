package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import dev.sluice.reactive.DeviceLane;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import joptsimple.OptionParser;
import joptsimple.OptionSpec;

/**
 * The host side of staging, no device involved: how fast a {@code float[]} element of {@code --mib} MiB is copied into
 * pinned staging memory ({@link HostBufferPool}), the copy a pipeline lane or a Flink subtask makes of each array before
 * its upload. Rows:
 * <ul>
 * <li>{@code k thread(s)}: the element split into k pieces, one per thread of a plain executor, for k = 1, 2, 4 ... up
 * to the machine's cores: what k cores' memcpy reach, 1 being one task thread's bound;
 * <li>{@code DeviceLane.fill}: the lanes' own path, split over their copy threads (the stream waits for it; its
 * future's completion is timed).
 * </ul>
 * Each figure is the median of {@code --reps} copies after three of warm-up, in GB/s (10^9 bytes per second). The GPU
 * figures (a pipeline's or a subtask's throughput with these copies) come from {@code GpuPipelineBench} and
 * {@code FlinkBench} on a GPU host.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.StagingCopyBench
 *     [--api cuda|hip|cpu] [--mib 64] [--reps 20]</pre>
 */
public final class StagingCopyBench {

    /** The options: the backend (null: the one {@code DeviceContext.open()} picks), MiB per element, timed copies. */
    record Options(String api, int mib, int reps) {

        static Options parse(String[] args) {
            OptionParser parser = CommandLine.parser();
            OptionSpec<String> api = parser.accepts("api").withRequiredArg();
            OptionSpec<Integer> mib = parser.accepts("mib").withRequiredArg().ofType(Integer.class);
            OptionSpec<Integer> reps = parser.accepts("reps").withRequiredArg().ofType(Integer.class);
            Options[] o = new Options[1];
            CommandLine.parse(parser, args, """
                    usage: StagingCopyBench [--api cuda|hip|cpu] [--mib N] [--reps N]
                      --api    backend whose pinned memory is the staging (default: the best present)
                      --mib    MiB per element copied (default 64)
                      --reps   timed copies per row, after three of warm-up (default 20)""",
                    set -> o[0] = new Options(set.valueOf(api), set.has(mib) ? set.valueOf(mib) : 64,
                            set.has(reps) ? set.valueOf(reps) : 20));
            if (o[0].mib() < 1 || o[0].mib() > 1024 || o[0].reps() < 1) {
                throw new IllegalArgumentException("--mib " + o[0].mib() + " must be 1 to 1024 and --reps "
                        + o[0].reps() + " at least 1");
            }
            return o[0];
        }
    }

    private StagingCopyBench() {
    }

    /**
     * Runs the benchmark and prints its table.
     *
     * @param args {@code --api}, {@code --mib}, {@code --reps}; {@code --help} lists them
     * @throws Exception if a copy fails
     */
    public static void main(String[] args) throws Exception {
        run(Options.parse(args));
    }

    /** The table's rows, for the smoke test: label and GB/s. */
    static List<String> run(Options o) throws Exception {
        int floats = o.mib() << 18;
        float[] element = new float[floats];
        for (int i = 0; i < floats; i++) {
            element[i] = i;
        }
        MemorySegment source = MemorySegment.ofArray(element);
        long bytes = source.byteSize();
        List<String> rows = new ArrayList<>();
        try (DeviceContext ctx = o.api() == null ? DeviceContext.open() : DeviceContext.open(o.api(), 0);
                HostBufferPool pool = HostBufferPool.of(ctx, 2 * bytes)) {
            HostBuffer staging = pool.take(DType.F32, floats);
            MemorySegment target = staging.segment();
            int cores = Runtime.getRuntime().availableProcessors();
            for (int k = 1; k <= cores; k = k < cores && 2 * k > cores ? cores : 2 * k) {
                int threads = k;
                try (ExecutorService pieces = Executors.newFixedThreadPool(threads)) {
                    double gbs = rate(bytes, o.reps(), () -> split(pieces, threads, source, target));
                    rows.add(row(threads + " thread(s)", gbs));
                }
            }
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 0, pool, false, false);
            try {
                double gbs = rate(bytes, o.reps(), () -> lane.fill(staging, source).join());
                rows.add(row("DeviceLane.fill", gbs));
            } finally {
                lane.close();
            }
            check(element, target);
            pool.give(staging);
        }
        System.out.printf(Locale.ROOT, "staging copy of a float[] of %d MiB into pinned memory, median of %d, %d cores%n",
                o.mib(), o.reps(), Runtime.getRuntime().availableProcessors());
        System.out.println("| copy | GB/s |");
        System.out.println("|---|---:|");
        rows.forEach(System.out::println);
        return rows;
    }

    private static String row(String label, double gbs) {
        return String.format(Locale.ROOT, "| %s | %.2f |", label, gbs);
    }

    /** The median rate of {@code reps} runs of {@code copy}, after three of warm-up. */
    private static double rate(long bytes, int reps, ThrowingRunnable copy) throws Exception {
        for (int i = 0; i < 3; i++) {
            copy.run();
        }
        double[] gbs = new double[reps];
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            copy.run();
            gbs[i] = (double) bytes / (System.nanoTime() - t0);
        }
        return Samples.median(gbs);
    }

    /** {@code source} into {@code target} in {@code k} pieces, one per thread, waiting for all. */
    private static void split(ExecutorService threads, int k, MemorySegment source, MemorySegment target)
            throws Exception {
        long bytes = source.byteSize();
        long piece = ((bytes + k - 1) / k + 63) & -64;
        List<Future<?>> parts = new ArrayList<>(k);
        for (long at = 0; at < bytes; at += piece) {
            long offset = at;
            long length = Math.min(piece, bytes - at);
            parts.add(threads.submit(() -> MemorySegment.copy(source, offset, target, offset, length)));
        }
        for (Future<?> f : parts) {
            f.get();
        }
    }

    /** A copy that is not what it should be fails the run: a figure of a wrong copy is no figure. */
    private static void check(float[] element, MemorySegment target) {
        for (int i = 0; i < element.length; i += 4093) {
            if (target.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i) != element[i]) {
                throw new IllegalStateException("element " + i + " of the staging copy differs");
            }
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
