package dev.sluice.benchmarks;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.EventFlag;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import dev.sluice.kernel.ElementwiseBuilder;
import dev.sluice.kernel.FusedBuilder;
import dev.sluice.kernel.Kernels;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import joptsimple.OptionParser;
import joptsimple.OptionSpec;

/**
 * Eight chained elementwise operations over {@code --mib} MiB of floats ({@code z = min(sqrt(abs(max(x * a + b, 0) - x)),
 * c) / d}, one operation a stage, the fourth reading {@code x} again), three ways:
 * <ul>
 * <li>{@code unfused}: the eight stages from {@link Kernels#elementwise}, eight launches, each intermediate stored to
 * and loaded from a buffer;
 * <li>{@code fused}: the same stages fused by {@link Kernels#fuse} into one launch that reads {@code x} and writes
 * {@code z} only;
 * <li>{@code hand-written}: the same chain written as one CUDA C++ kernel (GPU backends only), the yardstick.
 * </ul>
 * Each figure is the median ({@link Samples#median}) device time (events) of {@code --reps} runs, the forms alternating
 * run by run; on a GPU a kernel keeping the device busy for about a millisecond precedes each timed start, so that the
 * host's enqueue overlaps it and the events time the device's work. The unfused chain moves 17 buffers' worth of bytes (nine reads, eight
 * writes), the fused one two: on a GPU, where such kernels are bound by memory bandwidth, fusion should approach 8×. The
 * last line says whether the fused result equals the unfused one bit for bit (on a GPU the fused kernel may contract
 * {@code x * a + b} across the two stages into one fused multiply-add, see {@link FusedBuilder}).
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.FusionBench
 *     [--api cuda|hip|cpu] [--mib 512] [--reps 30]</pre>
 */
public final class FusionBench {

    private static final float A = 1.5f;
    private static final float B = -0.25f;
    private static final float C = 3.0f;
    private static final float D = 0.75f;

