package dev.sluice.cuda;

import dev.sluice.LaunchConfig;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.support.NodeChain;
import dev.sluice.spi.WorkStep;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Repeated work's graph on CUDA: built node by node ({@code cuGraphAddKernelNode}, {@code cuGraphAddMemsetNode},
 * {@code cuGraphAddMemcpyNode} for device copies and copies to and from page-locked host memory, each depending on the
 * one before), instantiated once, and updated in place with
 * {@code cuGraphExec*NodeSetParams}, which changes later launches only. The graph is kept beside its executable graph:
 * the node handles the updates name belong to it. Its launches, updates and destruction are serialised by the public
 * layer (one repeated work, under its lock).
 *
 * <p>Not described here, so the work falls back to plain enqueues: launches with a cluster or launch attributes (the
 * v1 kernel node has neither), and fills of 8-byte elements (a memset node sets 1, 2 or 4).
 */
final class CudaReplayGraph extends NodeChain {

    private static final ValueLayout.OfLong J = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    /** {@code CUDA_KERNEL_NODE_PARAMS} (v1): func, grid x y z, block x y z, sharedMemBytes, kernelParams, extra. */
    private static final long KERNEL_PARAMS_BYTES = 56;
    /** {@code CUDA_MEMSET_NODE_PARAMS}: dst, pitch, value, elementSize, width, height. */
    private static final long MEMSET_PARAMS_BYTES = 40;
    /** {@code CUDA_MEMCPY3D}: source and destination position, memory type, pointers, pitch; width, height, depth. */
    private static final long MEMCPY3D_BYTES = 200;
    private static final int CU_MEMORYTYPE_HOST = 1;
    private static final int CU_MEMORYTYPE_DEVICE = 2;

    private final CudaContext context;
    private final long graph;
    private final long exec;
    private final long[] nodes;

    private CudaReplayGraph(CudaContext context, long graph, long exec, long[] nodes, List<WorkStep> steps) {
        super(steps);
        this.context = context;
        this.graph = graph;
        this.exec = exec;
        this.nodes = nodes;
    }

