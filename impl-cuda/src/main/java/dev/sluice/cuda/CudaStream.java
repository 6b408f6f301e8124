package dev.sluice.cuda;

import dev.sluice.LaunchAttribute;
import dev.sluice.LaunchConfig;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.support.DispatchingStream;
import dev.sluice.spi.support.DeviceAllocation;
import dev.sluice.spi.support.EventMarker;
import dev.sluice.spi.support.HostFlagGate;
import dev.sluice.spi.support.HostFlagSlots;
import dev.sluice.spi.support.HostNodes;
import dev.sluice.spi.support.NativeEvent;
import dev.sluice.spi.support.NativeGraph;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongToIntFunction;
import org.jspecify.annotations.Nullable;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * SPI layer: a CUDA stream. The public layer serialises every call on one stream (one lock per stream), so
 * the reusable native blocks here (kernel arguments, the {@code CUlaunchConfig}) need no lock of their own.
 *
 * <p>Launches go through {@code java.lang.foreign} to {@code cuLaunchKernel} with one argument block per
 * stream: {@code void* params[i]} points at slot {@code i} of a value area, each slot 8 bytes and written
 * with the argument's bits (little-endian, so a 1-, 2- or 4-byte parameter reads its low bytes). Nothing is
 * allocated per launch.
 */
final class CudaStream extends DispatchingStream {

    private static final Logger LOG = System.getLogger(CudaStream.class.getName());
    private static final ValueLayout.OfLong J = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final int LAUNCH_CONFIG_BYTES = 56;
    private static final int LAUNCH_ATTRIBUTE_BYTES = 72;
    private static final int MAX_ATTRIBUTES = 8;

    final CudaContext context;
    final CUstream stream;
    final long address;
    private final Arena arena = Arena.ofShared();
    private MemorySegment argumentValues;
    private MemorySegment argumentPointers;
    private int argumentCapacity;
    private MemorySegment launchConfig;
    private volatile boolean capturing;
    /** While capturing: the {@link HostNodes} keys of the host steps captured, released with the graph. */
    private @Nullable List<Long> capturedSteps;
    private volatile boolean destroyed;
    private final AtomicBoolean destroying = new AtomicBoolean();
    /** This stream's completion markers: their events, its completion counter, the fault checks of stalled ones. */
    private final CudaMarkers markers;

    CudaStream(CudaContext context, CUstream stream) {
        this.context = context;
        this.stream = stream;
        this.address = Jc.address(stream);
        this.markers = new CudaMarkers(this);
        growArguments(16);
        launchConfig = arena.allocate(LAUNCH_CONFIG_BYTES + (long) MAX_ATTRIBUTES * LAUNCH_ATTRIBUTE_BYTES, 8);
        copy2D = arena.allocate(Cu.MEMCPY2D_BYTES, 8);
    }

    private void growArguments(int n) {
        argumentValues = arena.allocate(8L * n, 8);
        argumentPointers = arena.allocate(8L * n, 8);
        for (int i = 0; i < n; i++) {
            argumentPointers.set(J, 8L * i, argumentValues.address() + 8L * i);
        }
        argumentCapacity = n;
    }

    // ---------------------------------------------------------------- copies

    @Override
    public void copyHostToDevice(MemorySegment source, DeviceMemory destination, long destinationOffset, long bytes) {
        context.cu.bind();
        long dst = destination.address() + destinationOffset;
        if (PinnedRanges.contains(source)) {
            Cu.check(Cu.memcpyHtoDAsync(dst, source.address(), bytes, address), "cuMemcpyHtoDAsync");
            return;
        }
        refuseStagingDuringCapture();
        // Memory that is not pinned goes through pinned chunks, filled here and sent in this stream's order; a chunk
        // is reused once the DMA recorded after it has finished. No stream waits on the device for the host: a
        // gate whose opening needs other device work (the staging DMA) can deadlock on CUDA (docs/architecture.md).
        Staging staging = context.staging();
        for (long off = 0; off < bytes; off += Staging.CHUNK) {
            long n = Math.min(Staging.CHUNK, bytes - off);
            Staging.Chunk c = staging.take();
            MemorySegment.copy(source, off, c.segment, 0, n);
            int r = Cu.memcpyHtoDAsync(dst + off, c.host, n, address);
            if (r != Cu.SUCCESS) {
                staging.give(c);
                Cu.check(r, "cuMemcpyHtoDAsync (staged)");
            }
            staging.releaseAfter(c, address);
        }
    }

