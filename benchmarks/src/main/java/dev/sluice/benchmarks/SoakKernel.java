package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The soak benchmark's request kernel, in CUDA C++ and in Java, and the host's reference of what it computes. Each
 * result element reads {@value #TAPS} weights and one bias at positions that depend on the request's seed, so a
 * request touches the long-lived buffers all over, and a wrong weight, a wrong request or a result of another
 * request shows as a wrong element. Integers, not floats, so that the device's result and the host's are equal bit
 * for bit (no fused multiply-add, no order of summation): with request values and weights below 1,000 every sum
 * stays far below {@code Integer.MAX_VALUE}.
 */
final class SoakKernel {

    /** Weights read per result element. */
    static final int TAPS = 4;

    /** Request values and weights lie in [0, VALUE_BOUND). */
    static final int VALUE_BOUND = 1_000;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private SoakKernel() {
    }

    /**
     * {@code result[i] = bias[(i + seed) % wn] + sum over k < TAPS of request[i] * weights[(i * TAPS + k + seed) % wn]}
     * for {@code i < n}.
     */
    static final Kernel KERNEL = Kernel.named("soak_request")
            .param(KernelParam.pointer("weights", DType.I32))
            .param(KernelParam.pointer("bias", DType.I32))
            .param(KernelParam.scalar("wn", DType.I64))
            .param(KernelParam.pointer("request", DType.I32))
            .param(KernelParam.pointer("result", DType.I32))
            .param(KernelParam.scalar("n", DType.I64))
            .param(KernelParam.scalar("seed", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void soak_request(const int* weights, const int* bias, long long wn,
                            const int* request, int* result, long long n, int seed) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) {
                            int x = request[i];
                            int acc = bias[(i + seed) % wn];
                            for (int k = 0; k < TAPS; k++) acc += x * weights[(i * TAPS + k + seed) % wn];
                            result[i] = acc;
                        }
                    }
                    """.replace("TAPS", Integer.toString(TAPS)))
            .java(t -> {
                long i = t.globalIdX();
                long n = t.longArg(5);
                if (i < n) {
                    MemorySegment weights = t.pointer(0);
                    MemorySegment bias = t.pointer(1);
                    long wn = t.longArg(2);
                    int seed = t.intArg(6);
                    int x = t.pointer(3).getAtIndex(INT, i);
                    int acc = bias.getAtIndex(INT, (i + seed) % wn);
                    for (int k = 0; k < TAPS; k++) {
                        acc += x * weights.getAtIndex(INT, (i * TAPS + k + seed) % wn);
                    }
                    t.pointer(4).setAtIndex(INT, i, acc);
                }
            })
            .build();

    /** What {@link #KERNEL} writes to {@code result[i]}, computed on the host from the host's copy of the weights. */
    static int expected(int[] weights, int[] bias, int x, long i, int seed) {
        long wn = weights.length;
        int acc = bias[(int) ((i + seed) % wn)];
        for (int k = 0; k < TAPS; k++) {
            acc += x * weights[(int) ((i * TAPS + k + seed) % wn)];
        }
        return acc;
    }
}
