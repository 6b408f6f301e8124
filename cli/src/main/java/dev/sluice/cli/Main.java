package dev.sluice.cli;

import dev.sluice.Api;
import dev.sluice.HostData;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import dev.sluice.Trace;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.GpuPipeline;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
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
 * java -jar sluice.jar jfc [--out DIR]                Sluice's Flight Recorder settings: DIR/sluice.jfc
 * java -jar sluice.jar help [COMMAND] | --version
 * </pre>
 *
 * {@code bench} measures as the project's benchmarks do ({@link Bench}): untraced, medians of rounds after warm-up
 * rounds, one pinned buffer reused, each figure printed with how it was taken. {@code bench} and {@code trace} draw the
 * run after a warm-up run ({@link SteadyState}); on the CPU simulator both say that their times are simulated.
 *
 * Without {@code --api} the backend is the one {@link DeviceContext#open()} picks. {@code bench} and {@code trace} show
 * a progress line when standard error is a terminal. A misspelt command, option or backend is named, with the nearest
 * known one. Exit status: 0 on success, 1 when {@code check} finds a wrong result or a command fails, 2 for a usage
 * error.
 */
public final class Main {

    /** A command: its name, its options (each taking a value), what it does, and its usage line. */
    private record Command(String name, List<String> options, String summary, String usage) {
    }

    private static final String OPTION_HELP = """
              --api A      the backend: cuda, hip, cpu or another on the class path (default: the best present)
              --device N   the device of that backend (default 0)
              --mib N      MiB per copy and per pipeline run (default 64; 8 on the CPU simulator)
              --chunks N   chunks through the pipeline (default 32)
              --out DIR    where the files go (default: the current directory)
            """;

    private static final List<Command> COMMANDS = List.of(
            new Command("detect", List.of(), "list backends and devices, and why a backend is unavailable", ""),
            new Command("check", List.of("--api", "--device"), "allocate, copy, launch and verify on one device",
                    "[--api A] [--device N]"),
            new Command("bench", List.of("--api", "--device", "--mib", "--chunks", "--out"),
                    "bandwidth, launch cost and overlap, as a table and DIR/bench.svg",
                    "[--api A] [--device N] [--mib N] [--chunks N] [--out DIR]"),
            new Command("trace", List.of("--api", "--device", "--chunks", "--out"),
                    "run a traced demo pipeline, write DIR/trace.json and DIR/trace.svg",
                    "[--api A] [--device N] [--chunks N] [--out DIR]"),
            new Command("jfc", List.of("--out"), "write Sluice's Flight Recorder settings, DIR/sluice.jfc, for jcmd", "[--out DIR]"),
            new Command("help", List.of(), "list the commands, or a command's options", "[COMMAND]"));

    private static final String USAGE = usage();

    /** What trace prints on the CPU simulator: its caveat names the timeline, the one figure trace draws. */
    static final String TRACE_CPU_NOTE = "note: on the CPU simulator the timeline simulates the streams' ordering, not a"
            + " GPU's speed: host threads stand in for the copy engines and the kernels, so the bars' lengths say how the"
            + " simulator runs on this machine's cores, not what a GPU would do";

    private final PrintStream out;
    private final Progress progress;

    private Main(PrintStream out, PrintStream err, boolean terminal) {
        this.out = out;
        this.progress = new Progress(err, terminal);
    }

    /** Runs the command of {@code args} and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.console() != null));
    }

    private static String usage() {
        StringBuilder b = new StringBuilder("usage: sluice <command> [options]   (JVM options first: ./sluice -Dsluice.cpu.devices=2 detect)\n");
        for (Command c : COMMANDS) {
            String head = "  " + c.name() + (c.usage().isEmpty() ? "" : " " + c.usage());
            b.append(head.length() < 29 ? String.format(Locale.ROOT, "%-29s%s\n", head, c.summary())
                    : head + "\n" + " ".repeat(29) + c.summary() + "\n");
        }
        return b.append("options:\n").append(OPTION_HELP)
                .append("sluice help COMMAND, or COMMAND --help, shows one command's options; sluice --version its version\n")
                .toString();
    }

    private static String usage(Command c) {
        StringBuilder b = new StringBuilder("usage: sluice " + c.name() + (c.usage().isEmpty() ? "" : " " + c.usage())
                + "\n  " + c.summary() + "\n");
        if (!c.options().isEmpty()) {
            b.append("options:\n");
            OPTION_HELP.lines().filter(l -> c.options().contains(l.strip().split(" ")[0]))
                    .forEach(l -> b.append(l).append('\n'));
        }
        return b.toString();
    }

    private static @Nullable Command command(String name) {
        return COMMANDS.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
    }

    /** The version of the tool, from the build ({@code version.properties}), or "unknown" when run from elsewhere. */
    static String version() {
        try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * Runs the command of {@code args}, printing to {@code out} and {@code err}; a progress line goes to {@code err} only
     * when {@code terminal}.
     *
     * @return the exit status: 0 success, 1 failure, 2 usage error
     */
    public static int run(String[] args, PrintStream out, PrintStream err, boolean terminal) {
        if (args.length == 0) {
            err.print(USAGE);
            return 2;
        }
        String name = args[0];
        if (name.equals("--version") || name.equals("-V") || name.equals("version")) {
            out.println("sluice " + version());
            return 0;
        }
        if (name.equals("-h") || name.equals("--help")) {
            out.print(USAGE);
            return 0;
        }
        if (name.equals("help")) {
            if (args.length == 1) {
                out.print(USAGE);
                return 0;
            }
            Command c = command(args[1]);
            if (c == null) {
                return usageError(err, "no command '" + args[1] + "'" + DidYouMean.hint(args[1], names()), USAGE);
            }
            out.print(usage(c));
            return 0;
        }
        Command c = command(name);
        if (c == null) {
            String hint = name.startsWith("-") ? "options come after the command" : "no command '" + name + "'"
                    + DidYouMean.hint(name, names());
            return usageError(err, name.startsWith("-") ? "unknown option " + name + " (" + hint + ")" : hint, USAGE);
        }
        if (Arrays.stream(args, 1, args.length).anyMatch(a -> a.equals("-h") || a.equals("--help"))) {
            out.print(usage(c));
            return 0;
        }
        Options o;
        try {
            o = Options.parse(c, args);
        } catch (IllegalArgumentException | InvalidArgumentException e) {
            return usageError(err, c.name() + ": " + e.getMessage(), usage(c));
        }
        Main m = new Main(out, err, terminal);
        try {
            return switch (c.name()) {
                case "detect" -> m.detect();
                case "check" -> m.check(o);
                case "bench" -> new Bench(out, m.progress).run(o);
                case "trace" -> m.trace(o);
                case "jfc" -> m.jfc(o);
                default -> throw new IllegalStateException("command " + c.name() + " has no implementation");
            };
        } catch (RuntimeException e) {
            m.progress.end();
            err.println("sluice " + c.name() + ": " + message(e));
            return 1;
        }
    }

    private static List<String> names() {
        return COMMANDS.stream().map(Command::name).toList();
    }

    private static int usageError(PrintStream err, String message, String usage) {
        err.println("sluice: " + message);
        err.print(usage);
        return 2;
    }

    /**
     * What went wrong, in words: the message of {@code e}, or of the cause a future or an unchecked I/O exception wraps,
     * without the exception's class name (which says nothing to a user of the tool).
     */
    static String message(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException || t instanceof UncheckedIOException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof AccessDeniedException a) {
            return a.getFile() + ": permission denied";
        }
        if (t instanceof NoSuchFileException n) {
            return n.getFile() + ": no such file or directory";
        }
        if (t instanceof FileAlreadyExistsException f) {
            return f.getFile() + ": exists, and is not a directory";
        }
        if (t instanceof FileSystemException f) {
            return f.getFile() + ": " + (f.getReason() == null ? "cannot be written" : f.getReason());
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? "failed without a message (" + t.getClass().getSimpleName() + ")" : m;
    }

    /** The options after the command; {@code mib} 0 for the backend's default. */
    record Options(@Nullable String api, int device, long mib, int chunks, Path out) {

        static Options parse(Command command, String[] args) {
            String api = null;
            int device = 0;
            long mib = 0;
            int chunks = 32;
            Path out = Path.of(".");
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                String v = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) { // --mib=8, as GNU tools accept
                    v = a.substring(eq + 1);
                    a = a.substring(0, eq);
                }
                if (!command.options().contains(a)) {
                    String what = a.startsWith("-") ? "unknown option " + a : "unexpected argument '" + a + "'";
                    throw new IllegalArgumentException(what + DidYouMean.hint(a, command.options())
                            + (command.options().isEmpty() ? "; " + command.name() + " takes no options"
                                    : "; its options: " + String.join(", ", command.options())));
                }
                if (v == null) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("option " + a + " needs a value");
                    }
                    v = args[++i];
                }
                switch (a) {
                    case "--api" -> {
                        String name = v.strip().toLowerCase(Locale.ROOT);
                        List<String> known = DeviceContext.backendNames();
                        if (!known.contains(name)) {
                            throw new IllegalArgumentException("--api: unknown backend '" + v + "'"
                                    + DidYouMean.hint(name, known) + "; known: " + String.join(", ", known));
                        }
                        api = name;
                    }
                    case "--device" -> device = positiveOrZero(a, v, Integer.MAX_VALUE);
                    case "--mib" -> {
                        mib = positiveOrZero(a, v, 1 << 16);
                        if (mib == 0) {
                            throw new IllegalArgumentException("option --mib value 0 is outside 1.." + (1 << 16));
                        }
                    }
                    case "--chunks" -> chunks = positiveOrZero(a, v, 1 << 20);
                    case "--out" -> out = Path.of(v);
                    default -> throw new IllegalStateException("option " + a + " has no parser");
                }
            }
            if (chunks < 1) {
                throw new IllegalArgumentException("--chunks must be at least 1");
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

    // ---------------------------------------------------------------- jfc

    /** Writes the Flight Recorder settings that sluice-api carries, for {@code jcmd PID JFR.start settings=...}. */
    private int jfc(Options o) {
        Path file = o.out().resolve("sluice.jfc");
        try (InputStream in = DeviceContext.class.getResourceAsStream("/dev/sluice/sluice.jfc")) {
            if (in == null) {
                throw new IllegalStateException("sluice-api on this class path has no dev/sluice/sluice.jfc");
            }
            Files.createDirectories(o.out());
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println("wrote " + file.toAbsolutePath().normalize());
        out.println("record with: jcmd <pid> JFR.start name=sluice settings=default settings="
                + file.toAbsolutePath().normalize() + " duration=5m filename=sluice.jfr");
        return 0;
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
            out.println("  completion: " + c.completion());
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

    private <T> T step(String what, Supplier<T> body) {
        try {
            T t = body.get();
            out.println("  ok    " + what);
            return t;
        } catch (RuntimeException e) {
            out.println("  FAIL  " + what + ": " + message(e));
            throw e;
        }
    }

    // ---------------------------------------------------------------- trace

    /**
     * A traced 3-lane pipeline, run twice: a warm-up run (it opens the lanes, allocates their buffers, warms the JIT),
     * then the run drawn. The JSON holds both; the SVG the second, at a scale where each chunk's operations show.
     */
    private int trace(Options o) {
        int chunks = o.chunks();
        long elements = 1 << 16;
        int lanes = 3;
        try (DeviceContext c = o.open(ContextOptions.defaults().withTracing(true))) {
            out.println("trace on " + c.backendName() + " device " + c.id() + " (" + c.name() + "): " + chunks + " chunks of "
                    + elements + " f32 through a " + lanes + "-lane pipeline, after a warm-up run of as many");
            DeviceFunction scale = c.compile(CliKernels.SCALE_ADD);
            SteadyState steady;
            try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(c).lanes(lanes).chunkElements(elements, DType.F32)
                    .stage((lane, in, outBuf) -> {
                        lane.stream().enqueueCopy(in, outBuf);
                        return lane.stream().enqueueLaunch(scale, LaunchConfig.forElements(lane.elements()), outBuf,
                                2f, 1f, lane.elements());
                    })
                    .build(Chunks.floats())) {
                p.onProgress(pp -> progress.show("warm-up (" + (pp.bytesDone() >> 20) + " MiB)", pp.chunksDone(), chunks));
                if (!correct(run(p, chunks, elements), chunks)) {
                    return 1;
                }
                c.synchronize();
                long warmUpEnd = SteadyState.end(c.trace());
                long warmUpBytes = chunks * elements * DType.F32.byteSize(); // progress counts over both runs
                p.onProgress(pp -> progress.show("chunks (" + ((pp.bytesDone() - warmUpBytes) >> 20) + " MiB)",
                        pp.chunksDone() - chunks, chunks));
                boolean correct = correct(run(p, chunks, elements), chunks);
                progress.end();
                if (!correct) {
                    return 1;
                }
                c.synchronize();
                steady = SteadyState.after(c.trace(), warmUpEnd, 2 * lanes); // two chunks a lane: the lanes overlapping
            }
            Trace t = c.trace();
            try {
                Files.createDirectories(o.out());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Path json = o.out().resolve("trace.json");
            Path svg = o.out().resolve("trace.svg");
            t.writeChromeJson(json);
            steady.spans().writeSvg(svg, steady.svgOptions("sluice trace: " + chunks + " chunks of " + elements + " f32, "
                    + lanes + " lanes, " + c.backendName() + " " + c.name(),
                    "the run after a warm-up run, " + steady.shown() + "; a row per lane's stream"));
            out.println(t.spans().size() + " spans on " + t.streams().size() + " streams, " + steady.spans().spans().size()
                    + " of them after the warm-up");
            out.println("trace json (both runs; open in ui.perfetto.dev): " + json);
            out.println("timeline (the run after the warm-up, " + steady.shown() + "): " + svg);
            if (c.api() == Api.CPU) {
                out.println(TRACE_CPU_NOTE);
            }
        }
        return 0;
    }

    private static @Nullable List<float[]> run(GpuPipeline<float[], float[]> p, int chunks, long elements) {
        return p.process(Flux.range(0, chunks).map(i -> {
            float[] a = new float[(int) elements];
            Arrays.fill(a, i);
            return a;
        })).collectList().block();
    }

    private boolean correct(@Nullable List<float[]> results, int chunks) {
        for (int i = 0; i < chunks; i++) {
            if (results == null || results.get(i)[0] != i * 2f + 1f) {
                out.println("wrong result in chunk " + i);
                return false;
            }
        }
        return true;
    }
}
