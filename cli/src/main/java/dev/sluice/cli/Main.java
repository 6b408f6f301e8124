package dev.sluice.cli;

import dev.sluice.HostData;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import dev.sluice.Trace;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.GpuPipeline;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

/**
 * The {@code sluice} command line tool:
 *
 * <pre>
 * java -jar sluice.jar detect                         backends, devices, and why a backend is unavailable
 * java -jar sluice.jar check [--api A] [--device N]   allocate, copy, launch, verify on one device
 * java -jar sluice.jar bench [--api A] [--mib N] [--out DIR]
 *                                                     bandwidth, launch cost, overlap; a table and DIR/bench.svg
 * java -jar sluice.jar trace [--api A] [--chunks N] [--out DIR]
 *                                                     a traced demo pipeline: DIR/trace.json and DIR/trace.svg
 * </pre>
 *
 * Without {@code --api} the backend is the one {@link DeviceContext#open()} picks. {@code bench} and {@code trace} show
 * a progress line when standard error is a terminal. Exit status: 0 on success, 1 when {@code check} finds a wrong
 * result or a command fails, 2 for a usage error.
 */
public final class Main {

    private static final String USAGE = """
            usage: sluice <command> [options]
              detect                     list backends and devices, and why a backend is unavailable
              check  [--api A] [--device N]
                                         allocate, copy, launch and verify on one device
              bench  [--api A] [--device N] [--mib N] [--out DIR]
                                         bandwidth, launch cost and overlap, as a table and DIR/bench.svg
              trace  [--api A] [--device N] [--chunks N] [--out DIR]
                                         run a traced demo pipeline, write DIR/trace.json and DIR/trace.svg
            options: --api cuda|hip|cpu (default: the best present), --device N (default 0), --mib N (default 64),
                     --chunks N (default 32), --out DIR (default .)
            """;

    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;

    private Main(PrintStream out, PrintStream err, boolean terminal) {
        this.out = out;
        this.err = err;
        this.terminal = terminal;
    }

