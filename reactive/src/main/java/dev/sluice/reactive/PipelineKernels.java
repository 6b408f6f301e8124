package dev.sluice.reactive;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The functions of the kernels a pipeline declared ({@link GpuPipeline.Builder#kernel}): each loaded on every context
 * of the pipeline when it is built, looked up by a lane's slot, and closed once the pipeline is released.
 */
final class PipelineKernels {

    private final int contexts;
    /** One function per context, in context order. */
    private final Map<Kernel, DeviceFunction[]> functions;

    private PipelineKernels(int contexts, Map<Kernel, DeviceFunction[]> functions) {
        this.contexts = contexts;
        this.functions = functions;
    }

    /** Loads every kernel on every context; on a failure, closes what was loaded and rethrows. */
    static PipelineKernels load(Set<Kernel> kernels, List<DeviceContext> contexts) {
        if (kernels.isEmpty()) {
            return new PipelineKernels(contexts.size(), Map.of());
        }
        Map<Kernel, DeviceFunction[]> m = new IdentityHashMap<>();
        try {
            for (Kernel k : kernels) {
                DeviceFunction[] fs = new DeviceFunction[contexts.size()];
                m.put(k, fs);
                for (int i = 0; i < fs.length; i++) {
                    fs[i] = contexts.get(i).compile(k);
                }
            }
        } catch (RuntimeException | Error e) {
            closeAll(m);
            throw e;
        }
        return new PipelineKernels(contexts.size(), Collections.unmodifiableMap(m));
    }

    /** Whether no kernel was declared (nothing to close). */
    boolean isEmpty() {
        return functions.isEmpty();
    }

    /** The function of {@code kernel} on the context of lane slot {@code slot}. */
    DeviceFunction function(@Nullable Kernel kernel, int slot) {
        DeviceFunction[] fs = kernel == null ? null : functions.get(kernel);
        if (fs == null) {
            throw new InvalidArgumentException("kernel", (kernel == null ? "null" : "'" + kernel.name() + "'")
                    + " was not declared with GpuPipeline.Builder.kernel(...); declared: " + declared());
        }
        return fs[slot % contexts];
    }

    /** Unloads every function: only once no launch of them is pending. */
    void close() {
        closeAll(functions);
    }

    private List<String> declared() {
        List<String> names = new ArrayList<>();
        for (Kernel k : functions.keySet()) {
            names.add(k.name());
        }
        return names;
    }

    private static void closeAll(Map<Kernel, DeviceFunction[]> m) {
        for (DeviceFunction[] fs : m.values()) {
            for (DeviceFunction f : fs) {
                if (f != null) {
                    f.close();
                }
            }
        }
    }
}
