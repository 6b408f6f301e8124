package dev.sluice.benchmarks.cuda;

import dev.sluice.Api;
import dev.sluice.BackendUnavailableException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.EventFlag;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.benchmarks.BenchKernels;
import dev.sluice.kernel.DeviceReduction;
import dev.sluice.kernel.Kernels;
import dev.sluice.kernel.Reduction;
import java.util.Arrays;
import java.util.Locale;

/**
 * Generated kernels against hand-written CUDA C++ on one GPU, over 512 MiB of floats, printed side by side:
 * <ul>
 * <li>{@code axpb}: {@code y = a * x + b} from {@link Kernels#elementwise} ({@link BenchKernels#AXPB}) against the
 * usual one-thread-per-element kernel. Target: within 5 %.
 * <li>{@code sum}: a float sum from {@link Kernels#reduction} against a hand-written CUB-style block reduction (a
 * grid-stride loop per thread, warp shuffles, one partial per warp in shared memory, a second launch over the
 * partials), both with 1,024 blocks of 256 threads. Target: within 10 %.
 * </ul>
 * Each figure is the median device time (events) of {@code --reps} launches, the two forms alternating launch by
 * launch so that clocks and temperature treat them alike. Before each timed start event the stream gets a kernel that
 * keeps the device busy for about a millisecond, so that the host's enqueue of the timed work (for the generated
 * reduction: building its two launches' arguments) overlaps that kernel and the events time the device's work alone;
 * the host's cost per call is what {@code PairedBench} measures. Without a CUDA device it says so and exits 0.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... dev.sluice.benchmarks.cuda.GeneratedKernelBench [--reps 30] [--mib 512]</pre>
 */
public final class GeneratedKernelBench {

