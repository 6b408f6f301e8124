package dev.sluice.benchmarks.cuda;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.LaunchConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Issue 3's per-call targets with C and Sluice alternating in one process: the C side is
 * {@code benchmarks/native/sluice_paired.c}, built as a shared library and called through {@code java.lang.foreign}, on the
 * same thread, the same primary context and the same PTX as Sluice's side.
 *
 * <p>Why: the GPU machine's figures move by up to 30 % from one process to the next (docs/gpu-runs.md, session 4), so the
 * ratio of two processes' figures cannot decide a 1.3× target. Here every block of C calls is followed (or preceded, in
 * turn) by the same block through Sluice, and the ratio is taken block by block:
 * <ul>
 * <li>{@code launch}: blocks of 2,000 launches of the empty 5-argument kernel; host time per launch, Sluice's with its
 * future. Ratio: median over the blocks of Sluice's time / C's time.
 * <li>{@code tiny}: blocks of 5,000 write-one kernels, C without events until the stream is drained, Sluice with a future
 * each until the last is done. Ratio as for launch.
 * <li>{@code latency}: idle stream, one write-one kernel, C spinning on {@code cuEventQuery}, Sluice spinning on its
 * future's {@code isDone()}; samples alternate one by one. Ratio: Sluice's median / C's median.
 * </ul>
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... dev.sluice.benchmarks.cuda.PairedBench --lib libsluice_paired.so
 *     [--blocks 40] [--samples 10000]</pre>
 *
 * Output: {@code key=value} lines ({@code paired_*}), the ratios first.
 */
public final class PairedBench {

