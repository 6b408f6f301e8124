package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.util.ArrayList;
import java.util.List;

/**
 * Declares a reduction, as CuPy's {@code ReductionKernel} does: a map expression evaluated for every element, an
 * associative reduce expression combining two mapped values {@code a} and {@code b}, its identity, and a post-map that
 * writes the outputs from the reduced value {@code a}. Start one with {@link Kernels#reduction(String)}. Not thread-safe.
 *
 * <p>Names: the map sees the inputs (a pointer's name is its element {@code i}), the scalars, {@code i} and {@code n};
 * the reduce expression sees {@code a} and {@code b}; the identity is a constant; the post-map sees the scalars, the
 * outputs (a pointer's name is its element for the reduced segment) and {@code a}.
 */
public final class ReductionBuilder {

    private final String name;
    private final List<KernelParam> params = new ArrayList<>();
    private final List<Boolean> outputs = new ArrayList<>();
    private DType accumulator;
    private String map;
    private String reduce;
    private String identity;
    private String postMap;

    private ReductionBuilder(String name) {
        this.name = Kernel.named(name).java(t -> { }).build().name(); // Kernel's own check of the name
    }

    /**
     * Starts a declaration; {@link Kernels#reduction(String)} is the same.
     *
     * @throws InvalidArgumentException naming {@code name} for null, a name that is not a C identifier or one over 1024
     *                                  characters
     */
    public static ReductionBuilder named(String name) {
        return new ReductionBuilder(name);
    }

    /**
     * Appends an input: a pointer whose elements are reduced, or a scalar.
     *
     * @throws InvalidArgumentException naming {@code param} for null, a name given twice, reserved by the language
     *                                  ({@code i}, {@code n}, {@code a}, {@code b}, type names, names starting
     *                                  {@code sl_}), or a type the language lacks
     */
    public ReductionBuilder input(KernelParam param) {
        return add(param, false);
    }

    /**
     * Appends an output: a pointer with one element per reduced segment (one for a whole buffer, one per row or column).
     *
     * @throws InvalidArgumentException as {@link #input} does, and for a scalar
     */
    public ReductionBuilder output(KernelParam param) {
        return add(param, true);
    }

    /**
     * The type of the mapped and reduced values {@code a} and {@code b}: {@link DType#I32}, {@link DType#I64},
     * {@link DType#F32} or {@link DType#F64} (the types warp shuffles carry).
     *
     * @throws InvalidArgumentException naming {@code type} for null or another type
     */
    public ReductionBuilder accumulator(DType type) {
        if (type != DType.I32 && type != DType.I64 && type != DType.F32 && type != DType.F64) {
            throw new InvalidArgumentException("type", "reduction " + name + ": accumulator type " + type
                    + " is not one of [I32, I64, F32, F64]");
        }
        this.accumulator = type;
        return this;
    }

    /**
     * The value each element contributes: {@code x * x}.
     *
     * @throws InvalidArgumentException naming {@code expression} for null or blank source
     */
    public ReductionBuilder map(String expression) {
        this.map = source("expression", expression);
        return this;
    }

    /**
     * How two values combine, an associative and commutative expression of {@code a} and {@code b}: {@code a + b},
     * {@code max(a, b)}. The order in which values are combined differs between backends and launch sizes.
     *
     * @throws InvalidArgumentException naming {@code expression} for null or blank source
     */
    public ReductionBuilder reduce(String expression) {
        this.reduce = source("expression", expression);
        return this;
    }

    /**
     * The constant {@code x} with {@code reduce(x, v) == v} for every {@code v}: {@code 0.0f} for a sum.
     *
     * @throws InvalidArgumentException naming {@code expression} for null or blank source
     */
    public ReductionBuilder identity(String expression) {
        this.identity = source("expression", expression);
        return this;
    }

    /**
     * Statements writing the outputs from the reduced value {@code a}: {@code y = sqrt(a)}.
     *
     * @throws InvalidArgumentException naming {@code source} for null or blank source
     */
    public ReductionBuilder postMap(String statements) {
        this.postMap = source("source", statements);
        return this;
    }

    /**
     * Checks the expressions and generates the reduction's kernels, for CUDA/HIP and the CPU backend; no device is
     * touched.
     *
     * @throws CompilationException     for an error in an expression, naming the part, its line, column and what was
     *                                  expected
     * @throws InvalidArgumentException naming {@code reduction} if the accumulator, an expression or an output is missing
     */
    public Reduction build() {
        List<String> missing = new ArrayList<>();
        if (accumulator == null) {
            missing.add("accumulator(...)");
        }
        if (map == null) {
            missing.add("map(...)");
        }
        if (reduce == null) {
            missing.add("reduce(...)");
        }
        if (identity == null) {
            missing.add("identity(...)");
        }
        if (postMap == null) {
            missing.add("postMap(...)");
        }
        if (!outputs.contains(true)) {
            missing.add("output(...)");
        }
        if (!missing.isEmpty()) {
            throw new InvalidArgumentException("reduction", name + " is incomplete: call " + String.join(", ", missing));
        }
        return new ReductionCode(name, params, outputs, Ty.of(accumulator).orElseThrow(), map, reduce, identity, postMap)
                .build();
    }

    private String source(String argument, String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidArgumentException(argument, "reduction " + name + ": " + (text == null ? "must not be null" : "is blank"));
        }
        return text;
    }

    private ReductionBuilder add(KernelParam param, boolean output) {
        if (param != null && param.name().startsWith("sl_")) {
            throw new InvalidArgumentException("param", "reduction " + name + ": names starting 'sl_' are reserved for"
                    + " generated code, found '" + param.name() + "'");
        }
        Params.checkNew("reduction", name, param, Params.RESERVED_IN_REDUCTIONS, params, output);
        params.add(param);
        outputs.add(output);
        return this;
    }
}
