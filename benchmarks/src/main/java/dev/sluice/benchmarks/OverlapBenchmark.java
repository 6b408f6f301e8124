package dev.sluice.benchmarks;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceAttribute;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.Dim;
import dev.sluice.EventFlag;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import dev.sluice.Trace;
import dev.sluice.TraceSpan;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.GpuPipeline;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import joptsimple.OptionParser;
import joptsimple.OptionSpec;
import reactor.core.publisher.Flux;

/**
 * The overlap benchmark: a large pinned host array goes through upload → a memory-bound kernel of tunable cost
 * → download, in chunks, the chunks dealt round-robin over 1 to 4 streams, through the plain API and through
 * the reactive {@link GpuPipeline}, for several chunk sizes. Prints a table: time, the host↔device bandwidth
 * achieved, and the fraction of the ideal time reached, where the ideal is the larger of the transfer time at
 * the bidirectional bandwidth measured in the same run (two streams copying both ways at once) and the time of
 * the kernels alone. With {@code --svg}, one configuration is run again on a context with tracing on and drawn
 * as an SVG timeline, one lane per stream and kind. Both modes move the same bytes the same way: chunks are
 * pinned slices of the host input array, uploaded in place, and results are downloaded straight into pinned
 * slices of the host output array; both allocate their device and pinned memory once, outside the timed runs
 * (the reactive pipeline keeps its lanes from one {@code process} call to the next). Both queue the same
 * depth on each stream: the plain mode enqueues every chunk at once, and the pipeline's lanes hold
 * {@code ceil(chunks / lanes)} chunks each by default ({@link GpuPipeline.Builder#chunksPerLane}, at most 64;
 * {@code --chunks-per-lane} sets it), shown in the table's "per lane" column.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.OverlapBenchmark \
 *     [--api cuda|hip|cpu] [--total-mib N] [--chunks 4,16,64] [--streams 1,2,3,4] [--passes 4] [--reps 5]
 *     [--modes plain,reactive] [--chunks-per-lane all|N] [--max-park-us N]
 *     [--svg docs/overlap-timeline.svg] [--trace-json FILE] [--trace-config plain:3:16] [--graph-replay true|false]
 *     [--host-scheduler] [--quick]
 * </pre>
 *
 * Defaults: 512 MiB on a GPU, the workload of {@code benchmarks/native}'s {@code overlap} (whose figures are the C
 * yardstick of the plain rows), 64 MiB on the CPU simulator. Every run is
 * checked: a sample of elements is compared with the host's result of the same kernel.
 */
public final class OverlapBenchmark {

    static final class Options {
        String api;
        long totalMiB = -1;
        int[] chunks = {4, 16, 64};
        int[] streams = {1, 2, 3, 4};
        int passes = 4;
        int reps = 5;
        List<String> modes = List.of("plain", "reactive");
        /** Chunks per lane of the reactive pipeline; 0: all of a lane's share, ceil(chunks / lanes), capped at the limit. */
        int chunksPerLane;
        /**
         * The completion thread's longest pause while work is pending, in µs ({@link ContextOptions#maxParkNanos});
         * 0 keeps the default. Under PARK a long operation's completion is seen up to that late, which a lane holding
         * one chunk pays once per chunk.
         */
        long maxParkMicros;
        /** Whether the pipeline's lanes replay their stage as one graph per chunk (GpuPipeline's default: true). */
        boolean graphReplay = true;
        /** Whether the pipeline runs its host side on a scheduler of its own instead of the completion thread. */
        boolean hostScheduler;
        /** Whether the pipeline copies each chunk through its lanes' staging instead of the caller's pinned memory. */
        boolean staged;
        Path svg;
        Path traceJson;
        Path nativeResults;
        String traceMode = "plain";
        int traceStreams = 3;
        int traceChunks = 16;
        boolean quick;