    private final MethodHandle open;
    private final MethodHandle launch5;
    private final MethodHandle tiny;
    private final MethodHandle roundtrip;
    private final MethodHandle sync;
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
        close = linker.downcallHandle(c.find("sp_close").orElseThrow(), ofNone);
    }

    public static void main(String[] args) throws Throwable {
        Path lib = null;
        int blocks = 40;
        int samples = 10_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--lib" -> lib = Path.of(args[++i]);
                case "--blocks" -> blocks = Integer.parseInt(args[++i]);
                case "--samples" -> samples = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (lib == null) {
            throw new IllegalArgumentException("--lib: the path of libsluice_paired.so is required");
        }
        PairedBench b = new PairedBench(lib.toAbsolutePath());
        try (DeviceContext ctx = DeviceContext.open(Api.CUDA, 0)) {
            System.out.println("device=" + ctx.name());
            DeviceFunction empty5 = ctx.compile(CudaBench.EMPTY5);
            DeviceFunction writeOne = ctx.compile(CudaBench.WRITE_ONE);
            try (Arena arena = Arena.ofConfined()) {
                String ptx = empty5.assembly().orElseThrow(() -> new IllegalStateException("no PTX for empty5"));
                b.check("sp_open", (long) b.open.invokeExact(0, arena.allocateFrom(ptx)));
            }
            try {
                b.launch(ctx, empty5, blocks);
                b.tiny(ctx, writeOne, Math.max(10, blocks / 2));
                b.latency(ctx, writeOne, samples);
            } finally {
                b.check("sp_close", (long) b.close.invokeExact());
            }
        }
    }

    private void launch(DeviceContext ctx, DeviceFunction f, int blocks) throws Throwable {
        int n = 2_000;
        DeviceBuffer a = ctx.allocate(DType.F32, 1024);
        DeviceBuffer b = ctx.allocate(DType.F32, 1024);
        Object[] args = {a, 1024L, 2.5f, 7, b};
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        double[] cUs = new double[blocks];
        double[] sUs = new double[blocks];
        double[] ratio = new double[blocks];
        for (int r = -5; r < blocks; r++) { // 5 blocks of warm-up for the JIT
            double cNs = 0;
            double sNs = 0;
            for (int side = 0; side < 2; side++) {
                if ((side == 0) == ((r & 1) == 0)) { // C first in even blocks, Sluice first in odd ones
                    cNs = check("sp_launch5", (long) launch5.invokeExact(n));
                } else {
                    s.synchronize();
                    long t0 = System.nanoTime();
                    DeviceFuture<Void> last = null;
                    for (int i = 0; i < n; i++) {
                        last = s.enqueueLaunch(f, one, args);
                    }
                    sNs = System.nanoTime() - t0;
                    last.join();
                }
            }
            if (r >= 0) {
                cUs[r] = cNs / 1e3 / n;
                sUs[r] = sNs / 1e3 / n;
                ratio[r] = sNs / cNs;
            }
        }
        s.synchronize();
        s.close();
        a.close();
        b.close();
        result("paired_launch5_ratio", CudaBench.median(ratio));
        result("paired_launch5_c_us", CudaBench.median(cUs));
        result("paired_launch5_sluice_us", CudaBench.median(sUs));
        range("paired_launch5_ratio", ratio);
    }

    private void tiny(DeviceContext ctx, DeviceFunction f, int blocks) throws Throwable {
        int n = 5_000;
        DeviceBuffer p = ctx.allocate(DType.I32, 1);
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        Integer[] boxed = new Integer[n];
        for (int i = 0; i < n; i++) {
            boxed[i] = i; // boxed outside the timed loop: C passes its int by pointer
        }
        Object[] args = {p, 0};
        double[] cMs = new double[blocks];
        double[] sMs = new double[blocks];
        double[] ratio = new double[blocks];
        for (int r = -3; r < blocks; r++) {
            double cNs = 0;
            double sNs = 0;
            for (int side = 0; side < 2; side++) {
                if ((side == 0) == ((r & 1) == 0)) {
                    cNs = check("sp_tiny", (long) tiny.invokeExact(n));
                } else {
                    s.synchronize();
                    long t0 = System.nanoTime();
                    DeviceFuture<Void> last = null;
                    for (int i = 0; i < n; i++) {
                        args[1] = boxed[i];
                        last = s.enqueueLaunch(f, one, args);
                    }
                    while (!last.isDone()) {
                        Thread.onSpinWait();
                    }
                    sNs = System.nanoTime() - t0;
                }
            }
            if (r >= 0) {
                cMs[r] = cNs / 1e6;
                sMs[r] = sNs / 1e6;
                ratio[r] = sNs / cNs;
            }
        }
        s.synchronize();
        s.close();
        p.close();
        result("paired_tiny5k_ratio", CudaBench.median(ratio));
        result("paired_tiny5k_c_ms", CudaBench.median(cMs));
        result("paired_tiny5k_sluice_ms", CudaBench.median(sMs));
        range("paired_tiny5k_ratio", ratio);
    }

    private void latency(DeviceContext ctx, DeviceFunction f, int samples) throws Throwable {
        DeviceBuffer p = ctx.allocate(DType.I32, 1);
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        Object[] args = {p, 0};
        double[] cUs = new double[samples];
        double[] sUs = new double[samples];
        s.synchronize();
        check("sp_sync", (long) sync.invokeExact());
        for (int i = -2_000; i < samples; i++) { // 2,000 warm-up pairs
            for (int side = 0; side < 2; side++) {
                if ((side == 0) == ((i & 1) == 0)) {
                    double ns = check("sp_roundtrip", (long) roundtrip.invokeExact(i));
                    if (i >= 0) {
                        cUs[i] = ns / 1e3;
                    }
                } else {
                    args[1] = i;
                    long t0 = System.nanoTime();
                    DeviceFuture<Void> fu = s.enqueueLaunch(f, one, args);
                    while (!fu.isDone()) {
                        Thread.onSpinWait();
                    }
                    long t1 = System.nanoTime();
                    if (i >= 0) {
                        sUs[i] = (t1 - t0) / 1e3;
                    }
                }
            }
        }
        s.close();
        p.close();
        double c50 = CudaBench.percentile(cUs, 50);
        double s50 = CudaBench.percentile(sUs, 50);
        result("paired_latency_p50_ratio", s50 / c50);
        result("paired_latency_c_p50_us", c50);
        result("paired_latency_sluice_p50_us", s50);
        result("paired_latency_p99_ratio", CudaBench.percentile(sUs, 99) / CudaBench.percentile(cUs, 99));
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

    /** The quartiles of the block ratios, to show how far they spread. */
    private static void range(String name, double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        System.out.printf(Locale.ROOT, "%s_q1=%.3f%n%s_q3=%.3f%n", name, CudaBench.percentile(c, 25), name,
                CudaBench.percentile(c, 75));
    }
}
