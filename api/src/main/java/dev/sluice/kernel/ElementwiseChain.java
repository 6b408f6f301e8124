package dev.sluice.kernel;

import dev.sluice.Kernel;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
import dev.sluice.kernel.ElementwiseBuilder.Declaration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a generated element-wise kernel was made of, the {@link Kernel#fusion() fusion} the kernel declares so that
 * repeated work can fuse launches of it with others ({@link ChainFusion}): its stages (one for an {@link ElementwiseBuilder}'s kernel), the bindings
 * between them, the outputs written to memory and where each of the kernel's parameters (before {@code n}) comes from.
 * Parameters are spelled {@code "stage.param"}. Compared by identity.
 *
 * @param name       the kernel's name
 * @param stages     the declarations, in order, under distinct names
 * @param bindings   pairs of an input and the parameter it reads, both spelled
 * @param written    the outputs written to memory
 * @param parameters the kernel's parameters before {@code n}, in order, as the stage parameters they are
 * @param overwrites for a chain of one stage, each output that its body assigns before any read of it, with the
 *                   parameters its body reads after that first assignment (by position); empty for other chains
 * @param size       the stages' statements' syntax-tree nodes ({@link Kernel.Fusion#size()})
 */
record ElementwiseChain(String name, List<Declaration> stages, List<String[]> bindings, List<String> written,
        List<String> parameters, Map<Integer, BitSet> overwrites, int size) implements Kernel.Fusion {

    /**
     * The chain of the one stage {@code d}, whose body checked is {@code statements} with its parameters meaning
     * {@code params}: every parameter is the kernel's, every output written, and which outputs a launch overwrites.
     */
    static ElementwiseChain of(Declaration d, List<Statement> statements, List<Symbol> params) {
        List<String> parameters = new ArrayList<>();
        List<String> written = new ArrayList<>();
        for (int j = 0; j < d.params().size(); j++) {
            String spelled = d.name() + "." + d.params().get(j).name();
            parameters.add(spelled);
            if (d.isOutput(j)) {
                written.add(spelled);
            }
        }
        Map<Integer, BitSet> overwrites = new HashMap<>();
        for (int j = 0; j < params.size(); j++) {
            if (d.isOutput(j)) {
                BitSet readAfter = readAfterAssigning(statements, params, j);
                if (readAfter != null) {
                    overwrites.put(j, readAfter);
                }
            }
        }
        return new ElementwiseChain(d.name(), List.of(d), List.of(), List.copyOf(written), List.copyOf(parameters),
                Map.copyOf(overwrites), Ast.size(statements));
    }

    /**
     * The parameters {@code statements} read after their first assignment of output {@code output}; null if they read
     * it before assigning it, or never assign it (its earlier value in memory then matters).
     */
    private static @Nullable BitSet readAfterAssigning(List<Statement> statements, List<Symbol> params, int output) {
        Symbol out = params.get(output);
        BitSet after = null;
        for (Statement s : statements) {
            if (after == null && FusedBuilder.firstRead(s.value(), out) != null) {
                return null;
            }
            if (after != null) {
                for (int j = 0; j < params.size(); j++) {
                    if (FusedBuilder.firstRead(s.value(), params.get(j)) != null) {
                        after.set(j);
                    }
                }
            }
            if (after == null && s.symbol().equals(out)) {
                after = new BitSet();
            }
        }
        return after;
    }

    /**
     * Whether this chain's launch writes its output {@code output} so that an earlier launch's write of the same region
     * is never read from memory: the chain is one stage that assigns the output before any read of it, and reads none of
     * {@code aliases} (its other parameters on that region) after assigning it; nor is another of them an output.
     */
    @Override
    public boolean overwrites(int output, int[] aliases) {
        BitSet readAfter = overwrites.get(output);
        if (readAfter == null) {
            return false;
        }
        Declaration d = stages.getFirst();
        for (int a : aliases) {
            if (a != output && (d.isOutput(a) || readAfter.get(a))) {
                return false;
            }
        }
        return true;
    }

    /** The kernel running the launches of {@code launches}, this chain's first; see {@link ChainFusion}. */
    @Override
    public Kernel fuse(List<Kernel.Fusion> launches, int[][] sources) {
        return ChainFusion.fuse(launches, sources);
    }

    // Identity: two chains that read alike are still two kernels, and two plans' worth of fused kernels.
    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
