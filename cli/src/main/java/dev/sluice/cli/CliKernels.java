package dev.sluice.cli;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Kernels;

/** The tool's kernels. */
final class CliKernels {

    private CliKernels() {
    }

    /**
     * {@code x[i] = x[i] * a + b} for {@code i < n}, in place, written once: the CUDA C++ (for NVRTC and hiprtc) and the
     * Java of the CPU backend are generated. Takes {@code (x, a, b, n)}; {@code n} is an {@code I64}.
     */
    static final Kernel SCALE_ADD = Kernels.elementwise("sluice_cli_scale_add")
            .output(KernelParam.pointer("x", DType.F32))
            .input(KernelParam.scalar("a", DType.F32))
            .input(KernelParam.scalar("b", DType.F32))
            .body("x = x * a + b")
            .build();

    /**
     * An empty kernel: the launch cost alone, with no parameters and no work. It stays written twice, as an empty body
     * in each language: a kernel written once is elementwise, and an elementwise kernel needs an output, a body and its
     * element count {@code n}, so it would take arguments and load them, which is more than the launch cost alone.
     */
    static final Kernel EMPTY = Kernel.named("sluice_cli_empty")
            .cudaSource("extern \"C\" __global__ void sluice_cli_empty() {}\n")
            .java(t -> { })
            .build();
}
