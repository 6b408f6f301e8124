package dev.sluice.benchmarks.cuda;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import dev.sluice.benchmarks.Samples;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;

/**
 * The per-call figures with C and Sluice alternating in one process: the C side is
 * {@code benchmarks/native/sluice_paired.c}, built as a shared library and called through {@code java.lang.foreign}, on the
 * same thread, the same primary context and the same PTX as Sluice's side.
 *
 * <p>Why: the H100 host's figures move by up to 30 % from one process to the next
 * (docs/decisions/0008-per-call-ratios-in-one-process.md), so the
 * ratio of two processes' figures cannot decide a 1.3× target. Here every block of C calls is followed (or preceded, in
 * turn) by the same block through Sluice, and the ratio is taken block by block:
 * <ul>
 * <li>{@code launch}: blocks of 2,000 launches of the empty 5-argument kernel; host time per launch, Sluice's with its
 * future. Ratio: median over the blocks of Sluice's time / C's time.
 * <li>{@code tiny}: blocks of {@code --tiny-kernels} (100,000) write-one kernels, C without events until the stream is
 * drained, Sluice with a future each, none observed until the last is done. Ratio as for launch.
 * <li>{@code tiny_then}: the same with a dependent stage ({@code thenRun}) added to every future as it is returned.
 * <li>{@code latency}: idle stream, one write-one kernel, C spinning on {@code cuEventQuery}, Sluice spinning on its
 * future's {@code isDone()}; samples alternate one by one. Ratio: Sluice's median / C's median. {@code latency_join}:
 * the same with Sluice waiting in {@code join()}, which completes the future on the waiting thread.
 * <li>{@code chain8_*}: "a chain of 8 tiny kernels per chunk", blocks of 10,000 chunks of 8 write-one launches, until
 * the stream has finished them; reported per chunk in µs. Sluice's side is repeated work (8 launches recorded, one
 * graph launch updated with the chunk's arguments). {@code chain8_stream}: against C's 8 stream launches per chunk;
 * {@code chain8_graph}: against C's one {@code cuGraphLaunch} of an instantiated 8-kernel graph per chunk (no update);
 * {@code chain8_update}: against C doing the same work as Sluice, each of the 8 kernel nodes updated with the chunk's
 * argument ({@code cuGraphExecKernelNodeSetParams}) before the launch;
 * {@code chain8_plain}: Sluice's 8 plain enqueues per chunk against C's 8 stream launches.
 * <li>{@code c_completion_eventpoll}, {@code c_completion_counterpoll}: what learning completion costs C itself. Both
 * sides are C: blocks of 2,000 launches of the empty 5-argument kernel with a marker every 32 launches and no other
 * thread (the "c" side), against the same while a second thread polls the latest marker (the "sluice" side): through
 * {@code cuEventQuery}, or by reading a host-mapped counter that a marker stream writes after each marker
 * ({@code cuStreamWaitEvent} + {@code cuStreamWriteValue32}, as Sluice's CUDA backend does).
 * </ul>
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... dev.sluice.benchmarks.cuda.PairedBench --lib libsluice_paired.so
 *     [--blocks 40] [--samples 10000] [--tiny-kernels 100000]</pre>
 *
 * Output: {@code key=value} lines ({@code paired_*}), the ratios first.
 */
public final class PairedBench {

    private final MethodHandle open;
    private final MethodHandle launch5;
    private final MethodHandle tiny;
    private final MethodHandle roundtrip;
    private final MethodHandle sync;
    private final MethodHandle chain8Stream;
    private final MethodHandle chain8Graph;
    private final MethodHandle chain8GraphUpdate;
    private final MethodHandle launch5Completion;
    private final MethodHandle close;

