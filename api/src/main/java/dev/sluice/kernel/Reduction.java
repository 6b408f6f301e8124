package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.UnsupportedOnBackendException;
import java.util.List;

/**
 * A reduction declared with {@link Kernels#reduction(String)}: its generated kernels, ready to be compiled on a context
 * with {@link #compile(DeviceContext)}. Immutable and thread-safe.
 *
 * <p>How the result is produced: a whole buffer in two passes (each block reduces its share to one partial value,
 * then one block reduces the partials and runs the post-map); the rows or the columns of a 2-D buffer in one pass, one
 * block per row or column. On GPUs a block's share of a whole buffer is grid-strided, with four accumulators per
 * thread, and blocks combine over a tree of warps; on the CPU backend a block reduces a contiguous chunk in order. No
 * atomics are used, so a result is the same from run to run on one backend with the same sizes; but the backends
 * combine values in different orders, so float sums may differ between backends in the last bits.
 */
public final class Reduction {

    private final String name;
    private final List<KernelParam> params;
    private final List<Boolean> outputs;
    private final DType accumulator;
    private final Kernel partials;
    private final Kernel last;
    private final Kernel segments;

    Reduction(String name, List<KernelParam> params, List<Boolean> outputs, DType accumulator, Kernel partials, Kernel last,
            Kernel segments) {
        this.name = name;
        this.params = List.copyOf(params);
        this.outputs = List.copyOf(outputs);
        this.accumulator = accumulator;
        this.partials = partials;
        this.last = last;
        this.segments = segments;
    }

    /** The name the reduction was declared with; its kernels are named after it. */
    public String name() {
        return name;
    }

    /** The declared inputs and outputs in order: the arguments {@link DeviceReduction}'s methods take. */
    public List<KernelParam> params() {
        return params;
    }

    /** The type values are reduced in. */
    public DType accumulator() {
        return accumulator;
    }

    /**
     * The generated kernels: the partials and final passes of a whole-buffer reduction, and the one-pass kernel for rows
     * and columns, for reading their generated source; {@link DeviceReduction} launches them.
     */
    public List<Kernel> kernels() {
        return List.of(partials, last, segments);
    }

    /**
     * Compiles the reduction's kernels on {@code context} (with NVRTC or hiprtc on GPUs). The caller owns the result and
     * closes it.
     *
     * @throws InvalidArgumentException      naming {@code context} for null
     * @throws CompilationException          with the compiler's log if the run-time compiler refuses the source
     * @throws UnsupportedOnBackendException if the backend cannot run the generated code
     */
    public DeviceReduction compile(DeviceContext context) {
        if (context == null) {
            throw new InvalidArgumentException("context", "must not be null");
        }
        return new DeviceReduction(this, context.compile(partials), context.compile(last), context.compile(segments));
    }

    boolean isOutput(int index) {
        return outputs.get(index);
    }

    @Override
    public String toString() {
        return "Reduction " + name + params.stream().map(KernelParam::toString).toList().toString()
                .replace('[', '(').replace(']', ')');
    }
}
