package dev.sluice.hip;

import dev.sluice.LaunchAttribute;
import dev.sluice.LaunchConfig;
import dev.sluice.SluiceException;
import dev.sluice.StreamOptions;
import dev.sluice.UnsupportedOnBackendException;
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
import dev.sluice.spi.support.StagingPool;
import dev.sluice.spi.support.StallWatch;
import dev.sluice.spi.support.StreamCounter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A HIP stream ({@code hipStreamCreateWithPriority}; the context's default stream is one too, non-blocking,
 * rather than HIP's null stream, whose implicit synchronisation Sluice never relies on). The public layer
 * serialises all calls on one stream under its lock, so the scratch memory, the launch block and the list
 * of pending host work need no locking of their own.
 *
 * <p>Host memory on the Java heap cannot be handed to the runtime: copies from it are staged through pinned
 * buffers ({@link StagingPool}) at the call, and copies to it land in a pinned buffer and are copied into the
 * array by the next completion marker, before the copy's future completes.
 */
final class HipStream extends DispatchingStream implements EventMarker.Events {

    private final HipContext context;
    private final HipApi api;
    final long handle;
    private final boolean isDefault;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment scratch = arena.allocate(16, 8);
    private final LaunchBlock block = new LaunchBlock();
    private @Nullable List<Runnable> pendingHostWork;
    private volatile boolean capturing; // read by pollers and waiting threads (StreamCounter)
    /** While capturing: the {@link HostNodes} keys of the host steps captured, released with the graph. */
    private @Nullable List<Long> capturedSteps;
    /** The number of this stream's last completion marker. */
    private long markerSequence;
    private final AtomicBoolean destroying = new AtomicBoolean();
    /** The counter this stream's markers are read from once armed, and its marker stream (as on CUDA: {@code CudaMarkers}). */
    private final StreamCounter counter;
    /** When a marker has stayed not done long enough to ask the runtime about it (counters only). */
    private final StallWatch stall = new StallWatch(StallWatch.FAULT_CHECK_NANOS);

    HipStream(HipContext context, StreamOptions options, boolean isDefault) {
        this.context = context;
        this.api = context.api;
        this.isDefault = isDefault;
        context.bind();
        this.handle = api.streamCreateWithPriority(options.nonBlocking() ? HipApiConstants.hipStreamNonBlocking
                : HipApiConstants.hipStreamDefault, options.priority());
        this.counter = new StreamCounter(context.counters, context.arming, new CounterWrites(), toString());
    }

    /** The runtime calls of this stream's counter: a marker stream, and a wait and a write on it per armed marker. */
    private final class CounterWrites implements StreamCounter.Writer {
        @Override
        public void bind() {
            context.bind();
        }

        @Override
        public long createStream() {
            return api.streamCreateWithPriority(HipApiConstants.hipStreamNonBlocking, 0);
        }

        @Override
        public void writeAfter(long stream, long event, long device, int value) {
            api.streamWaitEvent(stream, event);
            api.streamWriteValue32(stream, device, value);
        }

        @Override
        public boolean destroyStream(long stream) {
            try {
                api.streamSynchronize(stream);
            } catch (dev.sluice.DeviceException e) {
                return false; // a faulted device: the stream goes with the context
            }
            api.streamDestroy(stream);
            return true;
        }
    }

    private void addHostWork(Runnable r) {
        if (pendingHostWork == null) {
            pendingHostWork = new ArrayList<>(4);
        }
        pendingHostWork.add(r);
    }

    private void refuseHeapDuringCapture() {
        if (capturing) {
            throw new UnsupportedOnBackendException("copies between device memory and Java heap memory inside a captured graph"
                    + " are not supported on hip (they are staged through pinned memory by the host)");
        }
    }

    // ---------------------------------------------------------------- copies

    @Override
    public void copyHostToDevice(MemorySegment source, DeviceMemory destination, long destinationOffset, long bytes) {
        long dst = destination.address() + destinationOffset;
        if (source.isNative()) {
            api.memcpyHtoDAsync(dst, source.address(), bytes, handle);
            return;
        }
        refuseHeapDuringCapture();
        StagingPool staging = context.staging;
        for (long off = 0; off < bytes; ) {
            StagingPool.Buffer b = staging.acquire(bytes - off);
            long n = Math.min(b.capacity(), bytes - off);
            MemorySegment.copy(source, off, b.segment(), 0, n);
            try {
                api.memcpyHtoDAsync(dst + off, b.address(), n, handle);
            } catch (RuntimeException e) {
                staging.release(b);
                throw e;
            }
            addHostWork(() -> staging.release(b));
            off += n;
        }
    }

    @Override
    public void copyDeviceToHost(DeviceMemory source, long sourceOffset, MemorySegment destination, long bytes) {
        long src = source.address() + sourceOffset;
        if (destination.isNative()) {
            api.memcpyDtoHAsync(destination.address(), src, bytes, handle);
            return;
        }
        refuseHeapDuringCapture();
        StagingPool staging = context.staging;
        for (long off = 0; off < bytes; ) {
            StagingPool.Buffer b = staging.acquire(bytes - off);
            long n = Math.min(b.capacity(), bytes - off);
            try {
                api.memcpyDtoHAsync(b.address(), src + off, n, handle);
            } catch (RuntimeException e) {
                staging.release(b);
                throw e;
            }
            long at = off;
            addHostWork(() -> {
                MemorySegment.copy(b.segment(), 0, destination, at, n);
                staging.release(b);
            });
            off += n;
        }
    }

    @Override
    public void copyDeviceToDevice(DeviceMemory source, long sourceOffset, DeviceMemory destination, long destinationOffset,
            long bytes) {
        api.memcpyDtoDAsync(destination.address() + destinationOffset, source.address() + sourceOffset, bytes, handle);
    }

    // Native host memory (pinned, registered or pageable: HIP copies from all of them) and device memory take one
    // hipMemcpy2DAsync. Java heap memory is packed, whole rows at a time, into staging buffers (rows widthBytes apart
    // there), each buffer then one hipMemcpy2DAsync in stream order: one host copy and one DMA per buffer rather than one
    // staged copy per row. Rows wider than the largest staging buffer keep the staged row path of the default, and so do
    // pitches past the runtime's limit (hipDeviceAttributeMaxPitch, 2^31 - 1 bytes on current GPUs).

    private static boolean nativePitches(long sourcePitch, long destinationPitch) {
        return sourcePitch <= Integer.MAX_VALUE && destinationPitch <= Integer.MAX_VALUE;
    }

    @Override
    public void copyHostToDevice2D(MemorySegment source, long sourcePitch, DeviceMemory destination, long destinationOffset,
            long destinationPitch, long widthBytes, long height) {
        if (!nativePitches(sourcePitch, destinationPitch) || !source.isNative() && widthBytes > context.staging.largest()) {
            super.copyHostToDevice2D(source, sourcePitch, destination, destinationOffset, destinationPitch,
                    widthBytes, height);
            return;
        }
        long dst = destination.address() + destinationOffset;
        if (source.isNative()) {
            api.memcpy2DAsync(dst, destinationPitch, source.address(), sourcePitch, widthBytes, height,
                    HipApiConstants.hipMemcpyHostToDevice, handle);
            return;
        }
        refuseHeapDuringCapture();
        StagingPool staging = context.staging;
        for (long row = 0; row < height; ) {
            StagingPool.Buffer b = staging.acquire((height - row) * widthBytes);
            long n = Math.min(b.capacity() / widthBytes, height - row);
            for (long k = 0; k < n; k++) {
                MemorySegment.copy(source, (row + k) * sourcePitch, b.segment(), k * widthBytes, widthBytes);
            }
            try {
                api.memcpy2DAsync(dst + row * destinationPitch, destinationPitch, b.address(), widthBytes, widthBytes, n,
                        HipApiConstants.hipMemcpyHostToDevice, handle);
            } catch (RuntimeException e) {
                staging.release(b);
                throw e;
            }
            addHostWork(() -> staging.release(b));
            row += n;
        }
    }

    @Override
    public void copyDeviceToHost2D(DeviceMemory source, long sourceOffset, long sourcePitch, MemorySegment destination,
            long destinationPitch, long widthBytes, long height) {
        if (!nativePitches(sourcePitch, destinationPitch)
                || !destination.isNative() && widthBytes > context.staging.largest()) {
            super.copyDeviceToHost2D(source, sourceOffset, sourcePitch, destination, destinationPitch, widthBytes,
                    height);
            return;
        }
        long src = source.address() + sourceOffset;
        if (destination.isNative()) {
            api.memcpy2DAsync(destination.address(), destinationPitch, src, sourcePitch, widthBytes, height,
                    HipApiConstants.hipMemcpyDeviceToHost, handle);
            return;
        }
        refuseHeapDuringCapture();
        // As copyDeviceToHost: the next completion marker unpacks each buffer's rows into the array, then frees it.
        StagingPool staging = context.staging;
        for (long row = 0; row < height; ) {
            StagingPool.Buffer b = staging.acquire((height - row) * widthBytes);
            long n = Math.min(b.capacity() / widthBytes, height - row);
            try {
                api.memcpy2DAsync(b.address(), widthBytes, src + row * sourcePitch, sourcePitch, widthBytes, n,
                        HipApiConstants.hipMemcpyDeviceToHost, handle);
            } catch (RuntimeException e) {
                staging.release(b);
                throw e;
            }
            long first = row;
            addHostWork(() -> {
                for (long k = 0; k < n; k++) {
                    MemorySegment.copy(b.segment(), k * widthBytes, destination, (first + k) * destinationPitch, widthBytes);
                }
                staging.release(b);
            });
            row += n;
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
        api.memcpy2DAsync(destination.address() + destinationOffset, destinationPitch, source.address() + sourceOffset,
                sourcePitch, widthBytes, height, HipApiConstants.hipMemcpyDeviceToDevice, handle);
    }

    @Override
    public void copyPeer(ContextHandle sourceContext, DeviceMemory source, long sourceOffset, ContextHandle destinationContext,
            DeviceMemory destination, long destinationOffset, long bytes) {
        int srcDevice = ((HipContext) sourceContext).device;
        int dstDevice = ((HipContext) destinationContext).device;
        long src = source.address() + sourceOffset;
        long dst = destination.address() + destinationOffset;
        if (srcDevice == dstDevice) {
            api.memcpyDtoDAsync(dst, src, bytes, handle);
        } else {
            api.memcpyPeerAsync(dst, dstDevice, src, srcDevice, bytes, handle);
        }
    }

    // ---------------------------------------------------------------- memsets

    /**
     * {@code hipMemsetD8/D16/D32Async}; a 64-bit pattern whose halves are equal is a 32-bit fill of twice the
     * count, and any other runs the internal fill kernel (compiled with hiprtc on first use).
     */
    @Override
    public void fill(DeviceMemory destination, long offset, long count, int elementBytes, long bits) {
        long dst = destination.address() + offset;
        switch (elementBytes) {
            case 1 -> api.memsetD8Async(dst, (byte) bits, count, handle);
            case 2 -> api.memsetD16Async(dst, (short) bits, count, handle);
            case 4 -> api.memsetD32Async(dst, (int) bits, count, handle);
            case 8 -> {
                if ((int) bits == (int) (bits >>> 32)) {
                    api.memsetD32Async(dst, (int) bits, count * 2, handle);
                } else {
                    HipModule f = context.fill64();
                    long blocks = Math.min((count + 255) / 256, 65_535);
                    long params = block.fill(dst, bits, count);
                    api.moduleLaunchKernel(f.function, (int) blocks, 1, 1, 256, 1, 1, 0, handle, params);
                }
            }
            default -> throw new IllegalArgumentException("element size " + elementBytes);
        }
    }

    // ---------------------------------------------------------------- stream-ordered memory

    @Override
    public DeviceMemory allocate(long bytes) {
        if (context.memoryPools) {
            return new DeviceAllocation(allocatePooled(bytes), bytes, true, context.device);
        }
        return context.allocate(bytes);
    }

    /** {@code hipMallocAsync} on this stream; the caller holds the stream's lock (or owns the stream). */
    long allocatePooled(long bytes) {
        return api.mallocAsync(bytes, handle, scratch);
    }

    /**
     * {@code hipFreeAsync} for memory from {@code hipMallocAsync}; memory from {@code hipMalloc} is freed by the
     * context's reaper thread once the work enqueued here so far has finished.
     */
    @Override
    public void free(DeviceMemory memory) {
        if (capturing) {
            throw new UnsupportedOnBackendException("freeing memory inside a captured graph is not supported on hip");
        }
        DeviceAllocation m = DeviceAllocation.of(memory);
        if (!m.claimFree()) {
            return; // freed already (or a module variable): a second free must not reach the runtime
        }
        if (m.streamOrdered()) {
            api.freeAsync(m.address(), handle);
        } else {
            long p = m.address();
            context.reaper.afterStream(handle, () -> api.free(p));
        }
    }

    // ---------------------------------------------------------------- launches

    @Override
    public void launch(FunctionHandle function, LaunchConfig config, LaunchArguments arguments) {
        HipModule f = (HipModule) function;
        if (config.hasCluster()) {
            throw new UnsupportedOnBackendException("thread-block clusters (cluster dims " + config.cluster()
                    + ") are not supported on hip");
        }
        boolean cooperative = false;
        for (LaunchAttribute a : config.attributes()) {
            switch (a) {
                case LaunchAttribute.Cooperative c -> cooperative |= c.cooperative();
                case LaunchAttribute.ProgrammaticStreamSerialization p -> {
                    if (p.allowed()) {
                        throw new UnsupportedOnBackendException("programmatic dependent launch is not supported on hip");
                    }
                }
                case LaunchAttribute.Priority p -> throw new UnsupportedOnBackendException(
                        "a per-launch priority is not supported on hip (create the stream with a priority instead)");
            }
        }
        long params = block.fill(arguments);
        var g = config.grid();
        var b = config.block();
        int shared = (int) config.sharedMemoryBytes();
        if (cooperative) {
            if (!api.lib.has(HipApiSymbol.hipModuleLaunchCooperativeKernel)) {
                throw new UnsupportedOnBackendException("cooperative launch is not supported on hip here: "
                        + context.backend.libraryName() + " has no hipModuleLaunchCooperativeKernel (HIP 6 and later)");
            }
            api.moduleLaunchCooperativeKernel(f.function, g.x(), g.y(), g.z(), b.x(), b.y(), b.z(), shared, handle, params);
        } else {
            api.moduleLaunchKernel(f.function, g.x(), g.y(), g.z(), b.x(), b.y(), b.z(), shared, handle, params);
        }
    }

    // ---------------------------------------------------------------- events, markers, gates

    @Override
    public void record(EventHandle event) {
        NativeEvent.of(event).recordOn(handle);
    }

    @Override
    public void waitEvent(EventHandle event) {
        NativeEvent.of(event).waitOn(handle);
    }

    @Override
    public Marker recordMarker() {
        long event = context.markerEvents.take();
        try {
            api.eventRecord(event, handle);
        } catch (RuntimeException e) {
            context.markerEvents.give(event);
            throw e;
        }
        List<Runnable> work = pendingHostWork;
        pendingHostWork = null;
        long sequence = ++markerSequence;
        counter.recorded(event, sequence, capturing); // the runtime's device is current here: the record just succeeded
        return new EventMarker(this, sequence, event, work);
    }

    /**
     * Whether marker {@code sequence} is done. Armed ({@link StreamCounter}), one read of host memory, and only once the
     * marker has stayed not done for {@link StallWatch#FAULT_CHECK_NANOS} one {@code hipEventQuery} (a faulted device
     * never writes the counter; the query reports the fault). Not armed, one {@code hipEventQuery}, after which the
     * counter may arm it ({@link StreamCounter#polledNotDone}).
     */
    @Override
    public boolean isComplete(long event, long sequence) {
        if (counter.isArmed(sequence)) {
            if (counter.reached(sequence)) {
                return true;
            }
            if (stall.due(sequence, System.nanoTime()) && eventComplete(event)) {
                counter.seenDone(sequence);
                return true;
            }
            return false;
        }
        if (eventComplete(event)) {
            counter.seenDone(sequence);
            return true;
        }
        counter.polledNotDone(event, sequence, capturing || destroying.get());
        return false;
    }

    /** A thread is about to wait for marker {@code sequence}: the counter may arm it now ({@link StreamCounter#awaited}). */
    @Override
    public void awaited(long event, long sequence) {
        counter.awaited(event, sequence, capturing || destroying.get());
    }

    /** One {@code hipEventQuery}; an error status is noted on the context (a sticky one faults the device) and thrown. */
    private boolean eventComplete(long event) {
        int r = api.eventQuery(event);
        if (r == HipApiConstants.hipSuccess) {
            return true;
        }
        if (r == HipApiConstants.hipErrorNotReady) {
            return false;
        }
        context.noteStatus(r);
        throw HipApiErrors.exception(api, "hipEventQuery (completion marker on " + context + ")", r, -1);
    }

    @Override
    public void waitOnDevice(long stream, long event) {
        api.streamWaitEvent(stream, event);
    }

    @Override
    public void recycle(long event) {
        context.markerEvents.give(event);
    }

    @Override
    public void waitMarker(Marker marker) {
        ((EventMarker) marker).waitOn(handle);
    }

    @Override
    public HostGate enqueueHostGate() {
        if (!context.streamWaitValue) {
            throw new UnsupportedOnBackendException("host gates (waits on host stages, host functions in stream order) need"
                    + " hipStreamWaitValue32, which " + context.name() + " does not support (hipDeviceAttributeCanUseStreamWaitValue"
                    + " is 0) on hip");
        }
        HostFlagSlots.Slot slot = context.gates.acquire();
        try {
            api.streamWaitValue32(handle, slot.device(), slot.target(), HipApiConstants.hipStreamWaitValueGte, 0xFFFF_FFFF);
        } catch (RuntimeException e) {
            context.gates.open(slot); // nothing waits on it: give it back
            throw e;
        }
        return new HostFlagGate(context.gates, slot);
    }

    @Override
    public void synchronize() {
        try {
            api.streamSynchronize(handle);
        } catch (SluiceException e) {
            e.errorCode().ifPresent(context::noteStatus);
            throw e;
        }
    }

    // ---------------------------------------------------------------- graphs

    /** Relaxed capture mode: other threads (the completion thread querying markers) may go on calling HIP. */
    @Override
    public void beginCapture() {
        api.streamBeginCapture(handle, HipApiConstants.hipStreamCaptureModeRelaxed);
        capturedSteps = new ArrayList<>();
        capturing = true;
    }

    /**
     * A captured {@code hipLaunchHostFunc}, which becomes a host node: each replay calls the step on the runtime's
     * callback thread, through {@link HostNodes}. A runtime without it, or one that refuses it during capture, is
     * reported as unsupported.
     */
    @Override
    public void captureHostStep(Runnable step) {
        List<Long> steps = capturedSteps;
        if (steps == null) {
            throw new IllegalStateException("internal: a host step outside capture on " + this);
        }
        long key = context.hostNodes.add(step);
        int status;
        try {
            status = api.launchHostFunc(handle, HostNodes.callback(HipApi::upcallStub).address(), key);
        } catch (RuntimeException e) {
            context.hostNodes.remove(List.of(key));
            throw e;
        }
        if (status != HipApiConstants.hipSuccess) {
            context.hostNodes.remove(List.of(key));
            if (status == HipApiConstants.hipErrorStreamCaptureUnsupported || status == HipApiConstants.hipErrorNotSupported) {
                throw new UnsupportedOnBackendException("host functions and host waits inside a captured graph are not"
                        + " supported on hip: this runtime refuses hipLaunchHostFunc during stream capture (error " + status + ")");
            }
            api.check(status, "hipLaunchHostFunc");
        }
        steps.add(key);
    }

    @Override
    public GraphHandle endCapture() {
        capturing = false;
        List<Long> steps = capturedSteps == null ? List.of() : capturedSteps;
        capturedSteps = null;
        HipContext c = context;
        long graph;
        long exec;
        try {
            graph = api.streamEndCapture(handle);
            try {
                exec = api.graphInstantiate(graph);
            } catch (RuntimeException e) {
                api.graphDestroy(graph);
                throw e;
            }
        } catch (RuntimeException e) {
            c.hostNodes.remove(steps);
            throw e;
        }
        HipApi a = api;
        return new NativeGraph(exec, a::graphLaunch, () -> {
            try {
                a.graphExecDestroy(exec);
            } finally {
                a.graphDestroy(graph);
                c.hostNodes.remove(steps); // the public layer destroys a graph only once no replay runs its steps
            }
        });
    }

    @Override
    public long nativeHandle() {
        return handle;
    }

    /** Idempotent and safe from any thread: {@code hipStreamDestroy} runs once. */
    @Override
    public void destroy() {
        if (!destroying.compareAndSet(false, true)) {
            return;
        }
        context.streams.remove(this);
        try {
            api.streamDestroy(handle);
        } catch (dev.sluice.DeviceException e) {
            // after a device fault the runtime reports the fault here too; the stream goes with the context, and
            // closing must not fail for it (as on CUDA, whose cuStreamDestroy result is not checked)
        } finally {
            destroyMarkerStream();
            block.close();
            arena.close();
        }
    }

    /**
     * Stops arming, synchronises and destroys the marker stream, then gives the counter back
     * ({@link StreamCounter#close()}).
     */
    private void destroyMarkerStream() {
        counter.close();
    }

    @Override
    public String toString() {
        return "HipStream[" + (isDefault ? "default, " : "") + "device " + context.device + "]";
    }
}