        static Options parse(String[] args) {
            OptionParser parser = CommandLine.parser();
            OptionSpec<String> api = parser.accepts("api").withRequiredArg();
            OptionSpec<Long> totalMiB = parser.accepts("total-mib").withRequiredArg().ofType(Long.class);
            OptionSpec<Integer> chunks = parser.accepts("chunks").withRequiredArg().ofType(Integer.class).withValuesSeparatedBy(',');
            OptionSpec<Integer> streams = parser.accepts("streams").withRequiredArg().ofType(Integer.class).withValuesSeparatedBy(',');
            OptionSpec<Integer> passes = parser.accepts("passes").withRequiredArg().ofType(Integer.class);
            OptionSpec<Integer> reps = parser.accepts("reps").withRequiredArg().ofType(Integer.class);
            OptionSpec<String> modes = parser.accepts("modes").withRequiredArg().withValuesSeparatedBy(',');
            OptionSpec<String> chunksPerLane = parser.accepts("chunks-per-lane").withRequiredArg();
            OptionSpec<Long> maxParkMicros = parser.accepts("max-park-us").withRequiredArg().ofType(Long.class);
            OptionSpec<Boolean> graphReplay = parser.accepts("graph-replay").withRequiredArg().ofType(Boolean.class);
            OptionSpec<Void> hostScheduler = parser.accepts("host-scheduler");
            OptionSpec<Void> staged = parser.accepts("staged");
            OptionSpec<String> svg = parser.accepts("svg").withRequiredArg();
            OptionSpec<String> traceJson = parser.accepts("trace-json").withRequiredArg();
            OptionSpec<String> nativeResults = parser.accepts("native").withRequiredArg();
            OptionSpec<String> traceConfig = parser.accepts("trace-config").withRequiredArg();
            OptionSpec<Void> quick = parser.accepts("quick");
            Options o = new Options();
            CommandLine.parse(parser, args, usage(), set -> {
                o.api = set.valueOf(api);
                if (set.has(totalMiB)) {
                    o.totalMiB = set.valueOf(totalMiB);
                }
                if (set.has(chunks)) {
                    o.chunks = set.valuesOf(chunks).stream().mapToInt(Integer::intValue).toArray();
                }
                if (set.has(streams)) {
                    o.streams = set.valuesOf(streams).stream().mapToInt(Integer::intValue).toArray();
                }
                if (set.has(passes)) {
                    o.passes = set.valueOf(passes);
                }
                o.quick = set.has(quick);
                o.staged = set.has(staged);
                o.hostScheduler = set.has(hostScheduler);
                if (set.has(graphReplay)) {
                    o.graphReplay = set.valueOf(graphReplay);
                }
                // --quick means one timed run, unless --reps says otherwise.
                if (set.has(reps)) {
                    o.reps = set.valueOf(reps);
                } else if (o.quick) {
                    o.reps = 1;
                }
                if (set.has(modes)) {
                    o.modes = List.copyOf(set.valuesOf(modes));
                }
                if (set.has(chunksPerLane)) {
                    String v = set.valueOf(chunksPerLane);
                    try {
                        o.chunksPerLane = v.equals("all") ? 0 : Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--chunks-per-lane takes all or a number, not " + v);
                    }
                }
                if (set.has(maxParkMicros)) {
                    o.maxParkMicros = set.valueOf(maxParkMicros);
                }
                o.svg = set.has(svg) ? Path.of(set.valueOf(svg)) : null;
                o.traceJson = set.has(traceJson) ? Path.of(set.valueOf(traceJson)) : null;
                o.nativeResults = set.has(nativeResults) ? Path.of(set.valueOf(nativeResults)) : null;
                if (set.has(traceConfig)) {
                    String[] p = set.valueOf(traceConfig).split(":");
                    if (p.length != 3) {
                        throw new IllegalArgumentException("--trace-config takes MODE:STREAMS:CHUNKS, e.g. plain:3:16");
                    }
                    o.traceMode = p[0];
                    o.traceStreams = Integer.parseInt(p[1]);
                    o.traceChunks = Integer.parseInt(p[2]);
                }
            });
            for (String m : o.modes) {
                if (!m.equals("plain") && !m.equals("reactive")) {
                    throw new IllegalArgumentException("--modes: unknown mode " + m + " (plain, reactive)");
                }
            }
            if (o.chunksPerLane < 0 || o.chunksPerLane > GpuPipeline.Builder.MAX_CHUNKS_PER_LANE) {
                throw new IllegalArgumentException("--chunks-per-lane must be all or 1 to " + GpuPipeline.Builder.MAX_CHUNKS_PER_LANE);
            }
            if (o.reps < 1 || o.passes < 0) {
                throw new IllegalArgumentException("--reps must be at least 1 and --passes at least 0");
            }
            return o;
        }

        static String usage() {
            return """
                    usage: OverlapBenchmark [--api cuda|hip|cpu] [--total-mib N] [--chunks 4,16,64] [--streams 1,2,3,4]
                                            [--passes 4] [--reps 5] [--modes plain,reactive] [--chunks-per-lane all|N]
                                            [--svg FILE] [--trace-json FILE] [--trace-config plain:3:16] [--native FILE]
                                            [--graph-replay true|false] [--quick]
                      --total-mib     size of the host array (default 512 on a GPU, 64 on the CPU simulator)
                      --chunks        chunk counts to try (chunk size = total / count)
                      --passes        read-modify-write passes of the kernel over each chunk: its cost
                      --reps          timed runs per configuration and mode, after one warm-up; plain and
                                      reactive alternate run by run; the median is shown
                      --chunks-per-lane  chunks each reactive lane holds at once (GpuPipeline chunksPerLane); all
                                      (default): ceil(chunks / lanes), capped at 64, as deep as the plain mode,
                                      which queues every chunk on its streams at once; 1: one chunk per lane
                      --svg           run --trace-config again with tracing on and draw it here
                      --trace-json    also write that run's Chrome trace-event JSON (Perfetto) here
                      --native        native.txt of benchmarks/native from the same run: adds the ratios
                                      of the plain 16-chunk rows to C's overlap_streamsN_ms (same --passes)
                      --graph-replay  whether the pipeline's lanes replay their stage as one graph (default true,
                                      as GpuPipeline's default)
                      --staged        the pipeline copies each chunk into its lanes' pinned staging on the host and
                                      each result out of it (a heap segment, then into the output array), instead
                                      of the device copying the caller's pinned slices in place
                      --quick         one timed run per configuration (CI)""";
        }
    }

