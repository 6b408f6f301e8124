package dev.sluice.examples;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo the README runs: a host array flows upload → kernel → download in chunks, first over one stream,
 * then over several, and a table shows what overlapping the streams bought.
 *
 * <p>Each stream is a {@link Lane} with its own pinned staging buffers (one on the way in, one on the way out)
 * and its own device buffer, all reused for every chunk the lane carries; chunks go to the lanes round-robin.
 * For one chunk, a lane
 * <ol>
 * <li>stages the chunk from the Java array into its pinned input buffer, on a host thread, as soon as the
 * lane's previous upload has left that buffer;
 * <li>makes its stream wait for that staging (a device-side gate: no host thread blocks), uploads, computes
 * {@code y = a*x + b} in place, waits until the previous chunk has left the output staging buffer, and
 * downloads into it;
 * <li>unstages the result into the output array, on a host thread, when the download's future completes.
 * </ol>
 * Nothing blocks until all chunks are enqueued; then the futures of all chunks are joined. With several lanes,
 * one lane's copies and staging overlap the others' work: that is the speed-up in the table. The result is
 * checked against the same formula computed on the host.
 *
 * <pre>
 * Usage: Demo [--size N] [--chunk N] [--streams 1,2,3,4] [--repeat R]
 * </pre>
 * {@code N} counts floats and takes the binary suffixes Ki, Mi, Gi (or K, M, G). Defaults: 64 Mi floats in
 * chunks of 4 Mi on a GPU; 1 Mi floats in chunks of 64 Ki on the CPU backend, so that it runs in seconds.
 */
public final class Demo {

    static final float A = 2.0f;
    static final float B = 1.0f;

    /** Untimed runs of every configuration before the first timed one. */
    static final int WARM_UP_ROUNDS = 2;

    /** What the table means on the CPU simulator. */
    static final String CPU_NOTE = "note: on the CPU simulator these times simulate the streams' ordering, not a GPU's"
            + " speed: host threads stand in for copy engines and the kernel, so the speedups say how the simulator"
            + " overlaps them on this machine's cores, not what a GPU would gain";