    /** Downloads into memory that is not pinned: how many were enqueued, and how many have reached the host. */
    private long downloadsEnqueued;
    private volatile long downloadsDone;
    /** The last staged download's host copy: each one's copy runs after the one before, so they finish in order. */
    private CompletableFuture<Void> downloadTail = CompletableFuture.completedFuture(null);

    @Override
    public void copyDeviceToHost(DeviceMemory source, long sourceOffset, MemorySegment destination, long bytes) {
        context.cu.bind();
        long src = source.address() + sourceOffset;
        if (PinnedRanges.contains(destination)) {
            Cu.check(Cu.memcpyDtoHAsync(destination.address(), src, bytes, address), "cuMemcpyDtoHAsync");
            return;
        }
        refuseStagingDuringCapture();
        // DMA into pinned chunks in stream order; a staging thread copies each chunk to the destination once its DMA
        // has finished. The stream goes on at once; the markers recorded after this copy complete only once the
        // destination holds the data (see CudaStagedMarker).
        Staging staging = context.staging();
        long ticket = ++downloadsEnqueued;
        for (long off = 0; off < bytes; off += Staging.CHUNK) {
            long n = Math.min(Staging.CHUNK, bytes - off);
            long at = off;
            stageDownload(staging, ticket, off + n >= bytes, destination,
                    host -> Cu.memcpyDtoHAsync(host, src + at, n, address), "cuMemcpyDtoHAsync (staged)",
                    chunk -> MemorySegment.copy(chunk, 0, destination, at, n));
        }
    }

    /**
     * One chunk of staged download {@code ticket}: enqueues {@code dma} into a staging chunk (it gets the chunk's host
     * address and returns the driver's status) and an event after it; a staging thread then runs {@code unpack} on the
     * chunk once the event has completed. The {@code last} chunk marks the download done, whatever happened.
     */
    private void stageDownload(Staging staging, long ticket, boolean last, MemorySegment destination, LongToIntFunction dma,
            String call, Consumer<MemorySegment> unpack) {
        Staging.Chunk c = staging.take();
        int r = dma.applyAsInt(c.host);
        if (r == Cu.SUCCESS) {
            r = Cu.eventRecord(c.event, address);
        }
        if (r != Cu.SUCCESS) {
            staging.give(c);
            downloadTail = downloadTail.handle((v, e) -> {
                downloadsDone = ticket;
                return null;
            });
            Cu.check(r, call);
        }
        // handleAsync, not thenRunAsync: one chunk's failure must not stop the chunks and downloads after it
        downloadTail = downloadTail.handleAsync((v, previous) -> {
            try {
                if (staging.awaitEvent(c.event) == Cu.SUCCESS) {
                    unpack.accept(c.segment);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "staged download into " + destination + " failed", e);
            } finally {
                staging.give(c);
                if (last) {
                    downloadsDone = ticket;
                }
            }
            return null;
        }, staging.executor());
    }

    /** Whether every staged download enqueued up to {@code ticket} has reached the host. */
    boolean downloadsDone(long ticket) {
        return downloadsDone >= ticket;
    }

    /**
     * Waits until every staged download up to {@code ticket} has reached the host, for at most {@code timeoutNanos};
     * false at once if the context faulted (its markers report the fault).
     */
    boolean awaitDownloads(long ticket, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!downloadsDone(ticket)) {
            if (context.cu.isFaulted()) {
                return false;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(Math.min(left, 20_000));
        }
        return true;
    }

    private void refuseStagingDuringCapture() {
        if (capturing) {
            throw new IllegalStateException("a copy from or to host memory that is not pinned cannot be captured into a graph;"
                    + " use a HostBuffer (pinned) or register the memory");
        }
    }

    @Override
    public void copyDeviceToDevice(DeviceMemory source, long sourceOffset, DeviceMemory destination, long destinationOffset,
            long bytes) {
        context.cu.bind();
        Cu.check(Cu.memcpyDtoDAsync(destination.address() + destinationOffset, source.address() + sourceOffset, bytes, address),
                "cuMemcpyDtoDAsync");
    }

