package dev.sluice.examples;

import dev.sluice.HostData;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.DeviceReduction;
import dev.sluice.kernel.Kernels;
import dev.sluice.kernel.Reduction;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;

/**
 * Kernels written once: {@code y = a * x + b} and the Euclidean norm of {@code y}, each defined by one expression from
 * which Sluice generates the CUDA C++ (for NVRTC and hiprtc) and the Java bytecode (for the CPU backend). Prints
 * {@code y[3] = 7.0} and {@code |y| = 3584.0} for 2^18 elements of x = 1, a = 3, b = 4.
 */
public final class WrittenOnce {

    /** {@code y = a * x + b} for every element; the kernel takes (a, x, b, y, n). */
    static final Kernel AXPB = Kernels.elementwise("axpb")
            .input(KernelParam.scalar("a", DType.F32))
            .input(KernelParam.pointer("x", DType.F32))
            .input(KernelParam.scalar("b", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = a * x + b")
            .build();

    /** The Euclidean norm: squares summed in f64, then a square root. */
    static final Reduction NORM = Kernels.reduction("norm")
            .input(KernelParam.pointer("v", DType.F32))
            .output(KernelParam.pointer("result", DType.F64))
            .accumulator(DType.F64)
            .map("(f64) v * v")
            .reduce("a + b")
            .identity("0.0")
            .postMap("result = sqrt(a)")
            .build();

    private WrittenOnce() {
    }

    public static void main(String[] args) {
        try (DeviceContext ctx = DeviceContext.open()) {
            run(ctx);
        }
    }

    static void run(DeviceContext ctx) {
        Examples.printDevice(ctx);
        int n = 1 << 18;
        float[] x = new float[n];
        Arrays.fill(x, 1.0f);
        float[] y = new float[n];
        double[] norm = new double[1];
        try (DeviceStream stream = ctx.createStream(); DeviceFunction axpb = ctx.compile(AXPB);
                DeviceReduction normOf = NORM.compile(ctx);
                DeviceBuffer dx = ctx.allocate(DType.F32, n); DeviceBuffer dy = ctx.allocate(DType.F32, n);
                DeviceBuffer dn = ctx.allocate(DType.F64, 1)) {
            stream.enqueueCopy(HostData.of(x), dx);
            stream.enqueueLaunch(axpb, LaunchConfig.forElements(n), 3.0f, dx, 4.0f, dy, (long) n);
            normOf.enqueue(stream, n, dy, dn);
            stream.enqueueCopy(dy, HostData.of(y));
            stream.enqueueCopy(dn, HostData.of(norm)).join();
        }
        System.out.println("y[3] = " + y[3]);
        System.out.println(String.format(Locale.ROOT, "|y| = %.1f", norm[0]));
    }
}