    /** One row of the table. */
    record Row(String mode, int streams, int perLane, int chunks, double chunkMiB, double wallMs, double deviceMs, double gbps,
            double ofIdeal) {
    }

    /** Chunks per lane the reactive mode uses for {@code chunks} chunks over {@code lanes} lanes. */
    int perLane(int lanes, int chunks) {
        if (options.chunksPerLane > 0) {
            return options.chunksPerLane;
        }
        return Math.min(GpuPipeline.Builder.MAX_CHUNKS_PER_LANE, Math.max(1, (chunks + lanes - 1) / lanes));
    }

    private final Options options;
    private final DeviceContext ctx;
    private final long total;
    private final long elements;
    private final HostBuffer hostIn;
    private final HostBuffer hostOut;
    private final DeviceBuffer device;
    private final DeviceFunction membound;
    private final LaunchConfig config;
    private final List<DeviceStream> streams = new ArrayList<>();
    private final DeviceEvent start;
    private final List<DeviceEvent> ends = new ArrayList<>();

    OverlapBenchmark(DeviceContext ctx, Options options, long totalBytes) {
        this.options = options;
        this.ctx = ctx;
        this.total = totalBytes;
        this.elements = totalBytes / Float.BYTES;
        this.hostIn = ctx.allocateHost(DType.F32, elements);
        this.hostOut = ctx.allocateHost(DType.F32, elements);
        this.device = ctx.allocate(DType.F32, elements);
        this.membound = ctx.compile(BenchKernels.MEMBOUND);
        int sms = (int) attribute(ctx, DeviceAttribute.MULTIPROCESSOR_COUNT, 8);
        this.config = LaunchConfig.of(Dim.of(sms * 4), Dim.of(256)); // as benchmarks/native
        int most = Math.max(Arrays.stream(options.streams).max().orElse(1), Math.max(2, options.traceStreams));
        for (int i = 0; i < most; i++) {
            streams.add(ctx.createStream());
            ends.add(ctx.createEvent(EventFlag.TIMING));
        }
        this.start = ctx.createEvent(EventFlag.TIMING);
        MemorySegment in = hostIn.segment();
        for (long i = 0; i < elements; i++) {
            in.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (i % 1000));
        }
    }

    public static void main(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("OverlapBenchmark: " + e.getMessage());
            System.exit(2);
            return;
        }
        run(o);
    }

    static void run(Options o) {
        long totalBytes;
        List<Row> rows = new ArrayList<>();
        double bothGbps;
        double ideal16 = Double.NaN;
        Map<Integer, Double> kernelAlone = new LinkedHashMap<>();
        try (DeviceContext ctx = open(o, false)) {
            boolean gpu = ctx.api() != Api.CPU;
            long mib = o.totalMiB > 0 ? o.totalMiB : o.quick ? 8 : gpu ? 512 : 64;
            totalBytes = mib << 20;
            System.out.printf(Locale.ROOT, "# Sluice overlap benchmark%n");
            System.out.printf(Locale.ROOT, "device=%s%napi=%s%ndriver=%s%ndate=%s%njava=%s%n", ctx.name(), ctx.api().id(),
                    ctx.driverVersion(), Instant.now(), Runtime.version());
            System.out.printf(Locale.ROOT, "total_mib=%d%npasses=%d%nreps=%d%n", mib, o.passes, o.reps);
            System.out.printf(Locale.ROOT, "reactive_chunks_per_lane=%s%n",
                    o.chunksPerLane == 0 ? "all (ceil(chunks / lanes), at most " + GpuPipeline.Builder.MAX_CHUNKS_PER_LANE + ")"
                            : String.valueOf(o.chunksPerLane));
            if (!gpu) {
                System.out.println("note=CPU simulator: copies are memcpy and kernels run on the host cores; these are not GPU figures");
            }
            OverlapBenchmark b = new OverlapBenchmark(ctx, o, totalBytes);
            b.warmUp();
            double[] bw = b.bandwidth();
            bothGbps = bw[2];
            System.out.printf(Locale.ROOT, "bw_h2d_GBps=%.2f%nbw_d2h_GBps=%.2f%nbw_both_GBps=%.2f%n", bw[0], bw[1], bw[2]);
            double transferMs = 2.0 * totalBytes / (bothGbps * 1e9) * 1e3;
            System.out.printf(Locale.ROOT, "transfer_floor_ms=%.3f%n", transferMs);
            for (int chunks : o.chunks) {
                double k = b.kernelAlone(chunks);
                kernelAlone.put(chunks, k);
                System.out.printf(Locale.ROOT, "kernel_alone_chunks%d_ms=%.3f%n", chunks, k);
            }
            // Both modes of one configuration are measured in alternation, run by run, so that a drift of the machine
            // (clocks, the other tenants of a virtual machine) weighs on both alike; the table lists every plain row,
            // then every reactive row.
            List<Row> reactiveRows = new ArrayList<>();
            for (int chunks : o.chunks) {
                double ideal = Math.max(transferMs, kernelAlone.get(chunks));
                for (int ns : o.streams) {
                    Row[] pair = b.measure(ns, chunks, ideal);
                    for (Row r : pair) {
                        if (r == null) {
                            continue;
                        }
                        (r.mode().equals("plain") ? rows : reactiveRows).add(r);
                        System.out.printf(Locale.ROOT, "overlap_%s_streams%d_chunks%d_ms=%.3f%n", r.mode(), ns, chunks, r.wallMs());
                        if (r.mode().equals("reactive")) {
                            System.out.printf(Locale.ROOT, "overlap_reactive_streams%d_chunks%d_per_lane=%d%n", ns, chunks, r.perLane());
                        }
                    }
                }
            }
            rows.addAll(reactiveRows);
            printTable(ctx, mib, o, bw, transferMs, kernelAlone, rows);
            if (o.nativeResults != null) {
                printNative(o, mib, bw, kernelAlone, rows);
            }
            ideal16 = Math.max(transferMs, kernelAlone.getOrDefault(o.traceChunks, b.kernelAlone(o.traceChunks)));
        }
        if (o.svg != null || o.traceJson != null) {
            traced(o, totalBytes, ideal16, rows);
        }
    }

    private static DeviceContext open(Options o, boolean tracing) {
        ContextOptions options = ContextOptions.defaults().withTracing(tracing);
        if (o.maxParkMicros > 0) {
            options = options.withSpin(options.spinNanos(), o.maxParkMicros * 1_000);
        }
        return o.api == null ? DeviceContext.open(options) : DeviceContext.open(Api.of(o.api), 0, options);
    }

    // ---------------------------------------------------------------- measurements

    /**
     * Runs the workload a few times untimed, so that what is measured next runs compiled code: the JIT has
     * compiled the enqueue paths (and, on the CPU simulator, the kernel's Java code) by then.
     */
    void warmUp() {
        int chunks = Arrays.stream(options.chunks).max().orElse(16);
        long m = elements / chunks;
        int rounds = options.quick ? 1 : 3;
        for (int r = 0; r < rounds; r++) {
            for (DeviceFuture<Void> f : enqueuePlain(2, chunks, m, false)) {
                f.join();
            }
            if (options.modes.contains("reactive")) {
                try (GpuPipeline<HostBuffer, ?> p = pipeline(2, perLane(2, chunks), m)) {
                    runPipeline(p, chunks, m);
                    p.close();
                    p.released().join();
                }
            }
            kernelAlone(chunks);
        }
    }

    /** Pinned host→device, device→host, and both at once on two streams, in GB/s (1e9 B/s); medians. */
    double[] bandwidth() {
        DeviceStream a = streams.get(0);
        DeviceStream b = streams.get(1);
        double[] out = new double[3];
        try (DeviceBuffer other = ctx.allocate(DType.F32, elements)) {
            for (int what = 0; what < 3; what++) {
                double[] ms = new double[options.reps];
                for (int r = -1; r < options.reps; r++) {
                    a.enqueueRecord(start);
                    b.waitFor(start);
                    if (what == 0 || what == 2) {
                        a.enqueueCopy(hostIn, device);
                    }
                    if (what == 1) {
                        a.enqueueCopy(device, hostOut);
                    }
                    if (what == 2) {
                        b.enqueueCopy(other, hostOut);
                    }
                    a.enqueueRecord(ends.get(0));
                    b.enqueueRecord(ends.get(1));
                    ends.get(0).synchronize();
                    ends.get(1).synchronize();
                    double t = Math.max(millis(start, ends.get(0)), millis(start, ends.get(1)));
                    if (r >= 0) {
                        ms[r] = t;
                    }
                }
                double bytes = what == 2 ? 2.0 * total : total;
                out[what] = bytes / (Samples.median(ms) / 1e3) / 1e9;
            }
        }
        return out;
    }

    /** The kernels of {@code chunks} chunks on one stream, the data already on the device; median ms. */
    double kernelAlone(int chunks) {
        DeviceStream s = streams.get(0);
        s.enqueueCopy(hostIn, device);
        long m = elements / chunks;
        double[] ms = new double[options.reps];
        for (int r = -1; r < options.reps; r++) {
            s.enqueueRecord(start);
            for (int c = 0; c < chunks; c++) {
                s.enqueueLaunch(membound, config, device.slice(c * m, m), m, options.passes);
            }
            s.enqueueRecord(ends.get(0));
            ends.get(0).synchronize();
            if (r >= 0) {
                ms[r] = millis(start, ends.get(0));
            }
        }
        return Samples.median(ms);
    }

    /**
     * One configuration in each mode of {@code --modes}: a warm-up run of each, then {@code --reps} timed runs of each,
     * plain and reactive in alternation. Returns the plain and the reactive row, {@code null} for a mode not asked for.
     */
    Row[] measure(int ns, int chunks, double idealMs) {
        long m = elements / chunks;
        boolean plain = options.modes.contains("plain");
        boolean reactive = options.modes.contains("reactive");
        double[] wall = new double[options.reps];
        double[] dev = new double[options.reps];
        double[] rwall = new double[options.reps];
        int perLane = perLane(ns, chunks);
        try (GpuPipeline<HostBuffer, ?> p = reactive ? pipeline(ns, perLane, m) : null) {
            long allocations = -1;
            if (p != null && options.staged) {
                // Staging is allocated as each of a lane's places first holds a chunk, which one run may not reach:
                // warm up until every place has its two (the timed runs must allocate nothing: checked below).
                for (int w = 0; w < 50 && p.metrics().hostAllocations() < 2L * ns * perLane; w++) {
                    reactiveOnce(p, ns, chunks, m);
                }
            }
            for (int r = -1; r < options.reps; r++) {
                if (plain) {
                    double[] t = plainOnce(ns, chunks, m);
                    if (r >= 0) {
                        wall[r] = t[0];
                        dev[r] = t[1];
                    }
                }
                if (p != null) {
                    double t = reactiveOnce(p, ns, chunks, m);
                    if (r < 0) {
                        allocations = p.metrics().allocations(); // after the warm-up: the lanes' buffers
                    } else {
                        rwall[r] = t;
                        if (p.metrics().allocations() != allocations) {
                            throw new IllegalStateException("reactive, " + ns + " lanes, " + chunks
                                    + " chunks: a timed run allocated device or pinned memory: " + p.metrics());
                        }
                    }
                }
            }
            if (p != null) {
                p.close();
                p.released().join(); // every lane freed before the next configuration is measured
            }
        }
        return new Row[] {
            plain ? row("plain", ns, (chunks + ns - 1) / ns, chunks, m, Samples.median(wall), Samples.median(dev), idealMs) : null,
            reactive ? row("reactive", ns, perLane, chunks, m, Samples.median(rwall), Double.NaN, idealMs) : null};
    }

    /** One run of the plain API (per chunk, upload, kernel, download on stream {@code c % ns}): wall and device ms. */
    private double[] plainOnce(int ns, int chunks, long m) {
        hostOut.segment().fill((byte) 0);
        long t0 = System.nanoTime();
        List<DeviceFuture<Void>> last = enqueuePlain(ns, chunks, m, false);
        for (DeviceFuture<Void> f : last) {
            f.join();
        }
        long t1 = System.nanoTime();
        double d = 0;
        for (int s = 0; s < ns; s++) {
            d = Math.max(d, millis(start, ends.get(s)));
        }
        verify("plain", ns, chunks, chunks * m);
        return new double[] {(t1 - t0) / 1e6, d};
    }

    /** Enqueues one plain run; returns the future of each stream's end record. */
    private List<DeviceFuture<Void>> enqueuePlain(int ns, int chunks, long m, boolean label) {
        streams.get(0).enqueueRecord(start);
        for (int s = 1; s < ns; s++) {
            streams.get(s).waitFor(start);
        }
        for (int c = 0; c < chunks; c++) {
            DeviceStream s = streams.get(c % ns);
            long off = c * m;
            try (var l = label ? s.label("chunk " + c) : null) {
                s.enqueueCopy(hostIn.slice(off, m), device.slice(off, m));
                s.enqueueLaunch(membound, config, device.slice(off, m), m, options.passes);
                s.enqueueCopy(device.slice(off, m), hostOut.slice(off, m));
            }
        }
        List<DeviceFuture<Void>> last = new ArrayList<>();
        for (int s = 0; s < ns; s++) {
            last.add(streams.get(s).enqueueRecord(ends.get(s)));
        }
        return last;
    }

    /**
     * One run of the reactive pipeline over {@code ns} lanes, used as the plain mode uses its streams: built once by
     * {@link #measure}, outside the timed runs, its lanes (streams and device buffers) opened by the warm-up run and
     * kept by the pipeline for every later {@code process} call. Chunks are pinned slices of the host input array,
     * uploaded in place; each result is downloaded by the device straight into its pinned slice of the host output
     * array (a {@link dev.sluice.reactive.ChunkTarget}), as the plain mode does. Only {@code process} is timed, from
     * subscribing until the last result has been emitted; wall ms.
     */
    private double reactiveOnce(GpuPipeline<HostBuffer, ?> p, int ns, int chunks, long m) {
        hostOut.segment().fill((byte) 0);
        long t0 = System.nanoTime();
        runPipeline(p, chunks, m);
        long t1 = System.nanoTime();
        verify("reactive", ns, chunks, chunks * m);
        return (t1 - t0) / 1e6;
    }

    /**
     * A pipeline of {@code ns} lanes of {@code perLane} chunks each, for chunks of {@code m} floats, in place: the
     * membound kernel on each lane's device buffer; each chunk's result downloaded into the slice of
     * {@code hostOut} at the chunk's position.
     */
    GpuPipeline<HostBuffer, ?> pipeline(int ns, int perLane, long m) {
        GpuPipeline.Builder b = GpuPipeline.builder(ctx)
                .lanes(ns)
                .chunksPerLane(perLane)
                .chunkElements(m, DType.F32)
                .inPlace()
                .graphReplay(options.graphReplay)
                .stage((lane, in, out) -> lane.stream().enqueueLaunch(membound, config, in, lane.elements(), options.passes));
        if (options.hostScheduler) {
            // the drain loop (each next chunk's enqueues) on a thread of its own, not on the completion thread
            b.hostScheduler(reactor.core.scheduler.Schedulers.single());
        }
        return options.staged ? b.build(Chunks.hostBuffers(), Chunks.segments())
                : b.buildInto(Chunks.hostBuffers(), (chunk, seq, n) -> hostOut.slice(seq * m, n));
    }

    /** Chunk {@code c}: a slice of the input array; for {@code --staged}, viewed as I32, which the lanes stage. */
    private HostBuffer chunk(int c, long m) {
        HostBuffer slice = hostIn.slice(c * m, m);
        return options.staged ? slice.asType(DType.I32) : slice;
    }

    /** One run of {@code chunks} chunks through {@code p}; checks that the results came in order, into their slices. */
    private void runPipeline(GpuPipeline<HostBuffer, ?> p, int chunks, long m) {
        long base = hostOut.segment().address();
        long[] next = {0};
        Object last = p.process(Flux.range(0, chunks).map(c -> chunk(c, m)))
                .doOnNext(result -> {
                    long want = base + next[0]++ * m * Float.BYTES; // signals are serial: no race on next
                    if (result instanceof MemorySegment copied) { // --staged: a copy of the result, put in its place
                        MemorySegment.copy(copied, 0, hostOut.segment(), want - base, copied.byteSize());
                        return;
                    }
                    HostBuffer r = (HostBuffer) result;
                    if (r.segment().address() != want) {
                        throw new IllegalStateException("reactive: result " + (next[0] - 1) + " landed at "
                                + (r.segment().address() - base) + ", expected " + (want - base));
                    }
                })
                .blockLast();
        if (last == null || next[0] != chunks) {
            throw new IllegalStateException("reactive: " + next[0] + " results of " + chunks);
        }
    }

    private Row row(String mode, int ns, int perLane, int chunks, long m, double wallMs, double deviceMs, double idealMs) {
        double moved = 2.0 * chunks * m * Float.BYTES;
        return new Row(mode, ns, perLane, chunks, m * (double) Float.BYTES / (1 << 20), wallMs, deviceMs, moved / (wallMs / 1e3) / 1e9,
                idealMs / wallMs);
    }

    /** Compares a sample of the output with the host's result of the kernel. */
    private void verify(String mode, int ns, int chunks, long n) {
        MemorySegment in = hostIn.segment();
        MemorySegment out = hostOut.segment();
        for (long i = 0; i < n; i += 1_000_003) {
            check(mode, ns, chunks, i, in, out);
        }
        check(mode, ns, chunks, n - 1, in, out);
    }

    private void check(String mode, int ns, int chunks, long i, MemorySegment in, MemorySegment out) {
        float want = BenchKernels.membound(in.getAtIndex(ValueLayout.JAVA_FLOAT, i), options.passes);
        float got = out.getAtIndex(ValueLayout.JAVA_FLOAT, i);
        if (got != want) {
            throw new IllegalStateException(mode + ", " + ns + " streams, " + chunks + " chunks: element " + i + " is " + got
                    + ", expected " + want);
        }
    }

    // ---------------------------------------------------------------- the traced run

    private static void traced(Options o, long totalBytes, double idealMs, List<Row> rows) {
        try (DeviceContext ctx = open(o, true)) {
            OverlapBenchmark b = new OverlapBenchmark(ctx, o, totalBytes);
            int ns = o.traceStreams;
            int chunks = o.traceChunks;
            long m = b.elements / chunks;
            boolean plain = o.traceMode.equals("plain");
            String label = "traced run";
            double wall = 0;
            long cutoff = Long.MIN_VALUE;
            GpuPipeline<HostBuffer, ?> pipeline = plain ? null : b.pipeline(ns, b.perLane(ns, chunks), m); // lanes opened by the warm-up
            for (int r = 0; r < 2; r++) { // a warm-up, then the run drawn
                if (r == 1) {
                    // everything traced so far has finished: the drawn run's spans all start after it
                    cutoff = ctx.trace().spans().stream().mapToLong(TraceSpan::endNanos).max().orElse(Long.MIN_VALUE);
                }
                b.hostOut.segment().fill((byte) 0);
                long t0 = System.nanoTime();
                if (plain) {
                    for (DeviceFuture<Void> f : b.enqueuePlain(ns, chunks, m, r == 1)) {
                        f.join();
                    }
                } else {
                    b.runPipeline(pipeline, chunks, m);
                }
                wall = (System.nanoTime() - t0) / 1e6;
                b.verify(o.traceMode + " traced", ns, chunks, chunks * m);
                if (r == 0) {
                    ctx.synchronize();
                }
            }
            if (pipeline != null) {
                pipeline.close();
                pipeline.released().join();
            }
            ctx.synchronize();
            Trace trace = ctx.trace();
            long after = cutoff;
            List<TraceSpan> spans = trace.spans().stream()
                    .filter(s -> s.startNanos() >= after && List.of("upload", "kernel", "download").contains(s.category()))
                    .toList();
            double untraced = rows.stream().filter(r -> r.mode().equals(o.traceMode) && r.streams() == ns && r.chunks() == chunks)
                    .mapToDouble(Row::wallMs).findFirst().orElse(Double.NaN);
            System.out.printf(Locale.ROOT, "%ntraced run (%s, %d streams, %d chunks): %.3f ms wall with tracing on%s; %d spans%n",
                    o.traceMode, ns, chunks, wall,
                    Double.isNaN(untraced) ? "" : String.format(Locale.ROOT, " (%.3f ms median with tracing off)", untraced),
                    spans.size());
            System.out.printf(Locale.ROOT, "traced_%s_streams%d_chunks%d_ms=%.3f%n", o.traceMode, ns, chunks, wall);
            if (o.svg != null) {
                long first = spans.stream().mapToLong(TraceSpan::startNanos).min().orElse(0);
                long lastEnd = spans.stream().mapToLong(TraceSpan::endNanos).max().orElse(first);
                double span = (lastEnd - first) / 1e6;
                String title = String.format(Locale.ROOT, "Sluice overlap: %d MiB in %d chunks over %d streams (%s API), %s",
                        totalBytes >> 20, chunks, ns, o.traceMode, ctx.name());
                String subtitle = String.format(Locale.ROOT,
                        "upload -> membound kernel (%d passes) -> download; %.2f ms on the device, ideal %.2f ms (%.0f%%); %s, %s",
                        o.passes, span, idealMs, 100 * idealMs / span, ctx.api() == Api.CPU ? "CPU simulator, not a GPU" : ctx.driverVersion(),
                        LocalDate.now());
                Trace.SvgOptions svg = Trace.SvgOptions.defaults().withTitle(title, subtitle)
                        .withCategories("upload", "kernel", "download");
                if (Double.isFinite(idealMs)) {
                    svg = svg.withMark("ideal", idealMs);
                }
                trace.select(s -> s.startNanos() >= after).writeSvg(o.svg, svg);
                System.out.println("svg=" + o.svg);
            }
            if (o.traceJson != null) {
                trace.writeChromeJson(o.traceJson);
                System.out.println("trace_json=" + o.traceJson);
            }
        }
    }

    // ---------------------------------------------------------------- output

    private static void printTable(DeviceContext ctx, long mib, Options o, double[] bw, double transferMs,
            Map<Integer, Double> kernelAlone, List<Row> rows) {
        System.out.printf(Locale.ROOT, "%n%s (%s), %d MiB of f32, kernel: %d read-modify-write passes per chunk%n", ctx.name(),
                ctx.api().id(), mib, o.passes);
        System.out.printf(Locale.ROOT, "completion thread: %s, spins %d us, longest pause %d us%n", ctx.options().waitStrategy(),
                ctx.options().spinNanos() / 1_000, ctx.options().maxParkNanos() / 1_000);
        System.out.printf(Locale.ROOT, "pinned bandwidth: %.1f GB/s host->device, %.1f GB/s device->host, %.1f GB/s both at once%n",
                bw[0], bw[1], bw[2]);
        System.out.printf(Locale.ROOT, "ideal = max(transfer %.3f ms at %.1f GB/s both ways, kernels alone)%n", transferMs, bw[2]);
        for (var e : kernelAlone.entrySet()) {
            System.out.printf(Locale.ROOT, "  kernels alone, %d chunks: %.3f ms%n", e.getKey(), e.getValue());
        }
        System.out.printf(Locale.ROOT,
                "%n| mode     | streams | chunks | per lane | chunk MiB | time ms (median of %d) | device ms | GB/s (both ways) | of ideal |%n",
                o.reps);
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "| %-8s | %d | %d | %d | %.2f | %.3f | %s | %.1f | %.0f %% |%n", r.mode(), r.streams(), r.chunks(),
                    r.perLane(), r.chunkMiB(), r.wallMs(), Double.isNaN(r.deviceMs()) ? "–" : String.format(Locale.ROOT, "%.3f", r.deviceMs()),
                    r.gbps(), 100 * r.ofIdeal());
        }
        System.out.println();
        System.out.println("time: from the first enqueue until every future has completed on the host (the user's view);");
        System.out.println("device: from an event before the first copy to the last stream's end event (as benchmarks/native times it).");
        System.out.println("per lane: chunks queued on each stream at most; plain: ceil(chunks / streams), all of them enqueued at once;");
        System.out.println("reactive: the pipeline's chunksPerLane (--chunks-per-lane), a lane taking its next chunk as one completes.");
    }

    /**
     * Sluice next to C ({@code benchmarks/native}'s {@code overlap}: 512 MiB, 16 chunks, round-robin over 1..4
     * streams, timed with events from before the first copy to the last stream's end).
     */
    private static void printNative(Options o, long mib, double[] bw, Map<Integer, Double> kernelAlone, List<Row> rows) {
        Map<String, Double> c = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(o.nativeResults)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    try {
                        c.put(line.substring(0, eq).trim(), Double.parseDouble(line.substring(eq + 1).trim()));
                    } catch (NumberFormatException e) {
                        // device=..., date=...: not a figure
                    }
                }
            }
        } catch (IOException e) {
            System.out.println("native: cannot read " + o.nativeResults + ": " + e);
            return;
        }
        System.out.printf(Locale.ROOT, "%nSluice / C (%s, same run; C: benchmarks/native overlap, 512 MiB, 16 chunks)%n", o.nativeResults);
        if (mib != 512) {
            System.out.println("  (this run moved " + mib + " MiB, C moved 512: ratios of times are not comparable)");
        }
        System.out.println("| what | C | Sluice | Sluice / C |");
        System.out.println("|---|---:|---:|---:|");
        Double cBoth = c.get("bw_both_512MiB_GBps");
        if (cBoth != null) {
            System.out.printf(Locale.ROOT, "| pinned both ways at once, GB/s | %.2f | %.2f | %.3f |%n", cBoth, bw[2], bw[2] / cBoth);
        }
        Double cKernel = c.get("overlap_kernel_alone_ms");
        if (cKernel != null && kernelAlone.containsKey(16)) {
            System.out.printf(Locale.ROOT, "| kernels alone, 16 chunks, ms | %.3f | %.3f | %.3f |%n", cKernel, kernelAlone.get(16),
                    kernelAlone.get(16) / cKernel);
        }
        for (Row r : rows) {
            Double cms = c.get("overlap_streams" + r.streams() + "_ms");
            if (r.mode().equals("plain") && r.chunks() == 16 && cms != null) {
                System.out.printf(Locale.ROOT, "| %d stream%s, device ms (events, as C) | %.3f | %.3f | %.3f |%n", r.streams(),
                        r.streams() == 1 ? "" : "s", cms, r.deviceMs(), r.deviceMs() / cms);
                System.out.printf(Locale.ROOT, "| %d stream%s, time ms (until the futures completed) | %.3f | %.3f | %.3f |%n",
                        r.streams(), r.streams() == 1 ? "" : "s", cms, r.wallMs(), r.wallMs() / cms);
            }
            if (r.mode().equals("reactive") && r.chunks() == 16 && cms != null) {
                System.out.printf(Locale.ROOT, "| %d lane%s of %d chunks, reactive pipeline, time ms | %.3f | %.3f | %.3f |%n",
                        r.streams(), r.streams() == 1 ? "" : "s", r.perLane(), cms, r.wallMs(), r.wallMs() / cms);
            }
        }
        for (Row r : rows) {
            Double cms = c.get("overlap_streams" + r.streams() + "_ms");
            if (r.mode().equals("plain") && r.chunks() == 16 && cms != null) {
                System.out.printf(Locale.ROOT, "overlap_plain_streams%d_chunks16_ratio_to_c=%.4f%n", r.streams(), r.deviceMs() / cms);
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private static double millis(DeviceEvent a, DeviceEvent b) {
        return a.elapsed(b).toNanos() / 1e6;
    }

    private static long attribute(DeviceContext ctx, DeviceAttribute a, long fallback) {
        try {
            return ctx.attribute(a);
        } catch (UnsupportedOnBackendException e) {
            return fallback;
        }
    }
}
