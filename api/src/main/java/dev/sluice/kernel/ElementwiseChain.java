package dev.sluice.kernel;

import dev.sluice.Kernel;
import dev.sluice.engine.LaunchFusion;
import dev.sluice.kernel.ElementwiseBuilder.Declaration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What a generated element-wise kernel was made of, kept for each such kernel so that repeated work can fuse launches
 * of it with others ({@link ChainFusion}): its stages (one for an {@link ElementwiseBuilder}'s kernel), the bindings
 * between them, the outputs written to memory and where each of the kernel's parameters (before {@code n}) comes from.
 * Parameters are spelled {@code "stage.param"}. Compared by identity.
 *
 * @param name       the kernel's name
 * @param stages     the declarations, in order, under distinct names
 * @param bindings   pairs of an input and the parameter it reads, both spelled
 * @param written    the outputs written to memory
 * @param parameters the kernel's parameters before {@code n}, in order, as the stage parameters they are
 */
record ElementwiseChain(String name, List<Declaration> stages, List<String[]> bindings, List<String> written,
        List<String> parameters) {

    /** The generated kernels, held weakly: a kernel does not override equals, so this is an identity map. */
    private static final Map<Kernel, ElementwiseChain> GENERATED = Collections.synchronizedMap(new WeakHashMap<>());

    static {
        LaunchFusion.install(new ChainFusion()); // before the first kernel whose launches could be fused exists
    }

    /** The chain of the one stage {@code d}: every parameter is the kernel's, every output written. */
    static ElementwiseChain of(Declaration d) {
        List<String> parameters = new ArrayList<>();
        List<String> written = new ArrayList<>();
        for (int j = 0; j < d.params().size(); j++) {
            String spelled = d.name() + "." + d.params().get(j).name();
            parameters.add(spelled);
            if (d.isOutput(j)) {
                written.add(spelled);
            }
        }
        return new ElementwiseChain(d.name(), List.of(d), List.of(), List.copyOf(written), List.copyOf(parameters));
    }

    /** Notes that {@code kernel} was generated from {@code chain}; returns it. */
    static Kernel register(Kernel kernel, ElementwiseChain chain) {
        GENERATED.put(kernel, chain);
        return kernel;
    }

    /** The chain {@code kernel} was generated from; null for a kernel not generated as an element-wise one. */
    static @Nullable ElementwiseChain of(Kernel kernel) {
        return GENERATED.get(kernel);
    }

    // Identity, as the registry's: two chains that read alike are still two plans' worth of kernels.
    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
