package dev.sluice.kernel;

import dev.sluice.DeviceFunction;
import dev.sluice.Kernel;
import dev.sluice.engine.LaunchFusion;
import dev.sluice.kernel.ElementwiseBuilder.Declaration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Builds the kernel that runs consecutive launches of generated element-wise kernels as one, for repeated work: a
 * {@link FusedBuilder} chain of every stage of every launch, each launch's stages named {@code l<launch>s<stage>} (so
 * two launches of one kernel are two stages), the launches' own bindings kept, every output written to memory but those
 * the engine found overwritten later in the run (kept in registers), and the
 * bindings between launches that the engine planned.
 */
final class ChainFusion implements LaunchFusion.Chains {

    /** Longest name of a fused kernel, from its launches' names. */
    private static final int MAX_NAME = 96;

    @Override
    public @Nullable Object chainOf(Object function) {
        return function instanceof DeviceFunction f ? ElementwiseChain.of(f.kernel()) : null;
    }

    @Override
    public boolean overwrites(Object chain, int output, int[] aliases) {
        return ((ElementwiseChain) chain).overwrites(output, aliases);
    }

    @Override
    public Kernel fuse(List<Object> chains, int[][] sources) {
        StringBuilder name = new StringBuilder("fused");
        for (Object c : chains) {
            name.append('_').append(((ElementwiseChain) c).name());
        }
        FusedBuilder b = FusedBuilder.named(name.length() > MAX_NAME ? name.substring(0, MAX_NAME) : name.toString())
                .stageNamedParameters();
        for (int k = 0; k < chains.size(); k++) {
            ElementwiseChain c = (ElementwiseChain) chains.get(k);
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
                    ElementwiseChain source = (ElementwiseChain) chains.get(launch);
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
        return j >= 0 && sources[j] == LaunchFusion.OVERWRITTEN;
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
