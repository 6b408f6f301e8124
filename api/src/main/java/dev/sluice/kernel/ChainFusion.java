package dev.sluice.kernel;

import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.kernel.ElementwiseBuilder.Declaration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the kernel that runs consecutive launches of generated element-wise kernels as one, for repeated work: a
 * {@link FusedBuilder} chain of every stage of every launch, each launch's stages named {@code l<launch>s<stage>} (so
 * two launches of one kernel are two stages), the launches' own bindings kept, every output written to memory but those
 * the engine found overwritten later in the run (kept in registers), and the
 * bindings between launches that the engine planned ({@link Kernel.Fusion#fuse}).
 */
final class ChainFusion {

    /** Longest name of a fused kernel, from its launches' names. */
    private static final int MAX_NAME = 96;

    private ChainFusion() {
    }

    /**
     * The kernel running the launches of {@code fusions}, as {@link Kernel.Fusion#fuse} says.
     *
     * @throws InvalidArgumentException naming {@code launches} if one of them is not an element-wise chain of this
     *                                  language (a fusion of another generator): the run is then not fused
     */
    static Kernel fuse(List<Kernel.Fusion> fusions, int[][] sources) {
        List<ElementwiseChain> chains = new ArrayList<>(fusions.size());
        for (Kernel.Fusion f : fusions) {
            if (!(f instanceof ElementwiseChain c)) {
                throw new InvalidArgumentException("launches", "a fusion of another generator, " + f
                        + ", cannot fuse with the kernel language's element-wise kernels");
            }
            chains.add(c);
        }
        StringBuilder name = new StringBuilder("fused");
        for (ElementwiseChain c : chains) {
            name.append('_').append(c.name());
        }
        FusedBuilder b = FusedBuilder.named(name.length() > MAX_NAME ? name.substring(0, MAX_NAME) : name.toString())
                .stageNamedParameters();
        for (int k = 0; k < chains.size(); k++) {
            ElementwiseChain c = chains.get(k);
            Map<String, String> stageNames = new HashMap<>();
            for (int s = 0; s < c.stages().size(); s++) {
                Declaration d = c.stages().get(s);
                String stageName = "l" + k + "s" + s;
                stageNames.put(d.name(), stageName);
                b.stage(d.named(stageName));
            }
            for (String[] binding : c.bindings()) {
                b.bind(respell(binding[0], stageNames), respell(binding[1], stageNames));
            }
            for (String output : c.written()) {
                if (!overwritten(c, sources[k], output)) {
                    b.output(respell(output, stageNames));
                }
            }
            for (int j = 0; j < sources[k].length; j++) {
                int from = sources[k][j];
                if (from >= 0) {
                    int launch = from >>> 16;
                    ElementwiseChain source = chains.get(launch);
                    b.bind(spell(k, c, c.parameters().get(j)), spell(launch, source,
                            source.parameters().get(from & 0xFFFF)));
                }
            }
        }
        return b.build();
    }

    /** Whether the written {@code output} of a launch of {@code c} is one that a later launch overwrites. */
    private static boolean overwritten(ElementwiseChain c, int[] sources, String output) {
        int j = c.parameters().indexOf(output);
        return j >= 0 && sources[j] == Kernel.Fusion.OVERWRITTEN;
    }

    /** {@code "stage.param"} of launch {@code k} under the name its stage has in the fused chain. */
    private static String spell(int k, ElementwiseChain c, String spelled) {
        int dot = spelled.indexOf('.');
        String stage = spelled.substring(0, dot);
        for (int s = 0; s < c.stages().size(); s++) {
            if (c.stages().get(s).name().equals(stage)) {
                return "l" + k + "s" + s + spelled.substring(dot);
            }
        }
        throw new IllegalStateException(spelled + " names no stage of " + c.name());
    }

    private static String respell(String spelled, Map<String, String> stageNames) {
        int dot = spelled.indexOf('.');
        return stageNames.get(spelled.substring(0, dot)) + spelled.substring(dot);
    }
}