    /** Keeps one thread of the device busy for {@code cycles} clock cycles: the stream's work ahead of a timed span. */
    static final Kernel BUSY = Kernel.named("fusion_busy_cycles")
            .params(KernelParam.scalar("cycles", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void fusion_busy_cycles(long long cycles) {
                        long long start = clock64();
                        while (clock64() - start < cycles) { }
                    }
                    """)
            .build();

    private static final Kernel HAND_FUSED = Kernel.named("hand_fused8")
            .params(KernelParam.scalar("a", DType.F32), KernelParam.pointer("x", DType.F32), KernelParam.scalar("b", DType.F32),
                    KernelParam.scalar("c", DType.F32), KernelParam.scalar("d", DType.F32), KernelParam.pointer("z", DType.F32),
                    KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void hand_fused8(float a, const float* x, float b, float c, float d, float* z,
                            long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) {
                            float v = x[i];
                            z[i] = fminf(sqrtf(fabsf(fmaxf(v * a + b, 0.0f) - v)), c) / d;
                        }
                    }
                    """)
            .build();

    /**
     * The hand-written kernel again with the kernel language's {@code min} and {@code max} (Java's rules for NaN and
     * signed zeros, which {@code fminf} and {@code fmaxf} leave open): separates what fusion costs from what those
     * rules cost.
     */
    private static final Kernel HAND_FUSED_JAVA_MINMAX = Kernel.named("hand_fused8_java_minmax")
            .params(KernelParam.scalar("a", DType.F32), KernelParam.pointer("x", DType.F32), KernelParam.scalar("b", DType.F32),
                    KernelParam.scalar("c", DType.F32), KernelParam.scalar("d", DType.F32), KernelParam.pointer("z", DType.F32),
                    KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    static __device__ __forceinline__ float java_min(float a, float b) {
                        return a != a ? b : b != b ? a : a < b ? a : b < a ? b : a == 0.0f ? -(-a - b) : a;
                    }
                    static __device__ __forceinline__ float java_max(float a, float b) {
                        return a != a ? b : b != b ? a : a > b ? a : b > a ? b : a == 0.0f ? a + b : a;
                    }
                    extern "C" __global__ void hand_fused8_java_minmax(float a, const float* x, float b, float c, float d,
                            float* z, long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) {
                            float v = x[i];
                            z[i] = java_min(sqrtf(fabsf(java_max(v * a + b, 0.0f) - v)), c) / d;
                        }
                    }
                    """)
            .build();

    /** The options: the backend (null: the one {@code DeviceContext.open()} picks), MiB of input, timed runs. */
    record Options(String api, long mib, int reps) {

        static Options parse(String[] args) {
            OptionParser parser = CommandLine.parser();
            OptionSpec<String> api = parser.accepts("api").withRequiredArg();
            OptionSpec<Long> mib = parser.accepts("mib").withRequiredArg().ofType(Long.class);
            OptionSpec<Integer> reps = parser.accepts("reps").withRequiredArg().ofType(Integer.class);
            Options[] o = new Options[1];
            CommandLine.parse(parser, args, """
                    usage: FusionBench [--api cuda|hip|cpu] [--mib N] [--reps N]
                      --api    backend (default: the best present, as DeviceContext.open() picks)
                      --mib    MiB of float input (default 512 on a GPU, 16 on the CPU simulator)
                      --reps   timed runs of each form, after three of warm-up (default 30 on a GPU, 5 on the CPU)""",
                    set -> o[0] = new Options(set.valueOf(api), set.has(mib) ? set.valueOf(mib) : 0,
                            set.has(reps) ? set.valueOf(reps) : 0));
            return o[0];
        }
    }

    private FusionBench() {
    }

    /**
     * Runs the benchmark and prints its table.
     *
     * @param args {@code --api}, {@code --mib}, {@code --reps}; {@code --help} lists them
     */
    public static void main(String[] args) {
        run(Options.parse(args));
    }

    /** The eight stages, each named for its operation: {@code s<k>.y} feeds {@code s<k+1>.v}. */
    static List<ElementwiseBuilder> stages() {
        List<ElementwiseBuilder> stages = new ArrayList<>();
        stages.add(stage("mul_a", List.of(KernelParam.pointer("x", DType.F32), KernelParam.scalar("a", DType.F32)), "y = x * a"));
        stages.add(stage("add_b", List.of(KernelParam.pointer("v", DType.F32), KernelParam.scalar("b", DType.F32)), "y = v + b"));
        stages.add(stage("relu", List.of(KernelParam.pointer("v", DType.F32)), "y = max(v, 0.0f)"));
        stages.add(stage("sub_x", List.of(KernelParam.pointer("v", DType.F32), KernelParam.pointer("w", DType.F32)), "y = v - w"));
        stages.add(stage("absolute", List.of(KernelParam.pointer("v", DType.F32)), "y = abs(v)"));
        stages.add(stage("root", List.of(KernelParam.pointer("v", DType.F32)), "y = sqrt(v)"));
        stages.add(stage("clamp_c", List.of(KernelParam.pointer("v", DType.F32), KernelParam.scalar("c", DType.F32)), "y = min(v, c)"));
        stages.add(stage("div_d", List.of(KernelParam.pointer("v", DType.F32), KernelParam.scalar("d", DType.F32)), "y = v / d"));
        return stages;
    }

    /** The stages fused: parameters x, a, b, c, d, then the last stage's output y, then n. */
    static Kernel fused(List<ElementwiseBuilder> stages) {
        FusedBuilder chain = Kernels.fuse("fused8");
        stages.forEach(chain::stage);
        List<String> names = List.of("mul_a", "add_b", "relu", "sub_x", "absolute", "root", "clamp_c", "div_d");
        for (int k = 1; k < names.size(); k++) {
            chain.bind(names.get(k) + ".v", names.get(k - 1) + ".y");
        }
        return chain.bind("sub_x.w", "mul_a.x").output("div_d.y").build();
    }

    private static ElementwiseBuilder stage(String name, List<KernelParam> inputs, String body) {
        ElementwiseBuilder b = Kernels.elementwise(name);
        inputs.forEach(b::input);
        return b.output(KernelParam.pointer("y", DType.F32)).body(body);
    }

    static void run(Options o) {
        try (DeviceContext ctx = o.api() == null ? DeviceContext.open() : DeviceContext.open(Api.of(o.api()), 0)) {
            boolean gpu = ctx.api() != Api.CPU;
            long mib = o.mib() > 0 ? o.mib() : gpu ? 512 : 16;
            int reps = o.reps() > 0 ? o.reps() : gpu ? 30 : 5;
            long n = mib * 1024 * 1024 / Float.BYTES;
            System.out.printf(Locale.ROOT, "device=%s%napi=%s%nmib=%d%nreps=%d%n", ctx.name(), ctx.api().id(), mib, reps);
            DeviceStream s = ctx.stream();
            DeviceBuffer x = ctx.allocate(DType.F32, n);
            DeviceBuffer ping = ctx.allocate(DType.F32, n);
            DeviceBuffer pong = ctx.allocate(DType.F32, n);
            DeviceBuffer unfusedZ = ctx.allocate(DType.F32, n);
            DeviceBuffer fusedZ = ctx.allocate(DType.F32, n);
            fill(s, x, n);
            List<ElementwiseBuilder> stages = stages();
            List<DeviceFunction> unfused = new ArrayList<>();
            for (ElementwiseBuilder stage : stages) {
                unfused.add(ctx.compile(stage.build()));
            }
            DeviceFunction fused = ctx.compile(fused(stages));
            DeviceFunction hand = gpu ? ctx.compile(HAND_FUSED) : null;
            DeviceFunction handJavaMinMax = gpu ? ctx.compile(HAND_FUSED_JAVA_MINMAX) : null;
            DeviceFunction busy = gpu ? ctx.compile(BUSY) : null;
            LaunchConfig all = LaunchConfig.forElements(n);
            DeviceBuffer autoZ = ctx.allocate(DType.F32, n);
            RepeatedWork work = s.repeatedWork(); // the unfused stages recorded: fused automatically
            int forms = gpu ? 5 : 3;
            double[][] ms = new double[forms][reps];
            try (DeviceEvent start = ctx.createEvent(EventFlag.TIMING); DeviceEvent end = ctx.createEvent(EventFlag.TIMING)) {
                for (int r = -3; r < reps; r++) { // three rounds of warm-up
                    for (int k = 0; k < forms; k++) {
                        int form = (k + Math.max(r, 0)) % forms; // each form goes first in turn
                        if (busy != null) {
                            s.enqueueLaunch(busy, LaunchConfig.of(1, 1), 2_000_000L); // about 1 ms at 2 GHz
                        }
                        s.enqueueRecord(start);
                        switch (form) {
                            case 0 -> unfusedChain(s, unfused, all, x, ping, pong, unfusedZ, n);
                            case 1 -> s.enqueueLaunch(fused, all, x, A, B, C, D, fusedZ, n);
                            case 2 -> work.enqueue(w -> unfusedChain(w, unfused, all, x, ping, pong, autoZ, n));
                            case 3 -> s.enqueueLaunch(hand, all, A, x, B, C, D, fusedZ, n);
                            default -> s.enqueueLaunch(handJavaMinMax, all, A, x, B, C, D, fusedZ, n);
                        }
                        s.enqueueRecord(end).join();
                        if (r >= 0) {
                            ms[form][r] = start.elapsed(end).toNanos() / 1e6;
                        }
                    }
                }
            }
            s.enqueueLaunch(fused, all, x, A, B, C, D, fusedZ, n).join(); // a hand-written form wrote last
            double bytes = n * (double) Float.BYTES;
            double fusedMs = Samples.median(ms[1]);
            System.out.println("| form | launches | median ms | GB/s moved | time / fused |");
            System.out.println("|---|---|---|---|---|");
            row("unfused (Sluice, 8 stages)", 8, Samples.median(ms[0]), 17 * bytes, fusedMs);
            row("fused (Sluice, Kernels.fuse)", 1, fusedMs, 2 * bytes, fusedMs);
            row("the 8 stages as repeated work (fused automatically: " + work.fusedLaunches() / Math.max(1, reps + 3)
                    + " launches a call)", 1, Samples.median(ms[2]), 2 * bytes, fusedMs);
            if (gpu) {
                row("hand-written fused CUDA C++", 1, Samples.median(ms[3]), 2 * bytes, fusedMs);
                row("hand-written, the kernel language's min/max", 1, Samples.median(ms[4]), 2 * bytes, fusedMs);
            }
            work.close();
            long autoDiffer = differing(s, unfusedZ, autoZ, n);
            System.out.println(autoDiffer == 0 ? "fused automatically = unfused bit for bit: yes"
                    : "fused automatically = unfused bit for bit: no, " + autoDiffer + " of " + n + " elements differ");
            long differ = differing(s, unfusedZ, fusedZ, n);
            System.out.printf(Locale.ROOT, "speedup_fused_over_unfused=%.2f%n", Samples.median(ms[0]) / fusedMs);
            System.out.println(differ == 0 ? "fused = unfused bit for bit: yes"
                    : "fused = unfused bit for bit: no, " + differ + " of " + n + " elements differ");
            for (DeviceBuffer b : List.of(x, ping, pong, unfusedZ, fusedZ, autoZ)) {
                b.close();
            }
        }
    }

    /** The eight stages unfused, handing values through {@code ping} and {@code pong}; the result in {@code z}. */
    private static void unfusedChain(DeviceStream s, List<DeviceFunction> unfused, LaunchConfig all, DeviceBuffer x,
            DeviceBuffer ping, DeviceBuffer pong, DeviceBuffer z, long n) {
        s.enqueueLaunch(unfused.get(0), all, x, A, ping, n);
        s.enqueueLaunch(unfused.get(1), all, ping, B, pong, n);
        s.enqueueLaunch(unfused.get(2), all, pong, ping, n);
        s.enqueueLaunch(unfused.get(3), all, ping, x, pong, n);
        s.enqueueLaunch(unfused.get(4), all, pong, ping, n);
        s.enqueueLaunch(unfused.get(5), all, ping, pong, n);
        s.enqueueLaunch(unfused.get(6), all, pong, C, ping, n);
        s.enqueueLaunch(unfused.get(7), all, ping, D, z, n);
    }

    private static void row(String form, int launches, double ms, double movedBytes, double fusedMs) {
        System.out.printf(Locale.ROOT, "| %s | %d | %.3f | %.1f | %.2f |%n", form, launches, ms, movedBytes / ms / 1e6, ms / fusedMs);
    }

    /** Fills {@code x} with values in [-2, 2) from a fixed sequence, uploaded in chunks. */
    private static void fill(DeviceStream s, DeviceBuffer x, long n) {
        int chunk = 1 << 20;
        float[] values = new float[chunk];
        long seed = 0x9E3779B97F4A7C15L;
        for (long at = 0; at < n; at += chunk) {
            int count = (int) Math.min(chunk, n - at);
            for (int k = 0; k < count; k++) {
                seed = seed * 6364136223846793005L + 1442695040888963407L;
                values[k] = (seed >>> 40) / (float) (1 << 24) * 4 - 2;
            }
            s.enqueueCopy(HostData.of(MemorySegment.ofArray(values).asSlice(0, (long) count * Float.BYTES)), x.slice(at, count)).join();
        }
    }

    private static long differing(DeviceStream s, DeviceBuffer a, DeviceBuffer b, long n) {
        int chunk = 1 << 20;
        int[] left = new int[chunk];
        int[] right = new int[chunk];
        long differ = 0;
        for (long at = 0; at < n; at += chunk) {
            int count = (int) Math.min(chunk, n - at);
            long bytes = (long) count * Float.BYTES;
            s.enqueueCopy(a.slice(at, count), HostData.of(MemorySegment.ofArray(left).asSlice(0, bytes))).join();
            s.enqueueCopy(b.slice(at, count), HostData.of(MemorySegment.ofArray(right).asSlice(0, bytes))).join();
            for (int k = 0; k < count; k++) {
                differ += left[k] != right[k] ? 1 : 0;
            }
        }
        return differ;
    }
}