    @Override
    public void copyPeer(ContextHandle sourceContext, DeviceMemory source, long sourceOffset, ContextHandle destinationContext,
            DeviceMemory destination, long destinationOffset, long bytes) {
        context.cu.bind();
        long s = sourceContext.nativeHandle(); // the CUcontexts: no need to know the SPI classes behind them
        long d = destinationContext.nativeHandle();
        long dst = destination.address() + destinationOffset;
        long src = source.address() + sourceOffset;
        if (s == d) {
            Cu.check(Cu.memcpyDtoDAsync(dst, src, bytes, address), "cuMemcpyDtoDAsync");
        } else {
            Cu.check(Cu.memcpyPeerAsync(dst, d, src, s, bytes, address), "cuMemcpyPeerAsync");
        }
    }

    /** The {@code CUDA_MEMCPY2D} of 2-D copies, reused: enqueues are serialised by the public stream's lock. */
    private final MemorySegment copy2D;

    // Pinned host memory and device memory take one cuMemcpy2DAsync. Memory that is not pinned is packed, whole rows at a
    // time, into staging chunks (rows widthBytes apart there), each chunk then one cuMemcpy2DAsync in stream order: one
    // host copy and one DMA per 4 MiB rather than one staged copy per row. Rows wider than a chunk keep the staged row
    // path of the default, and so do pitches past the driver's limit (CU_DEVICE_ATTRIBUTE_MAX_PITCH, 2^31 - 1 bytes on
    // current GPUs).

    private static boolean nativePitches(long sourcePitch, long destinationPitch) {
        return sourcePitch <= Integer.MAX_VALUE && destinationPitch <= Integer.MAX_VALUE;
    }

    @Override
    public void copyHostToDevice2D(MemorySegment source, long sourcePitch, DeviceMemory destination, long destinationOffset,
            long destinationPitch, long widthBytes, long height) {
        boolean pinned = PinnedRanges.contains(source);
        if (!nativePitches(sourcePitch, destinationPitch) || !pinned && widthBytes > Staging.CHUNK) {
            super.copyHostToDevice2D(source, sourcePitch, destination, destinationOffset, destinationPitch,
                    widthBytes, height);
            return;
        }
        context.cu.bind();
        long dst = destination.address() + destinationOffset;
        if (pinned) {
            Cu.check(Cu.memcpy2DAsync(copy2D, Cu.MEMORYTYPE_HOST, source.address(), sourcePitch, Cu.MEMORYTYPE_DEVICE, dst,
                    destinationPitch, widthBytes, height, address), "cuMemcpy2DAsync");
            return;
        }
        refuseStagingDuringCapture();
        Staging staging = context.staging();
        long rowsPerChunk = Staging.CHUNK / widthBytes;
        for (long row = 0; row < height; row += rowsPerChunk) {
            long n = Math.min(rowsPerChunk, height - row);
            Staging.Chunk c = staging.take();
            for (long k = 0; k < n; k++) {
                MemorySegment.copy(source, (row + k) * sourcePitch, c.segment, k * widthBytes, widthBytes);
            }
            int r = Cu.memcpy2DAsync(copy2D, Cu.MEMORYTYPE_HOST, c.host, widthBytes, Cu.MEMORYTYPE_DEVICE,
                    dst + row * destinationPitch, destinationPitch, widthBytes, n, address);
            if (r != Cu.SUCCESS) {
                staging.give(c);
                Cu.check(r, "cuMemcpy2DAsync (staged)");
            }
            staging.releaseAfter(c, address);
        }
    }

    @Override
    public void copyDeviceToHost2D(DeviceMemory source, long sourceOffset, long sourcePitch, MemorySegment destination,
            long destinationPitch, long widthBytes, long height) {
        boolean pinned = PinnedRanges.contains(destination);
        if (!nativePitches(sourcePitch, destinationPitch) || !pinned && widthBytes > Staging.CHUNK) {
            super.copyDeviceToHost2D(source, sourceOffset, sourcePitch, destination, destinationPitch, widthBytes,
                    height);
            return;
        }
        context.cu.bind();
        long src = source.address() + sourceOffset;
        if (pinned) {
            Cu.check(Cu.memcpy2DAsync(copy2D, Cu.MEMORYTYPE_DEVICE, src, sourcePitch, Cu.MEMORYTYPE_HOST,
                    destination.address(), destinationPitch, widthBytes, height, address), "cuMemcpy2DAsync");
            return;
        }
        refuseStagingDuringCapture();
        // As copyDeviceToHost: DMAs into chunks in stream order, a staging thread unpacking each chunk's rows once its
        // DMA has finished, and the markers recorded after this copy waiting for that.
        Staging staging = context.staging();
        long ticket = ++downloadsEnqueued;
        long rowsPerChunk = Staging.CHUNK / widthBytes;
        for (long row = 0; row < height; row += rowsPerChunk) {
            long n = Math.min(rowsPerChunk, height - row);
            long first = row;
            stageDownload(staging, ticket, row + n >= height, destination,
                    host -> Cu.memcpy2DAsync(copy2D, Cu.MEMORYTYPE_DEVICE, src + first * sourcePitch, sourcePitch,
                            Cu.MEMORYTYPE_HOST, host, widthBytes, widthBytes, n, address),
                    "cuMemcpy2DAsync (staged)", chunk -> {
                        for (long k = 0; k < n; k++) {
                            MemorySegment.copy(chunk, k * widthBytes, destination, (first + k) * destinationPitch, widthBytes);
                        }
                    });
        }
    }

