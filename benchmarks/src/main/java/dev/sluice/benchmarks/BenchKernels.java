package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Kernels;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The kernels of the benchmarks: the same names, parameters and CUDA C++ as the native yardsticks
 * ({@code benchmarks/native/sluice_native_bench.c}), so that a Sluice figure and the C figure measure the
 * same device work, plus a Java implementation of each for the CPU backend.
 */
public final class BenchKernels {

    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;

    private BenchKernels() {
    }

    /** An empty kernel without arguments: the launch cost alone. */
    public static final Kernel EMPTY0 = Kernel.named("empty0")
            .cudaSource("extern \"C\" __global__ void empty0() {}\n")
            .java(t -> { })
            .build();

    /** An empty kernel with five arguments ({@code float*, long long, float, int, float*}): argument marshalling. */
    public static final Kernel EMPTY5 = Kernel.named("empty5")
            .param(KernelParam.pointer("a", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .param(KernelParam.scalar("s", DType.F32))
            .param(KernelParam.scalar("k", DType.I32))
            .param(KernelParam.pointer("b", DType.F32))
            .cudaSource("extern \"C\" __global__ void empty5(float *a, long long n, float s, int k, float *b) {}\n")
            .java(t -> { })
            .build();

    /** Writes one int: the smallest kernel whose effect can be checked, for completion latency. */
    public static final Kernel WRITE_ONE = Kernel.named("write_one")
            .param(KernelParam.pointer("p", DType.I32))
            .param(KernelParam.scalar("v", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void write_one(int *p, int v) {
                        if (blockIdx.x == 0 && threadIdx.x == 0) *p = v;
                    }
                    """)
            .java(t -> {
                if (t.globalIdX() == 0) {
                    t.pointer(0).set(ValueLayout.JAVA_INT_UNALIGNED, 0, t.intArg(1));
                }
            })
            .build();

    /**
     * A memory-bound kernel of tunable cost: {@code passes} read-modify-write passes of {@code data[i] = data[i] *
     * 0.5f + 1.0f} over {@code n} floats, grid-stride. The overlap benchmark's compute step.
     */
    public static final Kernel MEMBOUND = Kernel.named("membound")
            .param(KernelParam.pointer("data", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .param(KernelParam.scalar("passes", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void membound(float *data, long long n, int passes) {
                        long long stride = (long long)gridDim.x * blockDim.x;
                        long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
                        for (int r = 0; r < passes; r++) {
                            for (long long i = first; i < n; i += stride) data[i] = data[i] * 0.5f + 1.0f;
                        }
                    }
                    """)
            .java(t -> {
                // Same grid-stride walk as the CUDA code; each Java "thread" takes a contiguous run instead of a
                // strided one, which the CPU caches like far better and which computes the same values.
                long n = t.longArg(1);
                int passes = t.intArg(2);
                long threads = (long) t.gridDim().x() * t.blockDim().x();
                long id = t.globalIdX();
                long per = (n + threads - 1) / threads;
                long from = Math.min(n, id * per);
                long to = Math.min(n, from + per);
                MemorySegment d = t.pointer(0);
                for (long i = from; i < to; i++) {
                    float v = d.getAtIndex(FLOAT, i);
                    for (int r = 0; r < passes; r++) {
                        v = v * 0.5f + 1.0f;
                    }
                    d.setAtIndex(FLOAT, i, v);
                }
            })
            .build();

    /**
     * {@code y = a * x + b} over {@code n} floats ({@code float a, const float* x, float b, float* y, long long n}),
     * generated from one definition ({@link Kernels#elementwise}): CUDA C++ on a GPU, bytecode on the CPU backend. The
     * generated side of {@code GeneratedKernelBenchmark} (CPU) and {@code cuda.GeneratedKernelBench} (GPU), each against
     * a hand-written kernel of its own.
     */
    public static final Kernel AXPB = Kernels.elementwise("axpb")
            .input(KernelParam.scalar("a", DType.F32))
            .input(KernelParam.pointer("x", DType.F32))
            .input(KernelParam.scalar("b", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = a * x + b")
            .build();

    /** What {@link #MEMBOUND} makes of {@code x}. */
    public static float membound(float x, int passes) {
        for (int r = 0; r < passes; r++) {
            x = x * 0.5f + 1.0f;
        }
        return x;
    }
}
