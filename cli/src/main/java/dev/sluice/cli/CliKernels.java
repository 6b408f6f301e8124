package dev.sluice.cli;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The tool's kernels, each in CUDA C++ (compiled by NVRTC or hiprtc) and in Java (run by the CPU backend). */
final class CliKernels {

    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;

    private CliKernels() {
    }

    /** {@code x[i] = x[i] * a + b} for {@code i < n}. */
    static final Kernel SCALE_ADD = Kernel.named("sluice_cli_scale_add")
            .param(KernelParam.pointer("x", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .param(KernelParam.scalar("a", DType.F32))
            .param(KernelParam.scalar("b", DType.F32))
            .cudaSource("""
                    extern "C" __global__ void sluice_cli_scale_add(float* x, long long n, float a, float b) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) x[i] = x[i] * a + b;
                    }
                    """)
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    MemorySegment x = t.pointer(0);
                    x.setAtIndex(FLOAT, i, x.getAtIndex(FLOAT, i) * t.floatArg(2) + t.floatArg(3));
                }
            })
            .build();

    /** An empty kernel: the launch cost alone. */
    static final Kernel EMPTY = Kernel.named("sluice_cli_empty")
            .cudaSource("extern \"C\" __global__ void sluice_cli_empty() {}\n")
            .java(t -> { })
            .build();
}