    @Override
    public void copyDeviceToDevice2D(DeviceMemory source, long sourceOffset, long sourcePitch, DeviceMemory destination,
            long destinationOffset, long destinationPitch, long widthBytes, long height) {
        if (!nativePitches(sourcePitch, destinationPitch)) {
            super.copyDeviceToDevice2D(source, sourceOffset, sourcePitch, destination, destinationOffset,
                    destinationPitch, widthBytes, height);
            return;
        }
        context.cu.bind();
        Cu.check(Cu.memcpy2DAsync(copy2D, Cu.MEMORYTYPE_DEVICE, source.address() + sourceOffset, sourcePitch,
                Cu.MEMORYTYPE_DEVICE, destination.address() + destinationOffset, destinationPitch, widthBytes, height, address),
                "cuMemcpy2DAsync");
    }

    // ---------------------------------------------------------------- memset

    @Override
    public void fill(DeviceMemory destination, long offset, long count, int elementBytes, long bits) {
        context.cu.bind();
        long dst = destination.address() + offset;
        if (elementBytes == 8) {
            int lo = (int) bits;
            int hi = (int) (bits >>> 32);
            if (lo == hi && (dst & 3) == 0) {
                Cu.check(Cu.memsetAsync(dst, 4, lo, count * 2, address), "cuMemsetD32Async");
                return;
            }
            long fill = context.builtinFunction("sluice_fill64");
            long blocks = Math.max(1, Math.min((count + 255) / 256, 65_535));
            argumentValues.set(J, 0, dst);
            argumentValues.set(J, 8, count);
            argumentValues.set(J, 16, bits);
            Cu.check(Cu.launchKernel(fill, (int) blocks, 1, 1, 256, 1, 1, 0, address, argumentPointers.address()),
                    "cuLaunchKernel (64-bit fill)");
            return;
        }
        Cu.check(Cu.memsetAsync(dst, elementBytes, (int) bits, count, address), "cuMemsetD" + elementBytes * 8 + "Async");
    }

    // ---------------------------------------------------------------- memory

    @Override
    public DeviceMemory allocate(long bytes) {
        context.cu.bind();
        if (context.memoryPools) {
            return new DeviceAllocation(Cu.memAllocAsync(bytes, address), bytes, true, context.cu.ordinal);
        }
        return new DeviceAllocation(Cu.memAlloc(bytes), bytes, false, context.cu.ordinal);
    }

    /**
     * Pooled memory (from either allocate) is freed in stream order with {@code cuMemFreeAsync}. Memory from
     * {@code cuMemAlloc}, used only where the device has no memory pools, cannot be: this stream is
     * synchronised first, then it is freed.
     */
    @Override
    public void free(DeviceMemory memory) {
        DeviceAllocation m = DeviceAllocation.of(memory);
        if (!m.claimFree()) {
            return; // freed already (or a module variable): a second free must not reach the driver
        }
        context.cu.bind();
        if (m.streamOrdered()) {
            Cu.check(Cu.memFreeAsync(m.address(), address), "cuMemFreeAsync");
        } else {
            Jc.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
            Cu.check(Cu.memFree(m.address()), "cuMemFree");
        }
    }

    // ---------------------------------------------------------------- kernels

    @Override
    public long nativeHandle() {
        return address;
    }

