package dev.sluice.examples;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.Kernels;
import org.jspecify.annotations.Nullable;

/**
 * The device work FlinkBench and SparkBench measure, one definition for both: a kernel of {@value #FMAS_PER_PASS}
 * dependent FMAs per element, run {@code work} times over batches that hold one of {@value #POOL} values, and what it
 * makes of each value, as the device computes it.
 */
final class SpinLoad {

    /** Dependent FMAs per element in one launch of the kernel. */
    static final int FMAS_PER_PASS = 128;

    /** Distinct values the batches hold: batch {@code i} holds {@code i % POOL + 1} everywhere. */
    static final int POOL = 4;

    /**
     * {@code y = x} after {@value #FMAS_PER_PASS} times {@code t = fma(t, a, 0.25f)}; launched with {@code a = 1}, which
     * the compiler cannot see, so every FMA stays and the values stay exact ({@code x + 0.25} each time).
     */
    static final Kernel SPIN = Kernels.elementwise("bench_spin")
            .input(KernelParam.scalar("a", DType.F32))
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("f32 t = x;\n" + "t = fma(t, a, 0.25f);\n".repeat(FMAS_PER_PASS) + "y = t")
            .build();

    private SpinLoad() {
    }

    /**
     * Enqueues the kernel {@code work} times over {@code n} elements: {@code from} into {@code to}, then {@code to} in
     * place (the same buffer twice: in place throughout). Null for no work.
     */
    static @Nullable DeviceFuture<Void> spin(DeviceStream s, DeviceFunction f, DeviceBuffer from, DeviceBuffer to, long n,
            int work) {
        DeviceFuture<Void> last = null;
        LaunchConfig config = LaunchConfig.forElements(n);
        for (int w = 0; w < work; w++) {
            last = s.enqueueLaunch(f, config, 1.0f, w == 0 ? from : to, to, n);
        }
        return last;
    }

    /** What {@code work} passes make of each value {@code 1 .. POOL}, as the device computes it. */
    static float[] expected(int work) {
        float[] expected = new float[POOL];
        for (int k = 0; k < POOL; k++) {
            float x = k + 1;
            for (long i = 0; i < (long) work * FMAS_PER_PASS; i++) {
                x = Math.fma(x, 1.0f, 0.25f);
            }
            expected[k] = x;
        }
        return expected;
    }
}
