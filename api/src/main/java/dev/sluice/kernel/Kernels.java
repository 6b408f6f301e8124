package dev.sluice.kernel;

import dev.sluice.InvalidArgumentException;

/**
 * Where a kernel written once in Sluice's kernel language starts: an elementwise kernel ({@link #elementwise}), a chain
 * of them fused into one ({@link #fuse}) or a reduction ({@link #reduction}), each declared by typed parameters and
 * expressions from which both the CUDA C++ and the Java implementation are generated. See the guide's "Writing a kernel
 * once" for the language.
 */
public final class Kernels {

    private Kernels() {
    }

    /**
     * Starts an {@link ElementwiseBuilder elementwise kernel}: a body run once per element index, built into an
     * ordinary {@link dev.sluice.Kernel} that takes the declared parameters and then the element count {@code n}:
     *
     * <pre>{@code
     * Kernel axpb = Kernels.elementwise("axpb")
     *     .input(KernelParam.scalar("a", DType.F32))
     *     .input(KernelParam.pointer("x", DType.F32))
     *     .input(KernelParam.scalar("b", DType.F32))
     *     .output(KernelParam.pointer("y", DType.F32))
     *     .body("y = a * x + b")
     *     .build();
     * stream.enqueueLaunch(ctx.compile(axpb), LaunchConfig.forElements(n), 2f, x, 1f, y, n);
     * }</pre>
     *
     * @throws InvalidArgumentException naming {@code name} for null, a name that is not a C identifier or one over 1024
     *                                  characters
     */
    public static ElementwiseBuilder elementwise(String name) {
        return ElementwiseBuilder.named(name);
    }

    /**
     * Starts a {@link FusedBuilder fused kernel}: one elementwise kernel made of a chain of elementwise stages, each later
     * stage reading what earlier ones computed through explicit bindings, with the values handed between stages kept in
     * registers and only the outputs named written to memory:
     *
     * <pre>{@code
     * Kernel fused = Kernels.fuse("scale_shift")
     *     .stage(scale)                    // ElementwiseBuilders, named "scale" and "shift"
     *     .stage(shift)
     *     .bind("shift.u", "scale.y")      // shift's input u reads scale's output y
     *     .output("shift.w")
     *     .build();
     * }</pre>
     *
     * @throws InvalidArgumentException naming {@code name} for null, a name that is not a C identifier or one over 1024
     *                                  characters
     */
    public static FusedBuilder fuse(String name) {
        return FusedBuilder.named(name);
    }

    /**
     * Starts a {@link ReductionBuilder reduction}, as CuPy's {@code ReductionKernel}: a map expression, an associative
     * and commutative reduce expression with its identity, and a post-map, built into a {@link Reduction} over a whole
     * buffer or the rows or columns of a 2-D one:
     *
     * <pre>{@code
     * Reduction norm = Kernels.reduction("norm")
     *     .input(KernelParam.pointer("x", DType.F32))
     *     .output(KernelParam.pointer("y", DType.F32))
     *     .accumulator(DType.F32)
     *     .map("x * x").reduce("a + b").identity("0.0f").postMap("y = sqrt(a)")
     *     .build();
     * try (DeviceReduction r = norm.compile(ctx)) {
     *     r.enqueue(stream, n, x, y);
     * }
     * }</pre>
     *
     * @throws InvalidArgumentException naming {@code name} for null, a name that is not a C identifier or one over 1024
     *                                  characters
     */
    public static ReductionBuilder reduction(String name) {
        return ReductionBuilder.named(name);
    }
}
