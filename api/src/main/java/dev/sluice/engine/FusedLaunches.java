package dev.sluice.engine;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.WorkStep;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Fuses runs of consecutive recorded launches of kernels that declare a {@link Kernel.Fusion} (the kernel language's
 * element-wise kernels do) into one launch each, where that is provably the same computation: the same launch configuration and element count {@code n}, and
 * for every pair of pointer arguments of the run whose bytes overlap, one of them written, the same region (memory,
 * byte offset and element type). Thread {@code i} of each launch then touches only element {@code i} of every region,
 * so the fused kernel's thread {@code i}, running the launches' bodies in order, touches what they touched, in the same
 * order. Anything else between two launches ends a run, and so does the size cap
 * ({@link Kernel.Fusion#MAX_FUSED_SIZE}): a long run of heavy launches becomes several fused kernels, one after another.
 *
 * <p>The fused kernels are loaded on the context once per plan (which launches' kernels, which inputs read what) and
 * kept until {@link #close()}; a plan that failed to fuse or load is not tried again. One per {@link ReplayedWork},
 * used under its call lock.
 */
final class FusedLaunches {

    /** A plan: the launches' fusions, and where each of their parameters reads from (see {@link Kernel.Fusion#fuse}). */
    private record Plan(List<Kernel.Fusion> chains, List<Integer> sources) {
    }

    /** A plan's fused kernel, loaded. */
    private record Fused(FunctionHandle function, OwnedHandle owned, List<KernelParam> params) {
    }

    /**
     * A recording's work with its runs fused.
     *
     * @param work     the steps to build or update the graph with
     * @param launches how many recorded launches run inside fused kernels
     * @param kernels  how many fused kernels they run in
     */
    record Result(List<WorkStep> work, int launches, int kernels) {

        /** {@code r}'s work as recorded, nothing fused. */
        static Result unfused(Recording r) {
            return new Result(r.work(), 0, 0);
        }
    }

    /** A pointer argument of a launch: parameter {@code param} of launch {@code launch} of a run. */
    private record Use(int launch, int param, DeviceMemory memory, long offset, long bytes, DType type, boolean writes) {

        boolean sameRegion(Use o) {
            return memory == o.memory && offset == o.offset && type == o.type;
        }

        boolean overlaps(Use o) {
            if (bytes == 0 || o.bytes == 0) {
                return false;
            }
            if (memory == o.memory) {
                return offset < o.offset + o.bytes && o.offset < offset + bytes;
            }
            // Distinct memory never overlaps, unless a backend's addresses say otherwise.
            long a = memory.address();
            long b = o.memory.address();
            return a != 0 && b != 0 && a + offset < b + o.offset + o.bytes && b + o.offset < a + offset + bytes;
        }

        /** Whether the two may not be in one fused kernel: overlapping, one written, and not the same region. */
        boolean conflicts(Use o) {
            return (writes || o.writes) && overlaps(o) && !sameRegion(o);
        }
    }

    private final ContextRuntime context;
    private final Map<Plan, Fused> loaded = new HashMap<>();
    private final Set<Plan> refused = new HashSet<>();
    /** The last call's recorded work and what it fused into: a call of the same values fuses the same way. */
    private List<WorkStep> lastRecorded = List.of();
    private @Nullable Result last;

    FusedLaunches(ContextRuntime context) {
        this.context = context;
    }

    /** {@code r}'s work, each run of two or more fusible launches replaced by one launch of their fused kernel. */
    Result work(Recording r) {
        List<Work> steps = r.steps();
        if (!anyFusible(steps)) {
            return Result.unfused(r); // no launch of a kernel that declares a fusion: nothing to fuse, nothing to remember
        }
        Result previous = last;
        if (previous != null && sameValues(lastRecorded, steps)) {
            return previous; // a lane's stage on its fixed buffers: the same plan and arguments, nothing to look up again
        }
        Result planned = plan(steps);
        last = planned;
        lastRecorded = r.work();
        return planned;
    }

    /** Whether {@code steps} run exactly {@code recorded}: every step of the same values, in order. */
    private static boolean sameValues(List<WorkStep> recorded, List<Work> steps) {
        if (recorded.size() != steps.size()) {
            return false;
        }
        for (int i = 0; i < steps.size(); i++) {
            if (!recorded.get(i).sameValues(steps.get(i).step)) {
                return false;
            }
        }
        return true;
    }

    /** Whether one of {@code steps} launches a kernel that declares a fusion: a field read per step, no lookup. */
    private static boolean anyFusible(List<Work> steps) {
        for (Work s : steps) {
            if (s.step instanceof WorkStep.Launch && fusionOf(s.keepAlive) != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * The fusion that the kernel of a launch declares, read from what the launch keeps reachable (the public function,
     * a {@link Kernel.Loaded}); null for a kernel that declares none.
     */
    private static Kernel.@Nullable Fusion fusionOf(@Nullable Object launched) {
        return launched instanceof Kernel.Loaded f ? f.kernel().fusion().orElse(null) : null;
    }

    private Result plan(List<Work> steps) {
        List<WorkStep> work = new ArrayList<>(steps.size());
        int launches = 0;
        int kernels = 0;
        Run run = null;
        for (Work s : steps) {
            Kernel.Fusion chain = s.step instanceof WorkStep.Launch ? fusionOf(s.keepAlive) : null;
            WorkStep.Launch launch = chain == null ? null : (WorkStep.Launch) s.step;
            if (run != null && launch != null && run.add(launch, chain)) {
                continue;
            }
            if (run != null && emit(run, work)) {
                launches += run.launches.size();
                kernels++;
            }
            run = launch == null ? null : Run.start(launch, chain);
            if (run == null) {
                work.add(s.step);
            }
        }
        if (run != null && emit(run, work)) {
            launches += run.launches.size();
            kernels++;
        }
        return new Result(work, launches, kernels);
    }

    /** Adds {@code run}'s work: one fused launch (true) or, for one launch or a plan that does not fuse, its launches. */
    private boolean emit(Run run, List<WorkStep> work) {
        if (run.launches.size() >= 2) {
            run.keepOverwrittenInRegisters();
        }
        Fused f = run.launches.size() < 2 ? null : fused(run.plan());
        if (f == null) {
            work.addAll(run.launches);
            return false;
        }
        work.add(new WorkStep.Launch(f.function(), run.launches.getFirst().config(), run.arguments(f.params())));
        return true;
    }

    private @Nullable Fused fused(Plan plan) {
        Fused f = loaded.get(plan);
        if (f != null || refused.contains(plan)) {
            return f;
        }
        try {
            int[][] sources = new int[plan.chains().size()][];
            for (int k = 0, at = 0; k < sources.length; k++) {
                int count = plan.sources().get(at++);
                sources[k] = new int[count];
                for (int j = 0; j < count; j++) {
                    sources[k][j] = plan.sources().get(at++);
                }
            }
            Kernel kernel = plan.chains().getFirst().fuse(plan.chains(), sources);
            FunctionHandle function = context.handle().load(kernel);
            f = new Fused(function, context.own(function::unload), kernel.params());
        } catch (RuntimeException e) {
            refused.add(plan); // the launches run unfused, as recorded: the same results
            return null;
        }
        loaded.put(plan, f);
        return f;
    }

    /** Unloads the fused kernels; launches already enqueued still run (the backends unload with the context). */
    void close() {
        last = null;
        lastRecorded = List.of();
        for (Fused f : loaded.values()) {
            f.owned().close();
        }
        loaded.clear();
    }

    /** Consecutive launches that fuse so far, and where each of their input pointers reads from. */
    private static final class Run {

        final List<WorkStep.Launch> launches = new ArrayList<>();
        final List<Kernel.Fusion> chains = new ArrayList<>();
        final List<int[]> sources = new ArrayList<>();
        final List<Use> uses = new ArrayList<>();
        final long n;
        /** The launches' bodies' sizes, summed ({@link Kernel.Fusion#size()}). */
        private long size;

        private Run(long n) {
            this.n = n;
        }

        /** A run of {@code launch} alone; null if its own arguments conflict (a partial overlap, say). */
        static @Nullable Run start(WorkStep.Launch launch, Kernel.Fusion chain) {
            LaunchArguments a = launch.arguments();
            Run r = new Run(a.longValue(a.count() - 1));
            return r.add(launch, chain) ? r : null;
        }

        /** Adds {@code launch} if it fuses with the run; false, changing nothing, if not. */
        boolean add(WorkStep.Launch launch, Kernel.Fusion chain) {
            LaunchArguments a = launch.arguments();
            int count = a.count() - 1; // the last is n
            if (a.longValue(count) != n || !launches.isEmpty() && !launches.getFirst().config().equals(launch.config())) {
                return false;
            }
            int adds = Math.max(1, chain.size());
            if (!launches.isEmpty() && size + adds > Kernel.Fusion.MAX_FUSED_SIZE) {
                return false; // the next kernel takes it: one this large would run slower than its launches
            }
            int k = launches.size();
            List<Use> mine = new ArrayList<>();
            for (int j = 0; j < count; j++) {
                if (a.isPointer(j)) {
                    DType t = a.type(j);
                    mine.add(new Use(k, j, a.memory(j), a.byteOffset(j), n * t.byteSize(), t, a.param(j).access().writes()));
                }
            }
            for (Use u : mine) {
                for (Use o : uses) {
                    if (u.conflicts(o)) {
                        return false;
                    }
                }
                for (Use o : mine) {
                    if (u != o && u.conflicts(o)) {
                        return false;
                    }
                }
            }
            int[] from = new int[count];
            Arrays.fill(from, -1);
            for (Use u : mine) {
                if (!u.writes()) {
                    from[u.param()] = source(u);
                }
            }
            launches.add(launch);
            chains.add(chain);
            sources.add(from);
            uses.addAll(mine);
            size += adds;
            return true;
        }

        /**
         * Where input {@code u} reads from: the last earlier output of its region (written to memory, which it would
         * read), else the first earlier input of its region that is a parameter itself (the same argument), else -1.
         */
        private int source(Use u) {
            for (int k = uses.size() - 1; k >= 0; k--) {
                Use o = uses.get(k);
                if (o.writes() && o.sameRegion(u)) {
                    return o.launch() << 16 | o.param();
                }
            }
            for (Use o : uses) {
                if (!o.writes() && o.sameRegion(u) && sources.get(o.launch())[o.param()] < 0) {
                    return o.launch() << 16 | o.param();
                }
            }
            return -1;
        }

        /**
         * Marks {@link Kernel.Fusion#OVERWRITTEN} each output whose region a later launch of the run writes again, where
         * both launches' bodies say that no read from memory could see the earlier value: it is then never stored.
         * Inputs of the region in between read it from the earlier launch already (see {@link #source}).
         */
        void keepOverwrittenInRegisters() {
            for (Use u : uses) {
                Use next = u.writes() ? nextWriter(u) : null;
                if (next != null && chains.get(u.launch()).overwrites(u.param(), aliases(u))
                        && chains.get(next.launch()).overwrites(next.param(), aliases(next))) {
                    sources.get(u.launch())[u.param()] = Kernel.Fusion.OVERWRITTEN;
                }
            }
        }

        /** The first use of a later launch that writes {@code u}'s region; null if none does. */
        private @Nullable Use nextWriter(Use u) {
            for (Use o : uses) {
                if (o.launch() > u.launch() && o.writes() && o.sameRegion(u)) {
                    return o;
                }
            }
            return null;
        }

        /** The parameters of {@code u}'s launch on its region, its own among them. */
        private int[] aliases(Use u) {
            int[] params = new int[uses.size()];
            int n = 0;
            for (Use o : uses) {
                if (o.launch() == u.launch() && o.sameRegion(u)) {
                    params[n++] = o.param();
                }
            }
            return Arrays.copyOf(params, n);
        }

        Plan plan() {
            List<Integer> flat = new ArrayList<>();
            for (int[] from : sources) {
                flat.add(from.length);
                for (int s : from) {
                    flat.add(s);
                }
            }
            return new Plan(List.copyOf(chains), List.copyOf(flat));
        }

        /** The fused launch's arguments: each launch's unbound ones in order, then {@code n}. */
        LaunchArguments arguments(List<KernelParam> params) {
            LaunchArguments fused = new LaunchArguments();
            fused.reset(params);
            int at = 0;
            for (int k = 0; k < launches.size(); k++) {
                LaunchArguments a = launches.get(k).arguments();
                int[] from = sources.get(k);
                for (int j = 0; j < from.length; j++) {
                    if (from[j] >= 0 || from[j] == Kernel.Fusion.OVERWRITTEN) {
                        continue;
                    }
                    if (a.isPointer(j)) {
                        fused.setPointer(at++, a.memory(j), a.byteOffset(j));
                    } else {
                        fused.setBits(at++, a.bits(j));
                    }
                }
            }
            fused.setBits(at, n);
            return fused;
        }
    }
}