    @Override
    public void launch(FunctionHandle function, LaunchConfig config, LaunchArguments arguments) {
        CudaFunction f = (CudaFunction) function;
        context.cu.bind();
        int n = arguments.count();
        if (n > argumentCapacity) {
            growArguments(Math.max(n, argumentCapacity * 2));
        }
        MemorySegment values = argumentValues;
        for (int i = 0; i < n; i++) {
            long v = arguments.isPointer(i) ? arguments.memory(i).address() + arguments.byteOffset(i) : arguments.bits(i);
            values.set(J, 8L * i, v);
        }
        long shared = config.sharedMemoryBytes();
        if (shared > 48 * 1024) {
            f.ensureDynamicShared((int) shared);
        }
        int r;
        if (!config.hasCluster() && config.attributes().isEmpty()) {
            r = Cu.launchKernel(f.function, config.grid().x(), config.grid().y(), config.grid().z(), config.block().x(),
                    config.block().y(), config.block().z(), (int) shared, address, argumentPointers.address());
        } else {
            r = launchEx(f, config, (int) shared);
        }
        if (r != Cu.SUCCESS) {
            throw Cu.error(r, "cuLaunchKernel(" + f.name + ", grid " + config.grid() + ", block " + config.block()
                    + (config.hasCluster() ? ", cluster " + config.cluster() : "") + ", " + shared + " bytes shared)");
        }
    }

    /** cuLaunchKernelEx with the cluster dims and attributes written into this stream's CUlaunchConfig. */
    private int launchEx(CudaFunction f, LaunchConfig config, int shared) {
        MemorySegment c = launchConfig;
        c.fill((byte) 0);
        c.set(I, 0, config.grid().x());
        c.set(I, 4, config.grid().y());
        c.set(I, 8, config.grid().z());
        c.set(I, 12, config.block().x());
        c.set(I, 16, config.block().y());
        c.set(I, 20, config.block().z());
        c.set(I, 24, shared);
        c.set(J, 32, address);
        long attrs = c.address() + LAUNCH_CONFIG_BYTES;
        c.set(J, 40, attrs);
        int count = 0;
        if (config.hasCluster()) {
            long o = LAUNCH_CONFIG_BYTES + (long) count++ * LAUNCH_ATTRIBUTE_BYTES;
            c.set(I, o, 4); // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            c.set(I, o + 8, config.cluster().x());
            c.set(I, o + 12, config.cluster().y());
            c.set(I, o + 16, config.cluster().z());
        }
        List<LaunchAttribute> list = config.attributes();
        for (LaunchAttribute a : list) {
            if (count == MAX_ATTRIBUTES) {
                break;
            }
            long o = LAUNCH_CONFIG_BYTES + (long) count++ * LAUNCH_ATTRIBUTE_BYTES;
            switch (a) {
                case LaunchAttribute.ProgrammaticStreamSerialization p -> {
                    c.set(I, o, 6);
                    c.set(I, o + 8, p.allowed() ? 1 : 0);
                }
                case LaunchAttribute.Priority p -> {
                    c.set(I, o, 8);
                    c.set(I, o + 8, p.priority());
                }
                case LaunchAttribute.Cooperative p -> {
                    c.set(I, o, 2);
                    c.set(I, o + 8, p.cooperative() ? 1 : 0);
                }
            }
        }
        c.set(I, 48, count);
        return Cu.launchKernelEx(c.address(), f.function, argumentPointers.address());
    }

    // ---------------------------------------------------------------- events, markers, gates

    @Override
    public void record(EventHandle event) {
        NativeEvent.of(event).recordOn(address);
    }

    @Override
    public void waitEvent(EventHandle event) {
        NativeEvent.of(event).waitOn(address);
    }

    boolean isDestroyed() {
        return destroyed;
    }

    boolean isCapturing() {
        return capturing;
    }

    /** A completion marker recorded on this stream after everything enqueued so far ({@link CudaMarkers#record()}). */
    @Override
    public Marker recordMarker() {
        return staged(markers.record());
    }

    /** {@code m}, or, while staged downloads are on their way to the host, a marker that also waits for them. */
    private Marker staged(Marker m) {
        long t = downloadsEnqueued;
        return downloadsDone >= t ? m : new CudaStagedMarker(m, this, t);
    }

    @Override
    public void waitMarker(Marker marker) {
        context.cu.bind();
        if (marker instanceof CudaStagedMarker staged) {
            marker = staged.device; // device work needs the device's part only
        }
        ((EventMarker) marker).waitOn(address);
    }

