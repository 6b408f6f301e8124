package dev.sluice.engine;

import dev.sluice.Kernel;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where the kernel language, a level above the engine, tells repeated work which launches it may fuse: it installs its
 * {@link Chains} the first time it generates an element-wise kernel, so no launch of one can be recorded before. Until
 * then, and for every other kernel, nothing is fused.
 */
public final class LaunchFusion {

    /** What the kernel language knows of the kernels it generated. Thread-safe. */
    public interface Chains {

        /**
         * The chain of element-wise stages that {@code function}'s kernel was generated from, compared by identity;
         * null if it is not a generated element-wise kernel. Its launches take the chain's parameters, then {@code n}.
         *
         * @param function what a recorded launch keeps reachable: the public function
         */
        @Nullable Object chainOf(Object function);

        /**
         * One element-wise kernel running {@code chains} one after another for each element. {@code sources[k][j]} says
         * where parameter {@code j} of launch {@code k} (an input pointer) reads from: {@code -1} for a parameter of the
         * fused kernel, else {@code k' << 16 | j'}, parameter {@code j'} of an earlier launch {@code k'} (an output it
         * wrote, or the same input). An output is written to memory, a parameter of the fused kernel, unless its entry
         * is {@link #OVERWRITTEN}: then it stays in a register. The fused kernel's parameters are the launches'
         * parameters in order, those bound or overwritten left out, then {@code n}.
         */
        Kernel fuse(List<Object> chains, int[][] sources);

        /**
         * Whether a launch of {@code chain} writes its parameter {@code output} so that an earlier launch's write of the
         * same region is never read from memory: it assigns the output before reading it and reads none of
         * {@code aliases} (its parameters on the same region, {@code output} among them) after. False where unsure.
         */
        boolean overwrites(Object chain, int output, int[] aliases);
    }

    /**
     * In {@link Chains#fuse}'s {@code sources}, an output that a later launch of the run overwrites: the fused kernel
     * keeps it in a register instead of storing it.
     */
    public static final int OVERWRITTEN = -2;

    private static volatile @Nullable Chains installed;

    private LaunchFusion() {
    }

    /** Installs the kernel language's chains; the last installation wins (there is one). */
    public static void install(Chains chains) {
        installed = chains;
    }

    static @Nullable Chains installed() {
        return installed;
    }
}
