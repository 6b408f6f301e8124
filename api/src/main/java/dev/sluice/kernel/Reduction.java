package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.UnsupportedOnBackendException;
import java.util.ArrayList;
import java.util.List;

/**
 * A reduction declared with {@link Kernels#reduction(String)}: its generated kernels, ready to be compiled on a context
 * with {@link #compile(DeviceContext)}. Immutable and thread-safe.
 *
 * <p>How the result is produced: a whole buffer in two passes (each block reduces its share to one partial value,
 * then one block reduces the partials and runs the post-map); the rows of a 2-D buffer in one pass, rows of up to
 * 1,024 columns by the fewest lanes of a warp (a power of two up to 32) that leave each at most 8 of its elements,
 * several rows a block, wider
 * rows a block each, or, with fewer than 1,024 wide rows, in two passes (each row is split into chunks of at least
 * 2,048 columns over the grid's second dimension, enough for about 1,024 blocks, each block reduces a chunk to a
 * partial value, and a second pass reduces each row's partials in chunk order and runs the post-map); its columns with a block per tile of 32 adjacent columns, in one pass, or in two where there are too few tiles to
 * fill the device (the rows are split into chunks, each block reduces its tile over one chunk to partial values, and a
 * second pass reduces the chunks' partials of each column and runs the post-map). The chunks depend only on the
 * numbers of rows and columns. On GPUs a block's share of a whole buffer is grid-strided, with four accumulators per
 * thread, and blocks combine over a tree of warps; a row's (or a chunk's) threads stride along it and combine over the same tree, or a narrow row's lanes over a tree
 * of shuffles within their part of the warp; a
 * column's values are taken by one lane of each warp of a block, rows a warp apart, so that a warp reads a contiguous
 * run of a row, and the warps' values are combined in warp order. On the CPU backend a block reduces a contiguous
 * chunk (or a column's chunk) in order. No atomics are used, so a result is the same from run to run on one backend
 * with the same sizes; but the backends combine values in different orders, so float sums may differ between backends
 * in the last bits.
 */
public final class Reduction {

    private final String name;
    private final List<KernelParam> params;
    private final List<Boolean> outputs;
    private final DType accumulator;
    private final List<Kernel> kernels;

    Reduction(String name, List<KernelParam> params, List<Boolean> outputs, DType accumulator, List<Kernel> kernels) {
        this.name = name;
        this.params = List.copyOf(params);
        this.outputs = List.copyOf(outputs);
        this.accumulator = accumulator;
        this.kernels = List.copyOf(kernels);
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
     * The generated kernels, for reading their generated source; {@link DeviceReduction} launches them. In order: the
     * partials and final passes of a whole-buffer reduction, the one-pass kernel for rows, then the one-pass kernel for
     * columns and the partials and final passes of a column reduction in two passes, then the one-pass kernel for narrow
     * rows and the partials pass of a row reduction in two passes (whose final pass is the whole buffer's).
     */
    public List<Kernel> kernels() {
        return kernels;
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
        List<DeviceFunction> functions = new ArrayList<>();
        try {
            for (Kernel k : kernels) {
                functions.add(context.compile(k));
            }
        } catch (RuntimeException e) {
            functions.forEach(DeviceFunction::close); // a later kernel refused: unload those already compiled
            throw e;
        }
        return new DeviceReduction(this, functions);
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