    private PairedBench(Path lib) {
        SymbolLookup c = SymbolLookup.libraryLookup(lib, Arena.global());
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor ofInt = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT);
        FunctionDescriptor ofNone = FunctionDescriptor.of(ValueLayout.JAVA_LONG);
        open = linker.downcallHandle(c.find("sp_open").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        launch5 = linker.downcallHandle(c.find("sp_launch5").orElseThrow(), ofInt);
        tiny = linker.downcallHandle(c.find("sp_tiny").orElseThrow(), ofInt);
        roundtrip = linker.downcallHandle(c.find("sp_roundtrip").orElseThrow(), ofInt);
        sync = linker.downcallHandle(c.find("sp_sync").orElseThrow(), ofNone);
        chain8Stream = linker.downcallHandle(c.find("sp_chain8_stream").orElseThrow(), ofInt);
        chain8Graph = linker.downcallHandle(c.find("sp_chain8_graph").orElseThrow(), ofInt);
        chain8GraphUpdate = linker.downcallHandle(c.find("sp_chain8_graph_update").orElseThrow(), ofInt);
        launch5Completion = linker.downcallHandle(c.find("sp_launch5_completion").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        close = linker.downcallHandle(c.find("sp_close").orElseThrow(), ofNone);
    }

    public static void main(String[] args) throws Throwable {
        // No abbreviations: a mistyped option is refused rather than taken for another.
        OptionParser parser = new OptionParser(false);
        OptionSpec<Void> spinnerOption = parser.accepts("spinner", "also C's launches with and without a spinning thread");
        OptionSpec<String> libOption = parser.accepts("lib", "the path of libsluice_paired.so").withRequiredArg().required();
        OptionSpec<Integer> blocksOption = parser.accepts("blocks", "launch blocks of 2,000 per side")
                .withRequiredArg().ofType(Integer.class).defaultsTo(40);
        OptionSpec<Integer> samplesOption = parser.accepts("samples", "latency samples per side")
                .withRequiredArg().ofType(Integer.class).defaultsTo(10_000);
        OptionSpec<Integer> tinyOption = parser.accepts("tiny-kernels", "kernels per tiny block")
                .withRequiredArg().ofType(Integer.class).defaultsTo(100_000);
        OptionSpec<String> onlyOption = parser.accepts("only", "run only these rows (comma-separated: launch, completion,"
                + " tiny, latency, chain8), e.g. for a profile or a downcall tally of one row").withRequiredArg();
        OptionSpec<Void> unorderedOption = parser.accepts("no-auto-ordering",
                "Sluice's side with automatic ordering across streams off (ContextOptions.withAutoOrdering(false))");
        Path lib;
        int blocks;
        int samples;
        int tinyKernels;
        boolean spinner;
        boolean autoOrdering;
        Set<String> only;
        try {
            OptionSet set = parser.parse(args);
            if (!set.nonOptionArguments().isEmpty()) {
                throw new IllegalArgumentException("unknown argument " + set.nonOptionArguments().getFirst());
            }
            lib = Path.of(set.valueOf(libOption));
            blocks = set.valueOf(blocksOption);
            samples = set.valueOf(samplesOption);
            tinyKernels = set.valueOf(tinyOption);
            spinner = set.has(spinnerOption);
            autoOrdering = !set.has(unorderedOption);
            only = set.has(onlyOption) ? Set.of(set.valueOf(onlyOption).split(",")) : Set.copyOf(ROWS);
            for (String row : only) {
                if (!ROWS.contains(row)) {
                    throw new IllegalArgumentException("--only: unknown row '" + row + "' (rows: " + ROWS + ")");
                }
            }
        } catch (OptionException | IllegalArgumentException e) {
            System.err.println("PairedBench: " + e.getMessage());
            parser.printHelpOn(System.err);
            System.exit(2);
            return;
        }
        PairedBench b = new PairedBench(lib.toAbsolutePath());
        try (DeviceContext ctx = DeviceContext.open(Api.CUDA, 0, ContextOptions.defaults().withAutoOrdering(autoOrdering))) {
            System.out.println("device=" + ctx.name() + (autoOrdering ? "" : ", automatic ordering off"));
            DeviceFunction empty5 = ctx.compile(CudaBench.EMPTY5);
            DeviceFunction writeOne = ctx.compile(CudaBench.WRITE_ONE);
            try (Arena arena = Arena.ofConfined()) {
                String ptx = empty5.assembly().orElseThrow(() -> new IllegalStateException("no PTX for empty5"));
                check("sp_open", (long) b.open.invokeExact(0, arena.allocateFrom(ptx)));
            }
            try {
                if (spinner) {
                    b.spinnerEffect(blocks);
                }
                if (only.contains("launch")) {
                    b.launch(ctx, empty5, blocks);
                }
                if (only.contains("completion")) {
                    b.completionCost(Math.max(6, blocks / 2));
                }
                if (only.contains("tiny")) {
                    int tinyBlocks = Math.max(6, Math.min(blocks / 2, 2_000_000 / tinyKernels));
                    b.tiny(ctx, writeOne, tinyBlocks, tinyKernels, false);
                    b.tiny(ctx, writeOne, tinyBlocks, tinyKernels, true);
                }
                if (only.contains("latency")) {
                    b.latency(ctx, writeOne, samples);
                }
                if (only.contains("chain8")) {
                    b.chain8(ctx, writeOne, Math.max(6, blocks / 4), 10_000);
                }
            } finally {
                check("sp_close", (long) b.close.invokeExact());
            }
        }
    }

    /** The rows {@code --only} may name, in the order they run. */
    private static final List<String> ROWS = List.of("launch", "completion", "tiny", "latency", "chain8");

    /** One side of a pair: runs block (or sample) {@code i} and returns its time in nanoseconds. */
    @FunctionalInterface
    private interface Side {
        long run(int i) throws Throwable;
    }

    /**
     * Runs {@code warmUp} unmeasured pairs, then {@code pairs} measured ones, C first in even pairs and Sluice first in
     * odd ones, so that neither side always runs right after the other. Returns {C's times, Sluice's times} in ns.
     */
    private static double[][] alternate(int warmUp, int pairs, Side c, Side sluice) throws Throwable {
        double[][] t = new double[2][pairs];
        for (int i = -warmUp; i < pairs; i++) {
            long cNs;
            long sNs;
            if ((i & 1) == 0) {
                cNs = c.run(i);
                sNs = sluice.run(i);
            } else {
                sNs = sluice.run(i);
                cNs = c.run(i);
            }
            if (i >= 0) {
                t[0][i] = cNs;
                t[1][i] = sNs;
            }
        }
        return t;
    }

    /** Reports block-paired times: the median of the per-block ratios, its quartiles, and each side's median. */
    private static void reportBlocks(String name, double[][] t, double perUnit, String unit) {
        double[] ratio = new double[t[0].length];
        for (int i = 0; i < ratio.length; i++) {
            ratio[i] = t[1][i] / t[0][i];
        }
        result("paired_" + name + "_ratio", Samples.median(ratio));
        result("paired_" + name + "_c_" + unit, Samples.median(t[0]) / perUnit);
        result("paired_" + name + "_sluice_" + unit, Samples.median(t[1]) / perUnit);
        result("paired_" + name + "_ratio_q1", Samples.percentile(ratio, 25));
        result("paired_" + name + "_ratio_q3", Samples.percentile(ratio, 75));
    }

    private void launch(DeviceContext ctx, DeviceFunction f, int blocks) throws Throwable {
        int n = 2_000;
        DeviceBuffer a = ctx.allocate(DType.F32, 1024);
        DeviceBuffer b = ctx.allocate(DType.F32, 1024);
        Object[] args = {a, 1024L, 2.5f, 7, b};
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        double[][] t = alternate(5, blocks, i -> check("sp_launch5", (long) launch5.invokeExact(n)), i -> {
            s.synchronize();
            long t0 = System.nanoTime();
            DeviceFuture<Void> last = null;
            for (int k = 0; k < n; k++) {
                last = s.enqueueLaunch(f, one, args);
            }
            long t1 = System.nanoTime();
            last.join();
            return t1 - t0;
        }); // 5 pairs of warm-up for the JIT
        s.synchronize();
        s.close();
        a.close();
        b.close();
        reportBlocks("launch5", t, 1e3 * n, "us");
    }

    /**
     * A diagnostic ({@code --spinner}): C's launches with and without a second thread spinning on the CPU (no driver
     * call, no shared memory), block by block; does a spinning completion thread slow the enqueuing thread by itself?
     */
    private void spinnerEffect(int blocks) throws Throwable {
        int n = 2_000;
        AtomicBoolean spin = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            while (!stop.get()) {
                if (spin.get()) {
                    Thread.onSpinWait();
                    System.nanoTime();
                } else {
                    LockSupport.parkNanos(100_000);
                }
            }
        });
        double[][] time = alternate(5, blocks, i -> {
            spin.set(false);
            Thread.sleep(1);
            return check("sp_launch5", (long) launch5.invokeExact(n));
        }, i -> {
            spin.set(true);
            Thread.sleep(1);
            return check("sp_launch5", (long) launch5.invokeExact(n));
        });
        stop.set(true);
        t.join();
        reportBlocks("c_launch5_spinner", time, 1e3 * n, "us"); // "c" side: no spinner; "sluice" side: spinner on
    }

    /**
     * What learning completion costs C: its launches with a marker every 32 and no other thread, against the same
     * while a second thread polls the latest marker through {@code cuEventQuery} (mode 1), or reads the counter a
     * marker stream writes (mode 2). Both sides are C; the "sluice" column is C with the poller.
     */
    private void completionCost(int blocks) throws Throwable {
        int n = 2_000;
        for (int mode = 1; mode <= 2; mode++) {
            int polled = mode;
            double[][] t = alternate(3, blocks,
                    i -> check("sp_launch5_completion", (long) launch5Completion.invokeExact(n, 0)),
                    i -> check("sp_launch5_completion", (long) launch5Completion.invokeExact(n, polled)));
            reportBlocks(mode == 1 ? "c_completion_eventpoll" : "c_completion_counterpoll", t, 1e3 * n, "us");
        }
    }

    private static final Runnable NOTHING = () -> { };

    private void tiny(DeviceContext ctx, DeviceFunction f, int blocks, int n, boolean then) throws Throwable {
        DeviceBuffer p = ctx.allocate(DType.I32, 1);
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        Integer[] boxed = new Integer[n];
        for (int i = 0; i < n; i++) {
            boxed[i] = i; // boxed outside the timed loop: C passes its int by pointer
        }
        Object[] args = {p, 0};
        double[][] t = alternate(3, blocks, i -> check("sp_tiny", (long) tiny.invokeExact(n)), i -> {
            s.synchronize();
            long t0 = System.nanoTime();
            DeviceFuture<Void> last = null;
            for (int k = 0; k < n; k++) {
                args[1] = boxed[k];
                last = s.enqueueLaunch(f, one, args);
                if (then) {
                    last.thenRun(NOTHING);
                }
            }
            while (!last.isDone()) {
                Thread.onSpinWait();
            }
            return System.nanoTime() - t0;
        });
        s.synchronize();
        s.close();
        p.close();
        reportBlocks(then ? "tiny_then" : "tiny", t, 1e6, "ms");
    }

    /** The chain8 figures (see the class comment): {@code chunks} chunks of 8 write-one launches per block. */
    private void chain8(DeviceContext ctx, DeviceFunction f, int blocks, int chunks) throws Throwable {
        DeviceBuffer p = ctx.allocate(DType.I32, 1);
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        Integer[] boxed = new Integer[8 * chunks];
        for (int i = 0; i < boxed.length; i++) {
            boxed[i] = i; // boxed outside the timed loop: C passes its int by pointer
        }
        try (RepeatedWork work = s.repeatedWork()) {
            Side replay = i -> {
                s.synchronize();
                long t0 = System.nanoTime();
                DeviceFuture<Void> last = null;
                for (int c = 0; c < chunks; c++) {
                    int chunk = c;
                    last = work.enqueue(w -> {
                        for (int k = 0; k < 8; k++) {
                            w.enqueueLaunch(f, one, p, boxed[chunk * 8 + k]);
                        }
                    });
                }
                while (!last.isDone()) {
                    Thread.onSpinWait();
                }
                return System.nanoTime() - t0;
            };
            Side plain = i -> {
                s.synchronize();
                long t0 = System.nanoTime();
                DeviceFuture<Void> last = null;
                for (int c = 0; c < chunks; c++) {
                    for (int k = 0; k < 8; k++) {
                        last = s.enqueueLaunch(f, one, p, boxed[c * 8 + k]);
                    }
                }
                while (!last.isDone()) {
                    Thread.onSpinWait();
                }
                return System.nanoTime() - t0;
            };
            double perChunkUs = 1e3 * chunks;
            reportBlocks("chain8_stream", alternate(2, blocks,
                    i -> check("sp_chain8_stream", (long) chain8Stream.invokeExact(chunks)), replay), perChunkUs, "us");
            reportBlocks("chain8_graph", alternate(2, blocks,
                    i -> check("sp_chain8_graph", (long) chain8Graph.invokeExact(chunks)), replay), perChunkUs, "us");
            reportBlocks("chain8_update", alternate(2, blocks,
                    i -> check("sp_chain8_graph_update", (long) chain8GraphUpdate.invokeExact(chunks)), replay), perChunkUs, "us");
            reportBlocks("chain8_plain", alternate(2, blocks,
                    i -> check("sp_chain8_stream", (long) chain8Stream.invokeExact(chunks)), plain), perChunkUs, "us");
            result("paired_chain8_replays", work.replays());
            result("paired_chain8_fallbacks", work.fallbacks());
        }
        s.synchronize();
        s.close();
        p.close();
    }

    private void latency(DeviceContext ctx, DeviceFunction f, int samples) throws Throwable {
        DeviceBuffer p = ctx.allocate(DType.I32, 1);
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        Object[] args = {p, 0};
        s.synchronize();
        check("sp_sync", (long) sync.invokeExact());
        double[][] t = alternate(2_000, samples, i -> check("sp_roundtrip", (long) roundtrip.invokeExact(i)), i -> {
            args[1] = i;
            long t0 = System.nanoTime();
            DeviceFuture<Void> fu = s.enqueueLaunch(f, one, args);
            while (!fu.isDone()) {
                Thread.onSpinWait();
            }
            return System.nanoTime() - t0;
        });
        // The same round trip with the caller waiting in join(), which polls the stream's markers itself before it blocks
        // (no hand-off from the completion thread); C waits in cuStreamSynchronize's stead by spinning on its event.
        double[][] j = alternate(2_000, samples, i -> check("sp_roundtrip", (long) roundtrip.invokeExact(i)), i -> {
            args[1] = i;
            long t0 = System.nanoTime();
            s.enqueueLaunch(f, one, args).join();
            return System.nanoTime() - t0;
        });
        s.close();
        p.close();
        double c50 = Samples.median(t[0]);
        double s50 = Samples.median(t[1]);
        result("paired_latency_p50_ratio", s50 / c50);
        result("paired_latency_c_p50_us", c50 / 1e3);
        result("paired_latency_sluice_p50_us", s50 / 1e3);
        double jc50 = Samples.median(j[0]);
        double js50 = Samples.median(j[1]);
        result("paired_latency_join_p50_ratio", js50 / jc50);
        result("paired_latency_join_sluice_p50_us", js50 / 1e3);
        result("paired_latency_join_p99_ratio", Samples.percentile(j[1], 99) / Samples.percentile(j[0], 99));
        result("paired_latency_p99_ratio", Samples.percentile(t[1], 99) / Samples.percentile(t[0], 99));
    }

    private static long check(String call, long r) {
        if (r < 0) {
            throw new IllegalStateException(call + " failed: CUresult " + -r);
        }
        return r;
    }

    private static void result(String name, double value) {
        System.out.printf(Locale.ROOT, "%s=%.3f%n", name, value);
    }
}
