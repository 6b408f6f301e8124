package dev.sluice.engine;

import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.OperationKind;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.WorkStep;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One device operation of a stream as a value: what the backend runs (a {@link WorkStep}), the device memory it claims
 * and whether it writes each region, the page-locked host memory it uses, its kind and the bytes it moves (for
 * listeners, traces and metrics), and what must stay reachable until it has run. The factories below make it from
 * arguments the public stream has checked; the stream enqueues it through one path ({@link StreamEnqueuer#submit}),
 * whether it reaches the backend at once, is held on the host, captured into a graph, or recorded by repeated work.
 *
 * <p>On the hot path a stream fills one instance of its own for each enqueue, under its lock, so that an enqueue
 * allocates no description of its operation; what must outlive the enqueue (a recorded operation, or an enqueue that
 * lets the lock go while it orders itself after other streams) is a {@link #copy}. Argument names are made only for a
 * refusal.
 */
final class Work {

    private static final String[] DESTINATION = {"destination"};
    private static final String[] SOURCE = {"source"};
    private static final String[] SOURCE_DESTINATION = {"source", "destination"};

    /** What the backend runs. */
    WorkStep step;
    /** What listeners, traces and metrics call it. */
    OperationKind kind;
    /** Its trace kind: {@code "kernel <name>"} for a launch, the kind's trace name otherwise. */
    String traceKind;
    /** The bytes a copy moves; 0 for other operations. */
    long bytes;
    /** Kept reachable until the device has finished it: Java memory a copy reads or writes, a launch's function. */
    @Nullable Object keepAlive;
    /** Whether a graph that captures it keeps {@link #keepAlive} (a launch's function) for as long as the graph lives. */
    boolean keptByCapture;
    /** Whether repeated work may record it: a graph can hold its step, and any host memory it uses is page-locked. */
    boolean recordable;
    /** The device memory it claims, the first {@link #regionCount}. */
    Region[] regions = new Region[4];
    /** Whether it writes each region. */
    boolean[] writes = new boolean[4];
    int regionCount;
    /** The page-locked host memory a copy uses, or null; {@link #hostWhat} names it, {@link #hostArgument} its argument. */
    @Nullable HostAllocation host;
    @Nullable PublicMemory hostWhat;
    String hostArgument = "";
    /** The names of the regions' arguments, for a copy or fill; null for a launch (named from {@link #params}). */
    String @Nullable [] names;
    /** A launch's parameters, which name its pointer arguments; null for other operations. */
    @Nullable List<KernelParam> params;
    /** The future a recorded copy completes; null on the stream's own instance. */
    @Nullable Operation<?> future;

    // ---------------------------------------------------------------- factories: each fills this instance and returns it

    /**
     * A copy of host memory to {@code destination}: a plain copy of its size ({@code shape} null) or a rectangle.
     *
     * @param sourceBuffer the pinned or registered memory {@code source} lies in, or null for other memory
     * @param sourceWhat   names the host buffer if it closed since the caller's check
     * @param pageLocked   whether {@code sourceBuffer} is page-locked memory of the stream's context (a recordable DMA)
     */
    Work upload(MemorySegment source, @Nullable HostAllocation sourceBuffer, @Nullable PublicMemory sourceWhat,
            Region destination, @Nullable Pitched shape, boolean pageLocked) {
        WorkStep s = shape == null
                ? new WorkStep.Upload(source, destination.memory(), destination.byteOffset(), destination.byteSize())
                : new WorkStep.Upload2D(source, shape.sourcePitch(), destination.memory(), destination.byteOffset(),
                        shape.destinationPitch(), shape.widthBytes(), shape.height());
        start(s, OperationKind.UPLOAD, shape == null ? destination.byteSize() : shape.bytes(), DESTINATION);
        region(destination, true);
        host(sourceBuffer, sourceWhat, "source", source, pageLocked);
        return this;
    }

    /** A copy of {@code source} to host memory; the parameters mirror {@link #upload}'s. */
    Work download(Region source, MemorySegment destination, @Nullable HostAllocation destinationBuffer,
            @Nullable PublicMemory destinationWhat, @Nullable Pitched shape, boolean pageLocked) {
        WorkStep s = shape == null
                ? new WorkStep.Download(source.memory(), source.byteOffset(), destination, source.byteSize())
                : new WorkStep.Download2D(source.memory(), source.byteOffset(), shape.sourcePitch(), destination,
                        shape.destinationPitch(), shape.widthBytes(), shape.height());
        start(s, OperationKind.DOWNLOAD, shape == null ? source.byteSize() : shape.bytes(), SOURCE);
        region(source, false);
        host(destinationBuffer, destinationWhat, "destination", destination, pageLocked);
        return this;
    }

    /**
     * A copy of {@code bytes} (or a rectangle) between device buffers: of one context, or of two of one backend (a peer
     * copy, {@code peerAccess} saying whether the devices move the bytes directly).
     */
    Work deviceCopy(Region source, Region destination, long bytes, @Nullable Pitched shape, boolean peerAccess) {
        ContextState from = source.allocation().context;
        ContextState to = destination.allocation().context;
        if (shape != null) {
            start(new WorkStep.Copy2D(source.memory(), source.byteOffset(), shape.sourcePitch(), destination.memory(),
                    destination.byteOffset(), shape.destinationPitch(), shape.widthBytes(), shape.height()),
                    OperationKind.DEVICE_TO_DEVICE, shape.bytes(), SOURCE_DESTINATION);
        } else if (from == to) {
            start(new WorkStep.Copy(source.memory(), source.byteOffset(), destination.memory(), destination.byteOffset(),
                    bytes), OperationKind.DEVICE_TO_DEVICE, bytes, SOURCE_DESTINATION);
        } else {
            start(new WorkStep.PeerCopy(from.handle(), source.memory(), source.byteOffset(), to.handle(),
                    destination.memory(), destination.byteOffset(), bytes),
                    peerAccess ? OperationKind.PEER : OperationKind.PEER_STAGED, bytes, SOURCE_DESTINATION);
        }
        region(source, false);
        region(destination, true);
        recordable = step.graphable();
        return this;
    }

    /** Sets {@code count} elements of {@code elementBytes} each of {@code destination} to {@code bits}. */
    Work fill(Region destination, long count, int elementBytes, long bits) {
        start(new WorkStep.Fill(destination.memory(), destination.byteOffset(), count, elementBytes, bits),
                OperationKind.MEMSET, 0, DESTINATION);
        region(destination, true);
        recordable = true;
        return this;
    }

    /**
     * A launch of {@code function} with arguments checked against {@code params} (a number or boolean for a scalar
     * parameter, the {@link Region} a buffer views for a pointer parameter), set into {@code into}. {@code launch} is the step to reuse if it has this function, configuration
     * and arguments instance, as a loop of launches has: then nothing is allocated.
     *
     * @param keep      the public function: loaded until the launch has run, and kept by a graph that captures it
     * @param traceKind {@code "kernel <name>"}
     */
    Work launch(FunctionHandle function, Kernel.Loaded keep, String traceKind, List<KernelParam> kernelParams,
            LaunchConfig config, Object[] arguments, LaunchArguments into, WorkStep.@Nullable Launch launch) {
        into.reset(kernelParams);
        WorkStep.Launch s = launch != null && launch.function() == function && launch.config() == config
                && launch.arguments() == into ? launch : new WorkStep.Launch(function, config, into);
        start(s, OperationKind.KERNEL, 0, null);
        this.traceKind = traceKind;
        this.params = kernelParams;
        this.keepAlive = keep;
        this.keptByCapture = true;
        this.recordable = true;
        for (int i = 0; i < arguments.length; i++) {
            KernelParam p = kernelParams.get(i);
            Object v = arguments[i];
            if (p.isPointer()) {
                Region r = (Region) v; // a buffer argument comes as the region it views
                into.setPointer(i, r.memory(), r.byteOffset());
                region(r, p.access().writes());
            } else {
                into.setBits(i, v instanceof Boolean bool ? (bool ? 1 : 0) : p.type().bits(p.name(), (Number) v));
            }
        }
        return this;
    }

    private void start(WorkStep s, OperationKind k, long byteCount, String @Nullable [] argumentNames) {
        step = s;
        kind = k;
        traceKind = k.traceName();
        bytes = byteCount;
        keepAlive = null;
        keptByCapture = false;
        recordable = false;
        regionCount = 0; // the regions were let go by clear() after the last enqueue
        host = null;
        hostWhat = null;
        hostArgument = "";
        names = argumentNames;
        params = null;
        future = null;
    }

    private void region(Region r, boolean write) {
        if (regionCount == regions.length) {
            regions = Arrays.copyOf(regions, regionCount * 2);
            writes = Arrays.copyOf(writes, regionCount * 2);
        }
        regions[regionCount] = r;
        writes[regionCount++] = write;
    }

    /** A copy's host side: page-locked memory is claimed; other memory (Java's) stays reachable until it ran. */
    private void host(@Nullable HostAllocation buffer, @Nullable PublicMemory what, String argument, MemorySegment memory,
            boolean pageLocked) {
        host = buffer;
        hostWhat = what;
        hostArgument = argument;
        keepAlive = buffer == null ? memory : null;
        recordable = pageLocked && step.graphable();
    }

    /**
     * Lets go of what the enqueue just made refers to (its buffers, host memory, function, Java memory), so that a
     * stream's own instance keeps nothing reachable between enqueues: the leak detector must see an unreachable buffer
     * as such.
     */
    void clear() {
        Arrays.fill(regions, 0, regionCount, null);
        regionCount = 0;
        keepAlive = null;
        host = null;
        hostWhat = null;
        params = null;
        future = null;
    }

    // ---------------------------------------------------------------- reading it

    /** The name of region {@code i}'s argument, in the words of the enqueue's own refusals. */
    String argumentName(int i) {
        String[] n = names;
        if (n != null) {
            return n[i];
        }
        List<KernelParam> ps = params;
        for (int k = 0, j = 0; ps != null && k < ps.size(); k++) {
            if (ps.get(k).isPointer() && j++ == i) {
                return "arguments[" + k + "] (" + ps.get(k) + ")";
            }
        }
        throw new IndexOutOfBoundsException(i);
    }

    /**
     * A copy that stays as it is while this instance is filled for the next enqueue: its own step (a launch's own
     * arguments) and regions, completing {@code completes} (null for an enqueue that keeps its future).
     */
    Work copy(@Nullable Operation<?> completes) {
        Work c = new Work();
        c.step = step.detached();
        c.kind = kind;
        c.traceKind = traceKind;
        c.bytes = bytes;
        c.keepAlive = keepAlive;
        c.keptByCapture = keptByCapture;
        c.recordable = recordable;
        c.regions = Arrays.copyOf(regions, regionCount);
        c.writes = Arrays.copyOf(writes, regionCount);
        c.regionCount = regionCount;
        c.host = host;
        c.hostWhat = hostWhat;
        c.hostArgument = hostArgument;
        c.names = names;
        c.params = params;
        c.future = completes;
        return c;
    }

    @Override
    public String toString() {
        return traceKind + (bytes > 0 ? " of " + bytes + " bytes" : "");
    }
}