    @Override
    public HostGate enqueueHostGate() {
        context.cu.bind();
        HostFlagSlots.Slot slot = context.flags.acquire();
        HostFlagGate gate = new HostFlagGate(context.flags, slot);
        if (!context.gateKernelOnly) {
            int r = Cu.streamWaitValue32(address, slot.device(), slot.target(), 0); // CU_STREAM_WAIT_VALUE_GEQ
            if (r == Cu.SUCCESS) {
                return gate;
            }
            if (r != Cu.ERROR_NOT_SUPPORTED && r != Cu.ERROR_INVALID_VALUE) {
                gate.open();
                throw Cu.error(r, "cuStreamWaitValue32 (host gate)");
            }
            context.gateKernelOnly = true; // the driver refuses stream memory operations: spin in a kernel instead
        }
        long wait = context.builtinFunction("sluice_gate_wait");
        argumentValues.set(J, 0, slot.device());
        argumentValues.set(J, 8, slot.target() & 0xFFFF_FFFFL);
        int r = Cu.launchKernel(wait, 1, 1, 1, 1, 1, 1, 0, address, argumentPointers.address());
        if (r != Cu.SUCCESS) {
            gate.open();
            throw Cu.error(r, "cuLaunchKernel (host gate)");
        }
        return gate;
    }

    @Override
    public void synchronize() {
        context.cu.bind();
        int r = JCudaDriver.cuStreamSynchronize(stream);
        if (r != Cu.SUCCESS) {
            if (Cu.isSticky(r)) {
                context.cu.markFaulted();
            }
            throw Cu.error(r, "cuStreamSynchronize");
        }
        awaitDownloads(downloadsEnqueued, Long.MAX_VALUE); // staged downloads still copying to the host
    }

    // ---------------------------------------------------------------- graphs

    @Override
    public void beginCapture() {
        context.cu.bind();
        Jc.check(JCudaDriver.cuStreamBeginCapture(stream, 2), "cuStreamBeginCapture"); // CU_STREAM_CAPTURE_MODE_RELAXED
        capturedSteps = new ArrayList<>();
        capturing = true;
    }

    /**
     * A captured {@code cuLaunchHostFunc}, which becomes a host node: each replay calls the step on the driver's
     * callback thread, through {@link HostNodes}.
     */
    @Override
    public void captureHostStep(Runnable step) {
        List<Long> steps = capturedSteps;
        if (steps == null) {
            throw new IllegalStateException("internal: a host step outside capture on " + this);
        }
        long key = context.hostNodes.add(step);
        context.cu.bind();
        int r = Cu.launchHostFunc(address, HostNodes.callback(Cu::upcallStub).address(), key);
        if (r != Cu.SUCCESS) {
            context.hostNodes.remove(List.of(key));
            throw Cu.error(r, "cuLaunchHostFunc");
        }
        steps.add(key);
    }

    @Override
    public GraphHandle endCapture() {
        context.cu.bind();
        capturing = false;
        List<Long> steps = capturedSteps == null ? List.of() : capturedSteps;
        capturedSteps = null;
        CudaContext c = context;
        CUgraph graph = new CUgraph();
        boolean made = false;
        try {
            Jc.check(JCudaDriver.cuStreamEndCapture(stream, graph), "cuStreamEndCapture");
            try {
                CUgraphExec exec = new CUgraphExec();
                Jc.check(JCudaDriver.cuGraphInstantiate(exec, graph, 0), "cuGraphInstantiate");
                NativeGraph g = new NativeGraph(Jc.address(exec), (x, s) -> {
                    c.cu.bind();
                    Cu.check(Cu.graphLaunch(x, s), "cuGraphLaunch");
                }, () -> {
                    if (!c.isClosed()) { // a closed context took its graphs with it
                        c.cu.bind();
                        JCudaDriver.cuGraphExecDestroy(exec);
                    }
                    c.hostNodes.remove(steps); // the public layer destroys a graph only once no replay runs its steps
                });
                made = true;
                return g;
            } finally {
                JCudaDriver.cuGraphDestroy(graph);
            }
        } finally {
            if (!made) {
                c.hostNodes.remove(steps);
            }
        }
    }

    @Override
    public void destroy() {
        if (!destroying.compareAndSet(false, true)) {
            return; // destroyed already, or by another thread now: cuStreamDestroy runs once
        }
        context.cu.bind();
        destroyed = true;
        markers.giveBackEvents();
        JCudaDriver.cuStreamDestroy(stream);
        markers.destroyMarkerStream();
        context.forget(this);
        arena.close();
    }

    @Override
    public String toString() {
        return "CudaStream[0x" + Long.toHexString(address) + " on " + context.description() + "]";
    }
}