    /** Runs the command of {@code args} and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.console() != null));
    }

    /**
     * Runs the command of {@code args}, printing to {@code out} and {@code err}; a progress line goes to {@code err} only
     * when {@code terminal}.
     *
     * @return the exit status: 0 success, 1 failure, 2 usage error
     */
    public static int run(String[] args, PrintStream out, PrintStream err, boolean terminal) {
        Main m = new Main(out, err, terminal);
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
            out.print(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException | InvalidArgumentException e) {
            err.println("sluice: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        try {
            return switch (args[0]) {
                case "detect" -> m.detect();
                case "check" -> m.check(o);
                case "bench" -> m.bench(o);
                case "trace" -> m.trace(o);
                default -> {
                    err.println("sluice: unknown command '" + args[0] + "'");
                    err.print(USAGE);
                    yield 2;
                }
            };
        } catch (RuntimeException e) {
            err.println("sluice " + args[0] + ": " + e);
            return 1;
        }
    }

    /** The options after the command. */
    record Options(@Nullable String api, int device, long mib, int chunks, Path out) {

        static Options parse(String[] args) {
            String api = null;
            int device = 0;
            long mib = 64;
            int chunks = 32;
            Path out = Path.of(".");
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--api" -> {
                        String name = v.strip().toLowerCase(java.util.Locale.ROOT);
                        if (!DeviceContext.backendNames().contains(name)) {
                            throw new IllegalArgumentException("--api: unknown backend '" + v + "'; known: "
                                    + DeviceContext.backendNames());
                        }
                        api = name;
                    }
                    case "--device" -> device = positiveOrZero(a, v, Integer.MAX_VALUE);
                    case "--mib" -> mib = positiveOrZero(a, v, 1 << 16);
                    case "--chunks" -> chunks = positiveOrZero(a, v, 1 << 20);
                    case "--out" -> out = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (mib < 1 || chunks < 1) {
                throw new IllegalArgumentException("--mib and --chunks must be at least 1");
            }
            return new Options(api, device, mib, chunks, out);
        }

        private static int positiveOrZero(String option, String value, int max) {
            try {
                int n = Integer.parseInt(value);
                if (n < 0 || n > max) {
                    throw new IllegalArgumentException("option " + option + " value " + n + " is outside 0.." + max);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("option " + option + " value '" + value + "' is not a number");
            }
        }

        DeviceContext open(ContextOptions options) {
            return api == null ? DeviceContext.open(options) : DeviceContext.open(api, device, options);
        }
    }

    // ---------------------------------------------------------------- detect

    private int detect() {
        out.print(DeviceContext.detect());
        try (DeviceContext c = DeviceContext.open()) {
            out.println("default: " + c.backendName() + " device " + c.id() + " (" + c.name() + ")");
        }
        return 0;
    }

    // ---------------------------------------------------------------- check

    private int check(Options o) {
        int failures = 0;
        try (DeviceContext c = o.open(ContextOptions.defaults())) {
            out.println("check on " + c.backendName() + " device " + c.id() + " (" + c.name() + ")");
            int n = 1 << 16;
            DeviceStream s = c.createStream();
            float[] input = new float[n];
            for (int i = 0; i < n; i++) {
                input[i] = i;
            }
            DeviceBuffer a = step("allocate " + n + " f32", () -> c.allocate(DType.F32, n));
            DeviceBuffer b = step("allocate in stream order", () -> s.enqueueAllocate(DType.F32, n));
            step("upload", () -> s.enqueueCopy(HostData.of(input), a).join());
            DeviceFunction f = step("compile " + CliKernels.SCALE_ADD.name(), () -> c.compile(CliKernels.SCALE_ADD));
            step("launch", () -> s.enqueueLaunch(f, LaunchConfig.forElements(n), a, 2f, 1f, (long) n).join());
            step("device-to-device copy", () -> s.enqueueCopy(a, b).join());
            float[] result = new float[n];
            step("download", () -> s.enqueueCopy(b, HostData.of(result)).join());
            int wrong = 0;
            for (int i = 0; i < n; i++) {
                if (result[i] != input[i] * 2f + 1f) {
                    if (wrong++ == 0) {
                        out.println("  wrong: element " + i + " is " + result[i] + ", expected " + (input[i] * 2f + 1f));
                    }
                }
            }
            out.println((wrong == 0 ? "  ok    " : "  FAIL  ") + "verify " + n + " elements" + (wrong == 0 ? "" : ": " + wrong + " wrong"));
            failures += wrong == 0 ? 0 : 1;
            step("memset and verify", () -> {
                s.enqueueMemset(b, 0).join();
                float[] zeros = new float[n];
                s.enqueueCopy(b, HostData.of(zeros)).join();
                for (float z : zeros) {
                    if (z != 0f) {
                        throw new IllegalStateException("memset left " + z);
                    }
                }
                return null;
            });
            step("free", () -> s.enqueueFree(b).join());
            c.synchronize();
        }
        out.println(failures == 0 ? "check passed" : "check FAILED");
        return failures == 0 ? 0 : 1;
    }

    private <T> T step(String what, java.util.function.Supplier<T> body) {
        try {
            T t = body.get();
            out.println("  ok    " + what);
            return t;
        } catch (RuntimeException e) {
            out.println("  FAIL  " + what + ": " + e);
            throw e;
        }
    }

    // ---------------------------------------------------------------- bench

    private int bench(Options o) {
        long bytes = o.mib() << 20;
        Map<String, String> rows = new LinkedHashMap<>();
        try (DeviceContext c = o.open(ContextOptions.defaults().withTraceCapacity(1 << 16))) {
            out.println("bench on " + c.backendName() + " device " + c.id() + " (" + c.name() + "), " + o.mib() + " MiB");
            DeviceStream s = c.createStream();
            HostBuffer host = c.allocateHost(DType.F32, bytes / 4);
            DeviceBuffer dev = c.allocate(DType.F32, bytes / 4);
            int reps = 5;
            progress("bandwidth", 0, 3);
            double up = gbps(bytes, reps, () -> s.enqueueCopy(host, dev));
            progress("bandwidth", 1, 3);
            double down = gbps(bytes, reps, () -> s.enqueueCopy(dev, host));
            progress("bandwidth", 2, 3);
            rows.put("upload (pinned)", String.format(Locale.ROOT, "%.2f GB/s", up));
            rows.put("download (pinned)", String.format(Locale.ROOT, "%.2f GB/s", down));

            DeviceFunction empty = c.compile(CliKernels.EMPTY);
            // Rounds of launches, the median round reported: the first rounds run while the JIT compiles the enqueue
            // path, so a single short round measures the interpreter, not Sluice.
            int launches = 5000;
            int rounds = 9;
            double[] enqueueUs = new double[rounds];
            double[] completionUs = new double[rounds];
            s.enqueueLaunch(empty, LaunchConfig.of(1, 1)).join();
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                DeviceFuture<Void> last = null;
                for (int i = 0; i < launches; i++) {
                    last = s.enqueueLaunch(empty, LaunchConfig.of(1, 1));
                }
                long enqueued = System.nanoTime();
                last.join();
                long done = System.nanoTime();
                enqueueUs[r] = (enqueued - t0) / 1e3 / launches;
                completionUs[r] = (done - t0) / 1e3 / launches;
            }
            java.util.Arrays.sort(enqueueUs);
            java.util.Arrays.sort(completionUs);
            progress("launch", 3, 3);
            rows.put("launch, enqueue", String.format(Locale.ROOT, "%.2f us (median of %d rounds of %d)", enqueueUs[rounds / 2],
                    rounds, launches));
            rows.put("launch, to completion", String.format(Locale.ROOT, "%.2f us", completionUs[rounds / 2]));

            DeviceFunction scale = c.compile(CliKernels.SCALE_ADD);
            int chunks = Math.max(4, o.chunks());
            double serial = overlap(c, scale, host, dev, chunks, 1, "overlap, 1 stream");
            double four = overlap(c, scale, host, dev, chunks, 4, "overlap, 4 streams");
            rows.put("pipeline, 1 stream", String.format(Locale.ROOT, "%.2f ms", serial));
            rows.put("pipeline, 4 streams", String.format(Locale.ROOT, "%.2f ms (%.2fx)", four, serial / four));
            c.synchronize();
            endProgress();
            Trace t = c.trace();
            long start = t.spans().stream().filter(sp -> sp.label() != null && sp.label().startsWith("overlap, 4"))
                    .mapToLong(sp -> sp.startNanos()).min().orElse(0);
            Path svg = o.out().resolve("bench.svg");
            t.select(sp -> sp.label() != null && sp.label().startsWith("overlap, 4") && sp.startNanos() >= start)
                    .writeSvg(svg, Trace.SvgOptions.defaults().withTitle("sluice bench: 4 streams, " + chunks + " chunks of "
                            + (bytes / chunks >> 10) + " KiB, " + c.backendName() + " " + c.name(), ""));
            int width = rows.keySet().stream().mapToInt(String::length).max().orElse(10);
            for (Map.Entry<String, String> r : rows.entrySet()) {
                out.printf(Locale.ROOT, "  %-" + width + "s  %s%n", r.getKey(), r.getValue());
            }
            out.println("timeline: " + svg);
        }
        return 0;
    }