    /** Builds and instantiates the graph of {@code steps}, a chain in their order. */
    static CudaReplayGraph build(CudaContext context, List<WorkStep> steps) {
        if (!Cu.hasGraphBuilding()) {
            throw new UnsupportedOnBackendException("graph replay of repeated work (this driver lacks cuGraphAddKernelNode"
                    + " or cuGraphInstantiateWithFlags)");
        }
        for (WorkStep s : steps) {
            describable(s);
        }
        context.cu.bind();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(J);
            Cu.check(Cu.graphCreate(out.address()), "cuGraphCreate");
            long graph = out.get(J, 0);
            boolean made = false;
            try {
                long[] nodes = new long[steps.size()];
                MemorySegment before = arena.allocate(J);
                for (int i = 0; i < nodes.length; i++) {
                    long deps = i == 0 ? 0 : before.address();
                    long n = i == 0 ? 0 : 1;
                    MemorySegment p = params(context, arena, steps.get(i));
                    int r = switch (steps.get(i)) {
                        case WorkStep.Launch l -> Cu.graphAddKernelNode(out.address(), graph, deps, n, p.address());
                        case WorkStep.Fill f -> Cu.graphAddMemsetNode(out.address(), graph, deps, n, p.address(),
                                context.cu.address);
                        case WorkStep.Copy _, WorkStep.Upload _, WorkStep.Download _ -> Cu.graphAddMemcpyNode(
                                out.address(), graph, deps, n, p.address(), context.cu.address);
                        case WorkStep.PeerCopy _, WorkStep.Copy2DStep _ ->
                            throw new IllegalArgumentException("internal: no graph holds " + steps.get(i));
                    };
                    Cu.check(r, "cuGraphAdd" + kind(steps.get(i)) + "Node");
                    nodes[i] = out.get(J, 0);
                    before.set(J, 0, nodes[i]);
                }
                Cu.check(Cu.graphInstantiate(out.address(), graph), "cuGraphInstantiateWithFlags");
                made = true;
                return new CudaReplayGraph(context, graph, out.get(J, 0), nodes, steps);
            } finally {
                if (!made) {
                    Cu.graphDestroy(graph);
                }
            }
        }
    }

    /** Refuses, before anything is built, a step that no node here describes. */
    private static void describable(WorkStep s) {
        if (s instanceof WorkStep.Launch l && (l.config().hasCluster() || !l.config().attributes().isEmpty())) {
            throw new UnsupportedOnBackendException("graph replay of a launch with a cluster or launch attributes");
        }
        if (s instanceof WorkStep.Fill f && f.elementBytes() == 8) {
            throw new UnsupportedOnBackendException("graph replay of a fill of 8-byte elements");
        }
    }

    private static String kind(WorkStep s) {
        return switch (s) {
            case WorkStep.Launch _ -> "Kernel";
            case WorkStep.Fill _ -> "Memset";
            case WorkStep.Copy _, WorkStep.Upload _, WorkStep.Download _ -> "Memcpy";
            case WorkStep.PeerCopy _, WorkStep.Copy2DStep _ ->
                throw new IllegalArgumentException("internal: no graph holds " + s);
        };
    }

    /** The node parameters of {@code s}, in {@code arena}; the driver copies them (kernel arguments included). */
    private static MemorySegment params(CudaContext context, Arena arena, WorkStep s) {
        return switch (s) {
            case WorkStep.Launch l -> kernelParams(arena, l);
            case WorkStep.Fill f -> {
                MemorySegment p = arena.allocate(MEMSET_PARAMS_BYTES, 8);
                p.set(J, 0, f.destination().address() + f.offset());
                p.set(J, 8, 0); // pitch: unused for one row
                p.set(I, 16, (int) f.bits());
                p.set(I, 20, f.elementBytes());
                p.set(J, 24, f.count());
                p.set(J, 32, 1);
                yield p;
            }
            case WorkStep.Copy c -> memcpy(arena, CU_MEMORYTYPE_DEVICE, c.source().address() + c.sourceOffset(),
                    CU_MEMORYTYPE_DEVICE, c.destination().address() + c.destinationOffset(), c.bytes());
            case WorkStep.Upload u -> memcpy(arena, CU_MEMORYTYPE_HOST, u.source().address(), CU_MEMORYTYPE_DEVICE,
                    u.destination().address() + u.destinationOffset(), u.bytes());
            case WorkStep.Download d -> memcpy(arena, CU_MEMORYTYPE_DEVICE, d.source().address() + d.sourceOffset(),
                    CU_MEMORYTYPE_HOST, d.destination().address(), d.bytes());
            case WorkStep.PeerCopy _, WorkStep.Copy2DStep _ ->
                throw new IllegalArgumentException("internal: no graph holds " + s);
        };
    }

    /**
     * {@code CUDA_MEMCPY3D} of one row of {@code bytes}; a pointer goes in the host or device slot of its side by its
     * memory type (page-locked host memory: the copy is a DMA, asynchronous like the stream's own).
     */
    private static MemorySegment memcpy(Arena arena, int sourceType, long source, int destinationType, long destination,
            long bytes) {
        MemorySegment p = arena.allocate(MEMCPY3D_BYTES, 8); // zeroed: positions, arrays, LOD, the other pointers
        p.set(I, 32, sourceType);
        p.set(J, sourceType == CU_MEMORYTYPE_HOST ? 40 : 48, source);
        p.set(I, 120, destinationType);
        p.set(J, destinationType == CU_MEMORYTYPE_HOST ? 128 : 136, destination);
        p.set(J, 176, bytes);
        p.set(J, 184, 1);
        p.set(J, 192, 1);
        return p;
    }

    /** {@code CUDA_KERNEL_NODE_PARAMS}, each argument in an 8-byte slot as {@code CudaStream.launch} passes them. */
    private static MemorySegment kernelParams(Arena arena, WorkStep.Launch l) {
        CudaFunction f = (CudaFunction) l.function();
        LaunchConfig config = l.config();
        MemorySegment pointers = argumentSlots(arena, l.arguments());
        long shared = config.sharedMemoryBytes();
        if (shared > 48 * 1024) {
            f.ensureDynamicShared((int) shared);
        }
        MemorySegment p = arena.allocate(KERNEL_PARAMS_BYTES, 8);
        p.set(J, 0, f.function);
        p.set(I, 8, config.grid().x());
        p.set(I, 12, config.grid().y());
        p.set(I, 16, config.grid().z());
        p.set(I, 20, config.block().x());
        p.set(I, 24, config.block().y());
        p.set(I, 28, config.block().z());
        p.set(I, 32, (int) shared);
        p.set(J, 40, pointers.address());
        p.set(J, 48, 0); // extra
        return p;
    }

    @Override
    protected void beforeUpdate() {
        context.cu.bind();
    }

    @Override
    protected boolean setNode(int i, WorkStep s, Arena arena) {
        describable(s);
        long p = params(context, arena, s).address();
        int r = switch (s) {
            case WorkStep.Launch l -> Cu.graphExecKernelNodeSetParams(exec, nodes[i], p);
            case WorkStep.Fill f -> Cu.graphExecMemsetNodeSetParams(exec, nodes[i], p, context.cu.address);
            case WorkStep.Copy _, WorkStep.Upload _, WorkStep.Download _ ->
                Cu.graphExecMemcpyNodeSetParams(exec, nodes[i], p, context.cu.address);
            case WorkStep.PeerCopy _, WorkStep.Copy2DStep _ ->
                throw new IllegalArgumentException("internal: no graph holds " + s);
        };
        return r == Cu.SUCCESS;
    }

    @Override
    public void launch(StreamHandle stream) {
        context.cu.bind();
        Cu.check(Cu.graphLaunch(exec, stream.nativeHandle()), "cuGraphLaunch");
    }

    /** Destroys the executable graph (launches in flight finish first: the driver frees it after them) and the graph. */
    @Override
    public void destroy() {
        if (!context.isClosed()) { // a closed context took its graphs with it
            context.cu.bind();
            Cu.graphExecDestroy(exec);
            Cu.graphDestroy(graph);
        }
    }

    @Override
    public String toString() {
        return "CudaReplayGraph[0x" + Long.toHexString(exec) + ", " + nodes.length + " nodes]";
    }
}
