package dev.sluice.hip;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.sluice.Api;
import dev.sluice.LaunchConfig;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.support.NodeChain;
import dev.sluice.spi.WorkStep;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Repeated work's graph on HIP: built node by node ({@code hipGraphAddKernelNode}, {@code hipGraphAddMemsetNode},
 * {@code hipGraphAddMemcpyNode1D} for device copies and copies to and from page-locked host memory, each depending on
 * the one before), instantiated once ({@code hipGraphInstantiate}), and updated in place with
 * {@code hipGraphExec*NodeSetParams}, which changes later launches only (HIP makes a launch's commands, kernel arguments
 * included, when it is launched). The graph is kept beside its executable graph: the node handles the updates name
 * belong to it. Its launches, updates and destruction are serialised by the public layer (one repeated work, under
 * its lock); {@link HipContext#close()} destroys those still alive, as HIP keeps a device's graphs past a context.
 *
 * <p>A kernel node takes the {@code hipFunction_t} of {@code hipModuleGetFunction} as its {@code func}: HIP 5.2, 5.3 and
 * 5.5 onwards fall back to it when the pointer is not a registered host function; HIP 5.4 does not, and answers
 * {@code hipErrorInvalidDeviceFunction}. A node the runtime refuses so makes the work fall back to plain enqueues, as do
 * the steps no node here describes, refused before anything is built: launches with a cluster or launch attributes
 * (the kernel node has neither), and fills of 8-byte elements (a memset node sets 1, 2 or 4 bytes).
 */
final class HipReplayGraph extends NodeChain {

    /** What building and updating call beyond the captured graphs' calls: optional symbols (see HipApiSymbol). */
    private static final List<HipApiSymbol> CALLS = List.of(HipApiSymbol.hipGraphCreate, HipApiSymbol.hipGraphAddKernelNode,
            HipApiSymbol.hipGraphAddMemsetNode, HipApiSymbol.hipGraphAddMemcpyNode1D,
            HipApiSymbol.hipGraphExecKernelNodeSetParams, HipApiSymbol.hipGraphExecMemsetNodeSetParams,
            HipApiSymbol.hipGraphExecMemcpyNodeSetParams1D);

    private final HipContext context;
    private final HipApi api;
    private final long graph;
    private final long exec;
    private final long[] nodes;
    private final AtomicBoolean destroyed = new AtomicBoolean();

    private HipReplayGraph(HipContext context, long graph, long exec, long[] nodes, List<WorkStep> steps) {
        super(steps);
        this.context = context;
        this.api = context.api;
        this.graph = graph;
        this.exec = exec;
        this.nodes = nodes;
    }

    /** Builds and instantiates the graph of {@code steps}, a chain in their order. */
    static HipReplayGraph build(HipContext context, List<WorkStep> steps) {
        for (WorkStep s : steps) {
            describable(s);
        }
        HipApi api = context.api;
        List<String> missing = CALLS.stream().filter(s -> !api.lib.has(s)).map(Enum::name).toList();
        if (!missing.isEmpty()) {
            throw new UnsupportedOnBackendException("graph replay of repeated work is not supported on hip here: "
                    + api.lib.hipName() + " lacks " + String.join(", ", missing));
        }
        context.bind();
        long graph = api.graphCreate();
        try (Arena arena = Arena.ofConfined()) {
            long[] nodes = new long[steps.size()];
            MemorySegment out = arena.allocate(JAVA_LONG);
            MemorySegment before = arena.allocate(JAVA_LONG);
            for (int i = 0; i < nodes.length; i++) {
                WorkStep s = steps.get(i);
                MemorySegment deps = i == 0 ? MemorySegment.NULL : before;
                long n = i == 0 ? 0 : 1;
                int r = switch (s) {
                    case WorkStep.Launch l -> api.graphAddKernelNode(out, graph, deps, n, kernelParams(arena, l));
                    case WorkStep.Fill f -> api.graphAddMemsetNode(out, graph, deps, n, memsetParams(arena, f));
                    case WorkStep.Copy c -> api.graphAddMemcpyNode1D(out, graph, deps, n, c.destination().address()
                            + c.destinationOffset(), c.source().address() + c.sourceOffset(), c.bytes(),
                            HipApiConstants.hipMemcpyDeviceToDevice);
                    case WorkStep.Upload u -> api.graphAddMemcpyNode1D(out, graph, deps, n, u.destination().address()
                            + u.destinationOffset(), u.source().address(), u.bytes(), HipApiConstants.hipMemcpyHostToDevice);
                    case WorkStep.Download d -> api.graphAddMemcpyNode1D(out, graph, deps, n, d.destination().address(),
                            d.source().address() + d.sourceOffset(), d.bytes(), HipApiConstants.hipMemcpyDeviceToHost);
                    case WorkStep.PeerCopy _, WorkStep.Copy2DStep _ ->
                        throw new IllegalArgumentException("internal: no graph holds " + s);
                };
                checkAdded(api, r, s);
                nodes[i] = out.get(JAVA_LONG, 0);
                before.set(JAVA_LONG, 0, nodes[i]);
            }
            long exec = api.graphInstantiate(graph);
            HipReplayGraph g = new HipReplayGraph(context, graph, exec, nodes, steps);
            context.replayGraphs.add(g);
            return g;
        } catch (RuntimeException e) {
            try {
                api.graphDestroy(graph);
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    /** Refuses, before anything is built, a step that no node here describes. */
    static void describable(WorkStep s) {
        if (s instanceof WorkStep.Launch l && (l.config().hasCluster() || !l.config().attributes().isEmpty())) {
            throw new UnsupportedOnBackendException("graph replay of a launch with a cluster or launch attributes",
                    Api.HIP);
        }
        if (s instanceof WorkStep.Fill f && f.elementBytes() == 8) {
            throw new UnsupportedOnBackendException("graph replay of a fill of 8-byte elements", Api.HIP);
        }
    }

    /**
     * A node the runtime cannot take (a module function where it wants a host one, values it refuses) is unsupported:
     * the work falls back to the plain enqueues, which take the same values; any other failure is thrown.
     */
    private static void checkAdded(HipApi api, int status, WorkStep s) {
        String call = switch (s) {
            case WorkStep.Launch _ -> "hipGraphAddKernelNode";
            case WorkStep.Fill _ -> "hipGraphAddMemsetNode";
            case WorkStep.Copy _, WorkStep.Upload _, WorkStep.Download _ -> "hipGraphAddMemcpyNode1D";
            case WorkStep.PeerCopy _, WorkStep.Copy2DStep _ ->
                throw new IllegalArgumentException("internal: no graph holds " + s);
        };
        if (status == HipApiConstants.hipErrorInvalidDeviceFunction || status == HipApiConstants.hipErrorInvalidValue) {
            throw new UnsupportedOnBackendException("graph replay of repeated work is not supported on hip here: " + call
                    + " refused a step with " + api.errorName(status) + " (" + status + ")");
        }
        api.check(status, call);
    }

    /** {@code hipKernelNodeParams}, each argument in an 8-byte slot as {@link LaunchBlock} passes them. */
    private static MemorySegment kernelParams(Arena arena, WorkStep.Launch l) {
        HipModule f = (HipModule) l.function();
        LaunchConfig config = l.config();
        MemorySegment pointers = argumentSlots(arena, l.arguments()); // never NULL: HIP wants it or extra
        var g = config.grid();
        var b = config.block();
        return HipApiNodeParams.kernel(arena, f.function, g.x(), g.y(), g.z(), b.x(), b.y(), b.z(),
                (int) config.sharedMemoryBytes(), pointers.address());
    }

    /** {@code hipMemsetParams} of one row; the value masked to the element's bits, as the plain memsets take it. */
    private static MemorySegment memsetParams(Arena arena, WorkStep.Fill f) {
        int value = switch (f.elementBytes()) {
            case 1 -> (int) (f.bits() & 0xFF);
            case 2 -> (int) (f.bits() & 0xFFFF);
            default -> (int) f.bits();
        };
        return HipApiNodeParams.memset(arena, f.destination().address() + f.offset(), f.elementBytes(), value, f.count());
    }

    @Override
    protected void beforeUpdate() {
        context.bind(); // HIP checks a kernel node's function against the current device
    }

    @Override
    protected boolean setNode(int i, WorkStep s, Arena arena) {
        describable(s);
        int r = switch (s) {
            case WorkStep.Launch l -> api.graphExecKernelNodeSetParams(exec, nodes[i], kernelParams(arena, l));
            case WorkStep.Fill f -> api.graphExecMemsetNodeSetParams(exec, nodes[i], memsetParams(arena, f));
            case WorkStep.Copy c -> api.graphExecMemcpyNodeSetParams1D(exec, nodes[i], c.destination().address()
                    + c.destinationOffset(), c.source().address() + c.sourceOffset(), c.bytes(),
                    HipApiConstants.hipMemcpyDeviceToDevice);
            case WorkStep.Upload u -> api.graphExecMemcpyNodeSetParams1D(exec, nodes[i], u.destination().address()
                    + u.destinationOffset(), u.source().address(), u.bytes(), HipApiConstants.hipMemcpyHostToDevice);
            case WorkStep.Download d -> api.graphExecMemcpyNodeSetParams1D(exec, nodes[i], d.destination().address(),
                    d.source().address() + d.sourceOffset(), d.bytes(), HipApiConstants.hipMemcpyDeviceToHost);
            case WorkStep.PeerCopy _, WorkStep.Copy2DStep _ ->
                throw new IllegalArgumentException("internal: no graph holds " + s);
        };
        return r == HipApiConstants.hipSuccess;
    }

    @Override
    public void launch(StreamHandle stream) {
        api.graphLaunch(exec, stream.nativeHandle());
    }

    /**
     * Destroys the executable graph and the graph, once (the public layer, or the context's close for those left):
     * launches in flight keep the commands HIP made for them.
     */
    @Override
    public void destroy() {
        if (!destroyed.compareAndSet(false, true)) {
            return;
        }
        context.replayGraphs.remove(this);
        try {
            context.bind();
            api.graphExecDestroy(exec);
            api.graphDestroy(graph);
        } catch (RuntimeException e) {
            // after a device fault the runtime reports the fault here too; the graph goes with the device's reset, and
            // closing the work must not fail for it (as on CUDA, whose destroy statuses are not checked)
        }
    }

    @Override
    public String toString() {
        return "HipReplayGraph[0x" + Long.toHexString(exec) + ", " + nodes.length + " nodes]";
    }
}