    /** Keeps one thread of the device busy for {@code cycles} clock cycles: the stream's work ahead of a timed span. */
    static final Kernel BUSY = Kernel.named("busy_cycles")
            .params(KernelParam.scalar("cycles", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void busy_cycles(long long cycles) {
                        long long start = clock64();
                        while (clock64() - start < cycles) { }
                    }
                    """)
            .build();

    static final Kernel HAND_AXPB = Kernel.named("hand_axpb")
            .params(KernelParam.scalar("a", DType.F32), KernelParam.pointer("x", DType.F32), KernelParam.scalar("b", DType.F32),
                    KernelParam.pointer("y", DType.F32), KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void hand_axpb(float a, const float* x, float b, float* y, long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) y[i] = a * x[i] + b;
                    }
                    """)
            .build();

    private static final String BLOCK_SUM = """
            __device__ __forceinline__ float block_sum(float s) {
                __shared__ float warps[32];
                for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
                int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
                if (lane == 0) warps[warp] = s;
                __syncthreads();
                s = 0.0f;
                if (warp == 0) {
                    s = lane < (blockDim.x >> 5) ? warps[lane] : 0.0f;
                    for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
                }
                return s;
            }
            """;

    static final Kernel HAND_SUM_PARTIALS = Kernel.named("hand_sum_partials")
            .params(KernelParam.pointer("x", DType.F32), KernelParam.scalar("n", DType.I64), KernelParam.pointer("partials", DType.F32))
            .cudaSource(BLOCK_SUM + """
                    extern "C" __global__ void hand_sum_partials(const float* x, long long n, float* partials) {
                        float s = 0.0f;
                        long long stride = (long long) gridDim.x * blockDim.x;
                        for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += stride) s += x[i];
                        s = block_sum(s);
                        if (threadIdx.x == 0) partials[blockIdx.x] = s;
                    }
                    """)
            .build();

    static final Kernel HAND_SUM_FINAL = Kernel.named("hand_sum_final")
            .params(KernelParam.pointer("partials", DType.F32), KernelParam.scalar("count", DType.I32), KernelParam.pointer("out", DType.F32))
            .cudaSource(BLOCK_SUM + """
                    extern "C" __global__ void hand_sum_final(const float* partials, int count, float* out) {
                        float s = 0.0f;
                        for (int i = threadIdx.x; i < count; i += blockDim.x) s += partials[i];
                        s = block_sum(s);
                        if (threadIdx.x == 0) *out = s;
                    }
                    """)
            .build();

    static final Reduction GENERATED_SUM = Kernels.reduction("sum")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .accumulator(DType.F32)
            .map("x")
            .reduce("a + b")
            .identity("0.0f")
            .postMap("y = a")
            .build();

    private GeneratedKernelBench() {
    }

    public static void main(String[] args) throws Exception {
        int reps = 30;
        long mib = 512;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--mib" -> mib = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; takes --reps N, --mib N");
            }
        }
        DeviceContext ctx;
        try {
            ctx = DeviceContext.open(Api.CUDA, 0);
        } catch (BackendUnavailableException e) {
            System.out.println("skipped: no CUDA device (" + e.getMessage() + ")");
            return;
        }
        try (ctx) {
            System.out.println("device=" + ctx.name());
            long n = mib * 1024 * 1024 / Float.BYTES;
            DeviceStream s = ctx.stream();
            DeviceBuffer x = ctx.allocate(DType.F32, n);
            DeviceBuffer y = ctx.allocate(DType.F32, n);
            DeviceBuffer partials = ctx.allocate(DType.F32, 1024);
            DeviceBuffer out = ctx.allocate(DType.F32, 1);
            s.enqueueMemset(x, 0x3C).join(); // 0x3C3C3C3C: about 0.0115 in every element
            DeviceFunction handAxpb = ctx.compile(HAND_AXPB);
            DeviceFunction generatedAxpb = ctx.compile(BenchKernels.AXPB);
            DeviceFunction handPartials = ctx.compile(HAND_SUM_PARTIALS);
            DeviceFunction handFinal = ctx.compile(HAND_SUM_FINAL);
            DeviceFunction busy = ctx.compile(BUSY);
            long busyCycles = 2_000_000L; // about 1 ms at 2 GHz: longer than any enqueue below
            LaunchConfig all = LaunchConfig.forElements(n);
            double[][] axpb = new double[2][reps];
            double[][] sum = new double[2][reps];
            try (DeviceReduction generatedSum = GENERATED_SUM.compile(ctx);
                    DeviceEvent start = ctx.createEvent(EventFlag.TIMING);
                    DeviceEvent end = ctx.createEvent(EventFlag.TIMING)) {
                for (int r = -3; r < reps; r++) { // three rounds of warm-up
                    for (int form = 0; form < 2; form++) {
                        int f = (r & 1) == 0 ? form : 1 - form; // alternate which goes first
                        s.enqueueLaunch(busy, LaunchConfig.of(1, 1), busyCycles);
                        s.enqueueRecord(start);
                        s.enqueueLaunch(f == 0 ? handAxpb : generatedAxpb, all, 2f, x, 1f, y, n);
                        s.enqueueRecord(end).join();
                        if (r >= 0) {
                            axpb[f][r] = start.elapsed(end).toNanos() / 1e6;
                        }
                        s.enqueueLaunch(busy, LaunchConfig.of(1, 1), busyCycles);
                        s.enqueueRecord(start);
                        if (f == 0) {
                            s.enqueueLaunch(handPartials, LaunchConfig.of(1024, 256), x, n, partials);
                            s.enqueueLaunch(handFinal, LaunchConfig.of(1, 256), partials, 1024, out);
                        } else {
                            generatedSum.enqueue(s, n, x, out);
                        }
                        s.enqueueRecord(end).join();
                        if (r >= 0) {
                            sum[f][r] = start.elapsed(end).toNanos() / 1e6;
                        }
                    }
                }
            }
            double bytes = n * (double) Float.BYTES;
            System.out.println("| kernel | hand-written ms | generated ms | generated / hand-written | target |");
            System.out.println("|---|---|---|---|---|");
            row("axpb (" + mib + " MiB in, " + mib + " MiB out)", median(axpb[0]), median(axpb[1]), 1.05);
            row("float sum (" + mib + " MiB)", median(sum[0]), median(sum[1]), 1.10);
            System.out.printf(Locale.ROOT, "bandwidth: axpb hand-written %.0f GB/s, generated %.0f GB/s; sum hand-written %.0f GB/s,"
                    + " generated %.0f GB/s%n", 2 * bytes / median(axpb[0]) / 1e6, 2 * bytes / median(axpb[1]) / 1e6,
                    bytes / median(sum[0]) / 1e6, bytes / median(sum[1]) / 1e6);
        }
    }

    private static void row(String what, double hand, double generated, double target) {
        double ratio = generated / hand;
        System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.3f | <= %.2f %s |%n", what, hand, generated, ratio, target,
                ratio <= target ? "met" : "MISSED");
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