    private static double gbps(long bytes, int reps, java.util.function.Supplier<DeviceFuture<Void>> copy) {
        copy.get().join();
        long t0 = System.nanoTime();
        DeviceFuture<Void> last = null;
        for (int i = 0; i < reps; i++) {
            last = copy.get();
        }
        last.join();
        return bytes * (double) reps / (System.nanoTime() - t0);
    }

    /** Uploads, scales and downloads {@code chunks} chunks over {@code streams} streams; returns the wall milliseconds. */
    private double overlap(DeviceContext c, DeviceFunction scale, HostBuffer host, DeviceBuffer dev, int chunks, int streams,
            String label) {
        List<DeviceStream> ss = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            ss.add(c.createStream());
        }
        long elements = dev.count() / chunks;
        long t0 = System.nanoTime();
        List<DeviceFuture<Void>> last = new ArrayList<>();
        for (int k = 0; k < chunks; k++) {
            DeviceStream s = ss.get(k % streams);
            try (var l = s.label(label + ", chunk " + k)) {
                s.enqueueCopy(host.slice(k * elements, elements), dev.slice(k * elements, elements));
                s.enqueueLaunch(scale, LaunchConfig.forElements(elements), dev.slice(k * elements, elements), 1f, 0f, elements);
                last.add(s.enqueueCopy(dev.slice(k * elements, elements), host.slice(k * elements, elements)));
            }
        }
        for (int k = 0; k < last.size(); k++) {
            last.get(k).join();
            progress(label, k + 1, chunks);
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        ss.forEach(DeviceStream::close);
        return ms;
    }

    // ---------------------------------------------------------------- trace

    private int trace(Options o) {
        int chunks = o.chunks();
        long elements = 1 << 16;
        try (DeviceContext c = o.open(ContextOptions.defaults().withTracing(true))) {
            out.println("trace on " + c.backendName() + " device " + c.id() + " (" + c.name() + "): " + chunks + " chunks of "
                    + elements + " f32 through a 3-lane pipeline");
            DeviceFunction scale = c.compile(CliKernels.SCALE_ADD);
            try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(c).lanes(3).chunkElements(elements, DType.F32)
                    .stage((lane, in, outBuf) -> {
                        lane.stream().enqueueCopy(in, outBuf);
                        return lane.stream().enqueueLaunch(scale, LaunchConfig.forElements(lane.elements()), outBuf,
                                2f, 1f, lane.elements());
                    })
                    .build(Chunks.floats())) {
                p.onProgress(pp -> progress("chunks (" + (pp.bytesDone() >> 20) + " MiB)", pp.chunksDone(), chunks));
                List<float[]> results = p.process(Flux.range(0, chunks).map(i -> {
                    float[] a = new float[(int) elements];
                    java.util.Arrays.fill(a, i);
                    return a;
                })).collectList().block();
                endProgress();
                for (int i = 0; i < chunks; i++) {
                    if (results == null || results.get(i)[0] != i * 2f + 1f) {
                        out.println("wrong result in chunk " + i);
                        return 1;
                    }
                }
            }
            c.synchronize();
            Trace t = c.trace();
            try {
                Files.createDirectories(o.out());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            Path json = o.out().resolve("trace.json");
            Path svg = o.out().resolve("trace.svg");
            t.writeChromeJson(json);
            t.writeSvg(svg);
            out.println(t.spans().size() + " spans on " + t.streams().size() + " streams");
            out.println("trace json (open in ui.perfetto.dev): " + json);
            out.println("timeline: " + svg);
        }
        return 0;
    }

    // ---------------------------------------------------------------- progress

    private void progress(String what, long done, long total) {
        if (terminal) {
            int width = 30;
            int filled = (int) (width * done / Math.max(1, total));
            err.print("\r" + what + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done + "/" + total + "   ");
            err.flush();
        }
    }

    private void endProgress() {
        if (terminal) {
            err.print("\r" + " ".repeat(70) + "\r");
            err.flush();
        }
    }
}