    /** {@code data[i] = a * data[i] + b} for {@code i < n}: one read and one write per element, memory-bound. */
    static final Kernel AXPB = Kernel.named("axpb")
            .param(KernelParam.pointer("data", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .param(KernelParam.scalar("a", DType.F32))
            .param(KernelParam.scalar("b", DType.F32))
            .cudaSource("""
                    extern "C" __global__ void axpb(float* data, long long n, float a, float b) {
                        long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x;
                        if (i < n) {
                            data[i] = a * data[i] + b;
                        }
                    }
                    """)
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    MemorySegment data = t.pointer(0);
                    data.setAtIndex(JAVA_FLOAT, i, t.floatArg(2) * data.getAtIndex(JAVA_FLOAT, i) + t.floatArg(3));
                }
            })
            .build();

    private Demo() {
    }

    public static void main(String[] args) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.println(Options.USAGE);
            return;
        }
        try (DeviceContext ctx = DeviceContext.open()) {
            Options options;
            try {
                options = Options.parse(args, ctx.api());
            } catch (IllegalArgumentException e) {
                System.err.println("Demo: " + e.getMessage());
                System.err.println(Options.USAGE);
                System.exit(2);
                return;
            }
            run(ctx, options);
        }
    }

    /** One line of the table. */
    record Row(int streams, long nanos, double gigabytesPerSecond, double speedup) {
    }

    /**
     * Runs the pipeline over each stream count of {@code options}, prints the table, and returns its rows.
     *
     * @throws IllegalStateException if a result differs from the host's computation
     */
    static List<Row> run(DeviceContext ctx, Options options) {
        int n = options.size();
        int chunk = options.chunk();
        System.out.printf(Locale.ROOT, "Sluice demo: y = %s*x + %s over %s floats (%s) in %d chunks of %s floats%n",
                A, B, count(n), bytes(4L * n), (n + (long) chunk - 1) / chunk, count(chunk));
        System.out.println("float[] -> pinned staging -> device -> kernel -> pinned staging -> float[], chunks round-robin over the streams");
        Examples.printDevice(ctx);
        System.out.println();
        System.out.println("streams   time (ms)     GB/s   speedup");

        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (i % 10_000) * 0.25f;
        }
        float[] y = new float[n];
        int[] configs = options.streams();
        long[][] nanos = new long[configs.length][options.repeat()];
        int totalStreams = Arrays.stream(configs).sum();
        List<Lanes> all = new ArrayList<>();
        try (DeviceFunction axpb = ctx.compile(AXPB);
                ExecutorService host = Executors.newFixedThreadPool(2 * totalStreams, Thread.ofPlatform().daemon().factory())) {
            try {
                for (int streams : configs) {
                    all.add(new Lanes(ctx, streams, chunk));
                }
                // Warm-up before any timing, of every configuration: the JIT, the first touch of pages, lazy module
                // loading. Warming only the configuration about to be timed would time the first ones colder.
                for (int w = 0; w < WARM_UP_ROUNDS; w++) {
                    for (Lanes lanes : all) {
                        lanes.carry(x, y, axpb, host);
                    }
                }
                // Then the repetitions, round-robin over the configurations, so that drift (JIT, frequency, other
                // processes) spreads over all of them instead of favouring the last.
                for (int r = 0; r < options.repeat(); r++) {
                    for (int c = 0; c < configs.length; c++) {
                        Arrays.fill(y, Float.NaN);
                        long start = System.nanoTime();
                        all.get(c).carry(x, y, axpb, host);
                        nanos[c][r] = System.nanoTime() - start;
                        check(x, y);
                    }
                }
            } finally {
                all.forEach(Lanes::close);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (int c = 0; c < configs.length; c++) {
            long median = median(nanos[c]);
            double gbs = 2.0 * 4 * n / median; // bytes up and down per nanosecond = GB/s
            double speedup = rows.isEmpty() ? 1.0 : (double) rows.getFirst().nanos() / median;
            Row row = new Row(configs[c], median, gbs, speedup);
            rows.add(row);
            System.out.printf(Locale.ROOT, "%7d %11.3f %8.2f %8.2fx%n", configs[c], median / 1e6, gbs, speedup);
        }
        System.out.println();
        String baseline = rows.getFirst().streams() == 1 ? "1 stream" : rows.getFirst().streams() + " streams";
        System.out.println("time: median of " + options.repeat() + " runs per stream count, taken in turns after "
                + WARM_UP_ROUNDS + " warm-up runs of each, from the first staging copy to the last value in y");
        System.out.println("GB/s: bytes uploaded plus downloaded per second; speedup: against " + baseline);
        if (ctx.api() == Api.CPU) {
            System.out.println(CPU_NOTE);
        }
        System.out.println("result: all " + count(n) + " values equal a*x + b computed on the host");
        return rows;
    }

    /** The lanes of one run: as many streams, each with its buffers. */
    private static final class Lanes implements AutoCloseable {
        private final List<Lane> lanes = new ArrayList<>();
        private final int chunk;

        Lanes(DeviceContext ctx, int streams, int chunk) {
            this.chunk = chunk;
            for (int i = 0; i < streams; i++) {
                lanes.add(new Lane(ctx, chunk));
            }
        }

        /** Moves all of {@code x} through the lanes into {@code y}; returns when every chunk is in {@code y}. */
        void carry(float[] x, float[] y, DeviceFunction axpb, Executor host) {
            List<CompletableFuture<Void>> chunks = new ArrayList<>();
            int k = 0;
            for (long offset = 0; offset < x.length; offset += chunk) {
                Lane lane = lanes.get(k++ % lanes.size());
                chunks.add(lane.carry(x, y, (int) offset, (int) Math.min(chunk, x.length - offset), axpb, host));
            }
            CompletableFuture.allOf(chunks.toArray(CompletableFuture[]::new)).join();
        }

        @Override
        public void close() {
            lanes.forEach(Lane::close);
        }
    }

    /** One stream with the buffers it reuses for every chunk it carries. */
    private static final class Lane implements AutoCloseable {
        private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

        private final DeviceStream stream;
        private final HostBuffer stagingIn;   // pinned: a chunk on its way to the device
        private final DeviceBuffer device;
        private final HostBuffer stagingOut;  // pinned: a chunk on its way back
        private CompletableFuture<?> stagingInFree = DONE;  // the last upload from stagingIn
        private CompletableFuture<?> stagingOutFree = DONE; // the last unstaging from stagingOut

        Lane(DeviceContext ctx, int chunk) {
            stream = ctx.createStream();
            stagingIn = ctx.allocateHost(DType.F32, chunk);
            stagingOut = ctx.allocateHost(DType.F32, chunk);
            device = stream.enqueueAllocate(DType.F32, chunk); // stream-ordered: this stream may use it at once
        }

        /** Enqueues {@code y[offset..offset+length) = a * x[offset..offset+length) + b}; the future completes when it is in {@code y}. */
        CompletableFuture<Void> carry(float[] x, float[] y, int offset, int length, DeviceFunction axpb, Executor host) {
            HostBuffer in = stagingIn.slice(0, length);
            DeviceBuffer data = device.slice(0, length);
            HostBuffer out = stagingOut.slice(0, length);

            // 1. Stage the chunk into pinned memory on a host thread, once the last upload has left the buffer.
            CompletableFuture<Void> staged = stagingInFree.thenRunAsync(
                    () -> MemorySegment.copy(x, offset, in.segment(), JAVA_FLOAT, 0, length), host);

            // 2. On the device, in this stream's order: wait for the staging (no host thread blocks), upload,
            //    compute, wait until the previous chunk has left the output staging buffer, download.
            stream.waitFor(staged);
            stagingInFree = stream.enqueueCopy(in, data);
            stream.enqueueLaunch(axpb, LaunchConfig.forElements(length), data, length, A, B);
            stream.waitFor(stagingOutFree);
            DeviceFuture<Void> downloaded = stream.enqueueCopy(data, out);

            // 3. Unstage into the result array when the download completes: *Async, so the copy runs on a host
            //    thread and not on the context's completion thread, which completes every stream's futures.
            stagingOutFree = downloaded.thenRunAsync(
                    () -> MemorySegment.copy(out.segment(), JAVA_FLOAT, 0, y, offset, length), host);

            // A failed staging does not stop the stream; joining it reports the failure.
            return CompletableFuture.allOf(staged, stagingOutFree);
        }

        @Override
        public void close() {
            device.close();     // freed in this stream's order, after its last use
            stream.close();     // waits for the stream's work
            stagingIn.close();
            stagingOut.close();
        }
    }

    /** The median of {@code values} (the mean of the middle two for an even count). */
    static long median(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    /** Throws at the first element of {@code y} that is not {@code a * x + b} (within one unit in the last place, for fused multiply-adds). */
    static void check(float[] x, float[] y) {
        for (int i = 0; i < x.length; i++) {
            float expected = A * x[i] + B;
            if (!(Math.abs(y[i] - expected) <= Math.ulp(expected))) {
                throw new IllegalStateException("y[" + i + "] = " + y[i] + " but a*x + b = " + expected + " for x = " + x[i]);
            }
        }
    }

    // ---------------------------------------------------------------- options

    /** What to run: {@code size} floats in chunks of {@code chunk}, over each stream count, median of {@code repeat}. */
    record Options(int size, int chunk, int[] streams, int repeat) {

        static final String USAGE = """
                Usage: Demo [--size N] [--chunk N] [--streams 1,2,3,4] [--repeat R]
                  --size N      floats in the host array (suffixes Ki, Mi, Gi); default 64Mi on a GPU, 1Mi on the CPU backend
                  --chunk N     floats per chunk; default size / 16
                  --streams L   stream counts to compare, the first is the baseline; default 1,2,3,4
                  --repeat R    timed runs per stream count, the median is shown; default 5
                The backend: -Dsluice.api=cpu|cuda|hip or SLUICE_API; by default the best present.""";

        /** The largest Java array. */
        static final long MAX_SIZE = Integer.MAX_VALUE - 8;

        private static final Pattern COUNT = Pattern.compile("(\\d+)\\s*(?:([KMG])i?)?", Pattern.CASE_INSENSITIVE);

        Options {
            if (size < 1 || chunk < 1 || repeat < 1) {
                throw new IllegalArgumentException("--size, --chunk and --repeat must be at least 1");
            }
            chunk = Math.min(chunk, size);
            if (streams.length == 0 || Arrays.stream(streams).anyMatch(s -> s < 1 || s > 64)) {
                throw new IllegalArgumentException("--streams: " + Arrays.toString(streams) + " must list counts from 1 to 64");
            }
        }

        /** Parses {@code --name value} or {@code --name=value} over the defaults for {@code api}. */
        static Options parse(String[] args, Api api) {
            long size = api == Api.CPU ? 1 << 20 : 64 << 20;
            long chunk = -1;
            int[] streams = {1, 2, 3, 4};
            long repeat = 5;
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                String value;
                int eq = name.indexOf('=');
                if (eq > 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    throw new IllegalArgumentException(name + ": missing value");
                }
                switch (name) {
                    case "--size" -> size = parseCount(name, value);
                    case "--chunk" -> chunk = parseCount(name, value);
                    case "--streams" -> streams = parseList(name, value);
                    case "--repeat" -> repeat = parseCount(name, value);
                    default -> throw new IllegalArgumentException("unknown option " + name);
                }
            }
            if (size > MAX_SIZE || repeat > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("--size or --repeat: too large (at most " + MAX_SIZE + ")");
            }
            return new Options((int) size, (int) Math.min(chunk > 0 ? chunk : Math.max(1, size / 16), size), streams, (int) repeat);
        }

        /** "1000", "256Ki" (256 * 2^10), "4Mi", "1G" (2^30). */
        static long parseCount(String option, String text) {
            Matcher m = COUNT.matcher(text.strip());
            try {
                if (m.matches()) {
                    int shift = m.group(2) == null ? 0 : 10 * ("KMG".indexOf(Character.toUpperCase(m.group(2).charAt(0))) + 1);
                    return Math.multiplyExact(Long.parseLong(m.group(1)), 1L << shift);
                }
            } catch (ArithmeticException | NumberFormatException e) {
                // too large: reported below
            }
            throw new IllegalArgumentException(option + ": '" + text + "' is not a count (examples: 1000, 256Ki, 4Mi, 1Gi)");
        }

        static int[] parseList(String option, String text) {
            try {
                return Arrays.stream(text.split(",")).map(String::strip).mapToInt(Integer::parseInt).toArray();
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + ": '" + text + "' is not a list of counts such as 1,2,3,4");
            }
        }
    }

    /** 67108864 as "64 Mi", 1000 as "1,000". */
    static String count(long n) {
        for (int shift = 30; shift > 0; shift -= 10) {
            if (n % (1L << shift) == 0) {
                return (n >> shift) + " " + "KMG".charAt(shift / 10 - 1) + "i";
            }
        }
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** Bytes in MiB, or in KiB below one MiB. */
    static String bytes(long b) {
        return b >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MiB", b / 1048576.0) : String.format(Locale.ROOT, "%.1f KiB", b / 1024.0);
    }
}
