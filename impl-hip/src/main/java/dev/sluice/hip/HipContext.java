package dev.sluice.hip;

import dev.sluice.ComputeCapability;
import dev.sluice.ContextFlag;
import dev.sluice.ContextOptions;
import dev.sluice.DeviceAttribute;
import dev.sluice.EventFlag;
import dev.sluice.Kernel;
import dev.sluice.Limit;
import dev.sluice.MemoryInfo;
import dev.sluice.PriorityRange;
import dev.sluice.SluiceException;
import dev.sluice.StreamOptions;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.HostMemory;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.UpdatableGraph;
import dev.sluice.spi.WorkStep;
import dev.sluice.spi.support.CompletionCounters;
import dev.sluice.spi.support.DeviceAllocation;
import dev.sluice.spi.support.EventPool;
import dev.sluice.spi.support.HostFlagSlots;
import dev.sluice.spi.support.HostNodes;
import dev.sluice.spi.support.NativeEvent;
import dev.sluice.spi.support.PinnedHostMemory;
import dev.sluice.spi.support.StagingPool;
import dev.sluice.spi.support.StreamCounter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One HIP device. HIP has one context per device and process (the "primary" one), and a current device per
 * OS thread: calls that act on "the current device" ({@code hipMalloc}, creating streams and events, loading
 * modules, compiling) are preceded by {@link #bind()} ({@code hipSetDevice}) on the calling thread, in the
 * same method, with nothing in between that could move a virtual thread to another carrier. Calls that name
 * a stream need no binding. {@link ContextOptions#primaryContext()} has no meaning on HIP: every context of
 * a device shares that device's state, and a fault of one faults them all.
 */
final class HipContext implements ContextHandle {

    private static final Logger LOG = System.getLogger(HipContext.class.getName());
    /** The smallest staging buffer. */
    static final long STAGING_SMALLEST = 64L << 10;
    /** The largest staging buffer: a longer copy goes through several. */
    static final long STAGING_LARGEST = 8L << 20;

    final HipBackend backend;
    final HipApi api;
    /** The host steps of this context's graphs, found by the runtime's host-node callback; forgotten at close. */
    final HostNodes hostNodes = new HostNodes();
    final int device;
    private final String name;
    private final ComputeCapability capability;
    final boolean memoryPools;
    final boolean streamWaitValue;
    /** The runtime's events on this device, as the kit's pool and user events call them. */
    final RuntimeEvents events;
    final EventPool markerEvents;
    final HostFlagSlots gates;
    /**
     * How many streams may have a marker stream (and a counter) at once: half of the 8 hardware queues a CUDA context
     * gets by default, and as many as the 4 an AMD device gives a process by default ({@code GPU_MAX_HW_QUEUES}), so
     * that marker streams do not share queues with more work streams than they must ({@code CompletionCounters}).
     */
    private static final int MARKER_STREAMS = 4;
    /**
     * The streams' completion counters, or null where completion is learned by querying events: the runtime has no
     * {@code hipStreamWriteValue32} or refused it when the context opened, or {@code -Dsluice.completion=events}.
     */
    final @Nullable CompletionCounters counters;
    /** When the streams' markers have their counter written ({@link StreamCounter.Arming}); a knob for measuring. */
    final StreamCounter.Arming arming;
    /** How this context's futures learn completion, in words ({@link #completion()}). */
    private final String completion;
    /**
     * Pinned buffers for copies from and to the Java heap: powers of two from 64 KiB to 8 MiB, as many as the copies
     * in flight need (an enqueue never waits for the device: it could deadlock behind a stream gated on host work).
     */
    final StagingPool staging;
    final Reaper reaper;
    private final HipStream defaultStream;
    /** Where synchronous allocations are made from the memory pool (never gated, so waiting on it is short). */
    private final @Nullable HipStream allocationStream;
    /** Every live stream of this context: {@link #synchronize()} waits for these, not for the whole device. */
    final Set<HipStream> streams = ConcurrentHashMap.newKeySet();
    /** Repeated work's graphs not yet destroyed: HIP keeps them past the context, so {@link #close()} destroys them. */
    final Set<HipReplayGraph> replayGraphs = ConcurrentHashMap.newKeySet();
    private volatile @Nullable HipModule fill64;
    private volatile boolean faulted;
    private final AtomicBoolean closing = new AtomicBoolean();

    HipContext(HipBackend backend, HipApi api, int device, ContextOptions options) {
        if (!options.contextFlags().isEmpty()) {
            // hipSetDeviceFlags applies once per process and device, before the device's first use: not per context.
            throw new UnsupportedOnBackendException("context flags " + options.contextFlags() + " on HIP (HIP sets such"
                    + " flags once per process and device, before first use, with hipSetDeviceFlags; open without them)");
        }
        this.backend = backend;
        this.api = api;
        this.device = device;
        bind();
        this.name = api.deviceName(device);
        this.capability = new ComputeCapability(attr(HipApiConstants.hipDeviceAttributeComputeCapabilityMajor, 0),
                attr(HipApiConstants.hipDeviceAttributeComputeCapabilityMinor, 0));
        this.memoryPools = attr(HipApiConstants.hipDeviceAttributeMemoryPoolsSupported, 0) != 0;
        this.streamWaitValue = attr(HipApiConstants.hipDeviceAttributeCanUseStreamWaitValue, 0) != 0;
        this.events = new RuntimeEvents(api, device, this::noteStatus);
        this.markerEvents = new EventPool(events);
        RuntimePinnedMemory pinned = new RuntimePinnedMemory(api, device);
        this.gates = new HostFlagSlots(pinned);
        this.staging = new StagingPool(pinned, STAGING_SMALLEST, STAGING_LARGEST, Integer.MAX_VALUE);
        this.reaper = new Reaper(api, device, markerEvents);
        CompletionCounters probed = null;
        String how;
        this.arming = StreamCounter.Arming.of(System.getProperty(dev.sluice.SluiceProperties.Measurement.COMPLETION, ""));
        if (arming == StreamCounter.Arming.EVENTS) {
            how = "event queries (hipEventQuery), as -D" + dev.sluice.SluiceProperties.Measurement.COMPLETION + "=events asks";
        } else if (!api.lib.has(HipApiSymbol.hipStreamWriteValue32)) {
            how = "event queries (hipEventQuery): " + backend.libraryName() + " has no hipStreamWriteValue32";
        } else {
            CompletionCounters c = new CompletionCounters(pinned, MARKER_STREAMS);
            // On a stream of its own, before the context's streams are made: each reads the counters when made.
            long probeStream = api.streamCreateWithPriority(HipApiConstants.hipStreamNonBlocking, 0);
            String refused;
            try {
                refused = c.probe((address, value) -> {
                    api.streamWriteValue32(probeStream, address, value);
                    api.streamSynchronize(probeStream);
                });
            } finally {
                api.streamDestroy(probeStream);
            }
            if (refused == null) {
                probed = c;
                how = "device-written counters in host-mapped memory (hipStreamWaitEvent + hipStreamWriteValue32 on a marker"
                        + " stream) for up to " + MARKER_STREAMS + " streams at once, event queries for the others";
            } else {
                c.destroy();
                how = "event queries (hipEventQuery): " + refused;
            }
        }
        this.counters = probed;
        this.completion = how;
        this.defaultStream = new HipStream(this, new StreamOptions(true, 0), true);
        this.allocationStream = memoryPools ? new HipStream(this, new StreamOptions(true, 0), false) : null;
        streams.add(defaultStream);
    }


    /** How this context's futures learn completion, in words, for {@code sluice check} and diagnostics. */
    @Override
    public String completion() {
        return completion;
    }

    /** Makes this context's device current on the calling thread. */
    void bind() {
        api.setDevice(device);
    }

    private int attr(int attribute, int fallback) {
        try {
            return api.deviceAttribute(attribute, device);
        } catch (SluiceException e) {
            return fallback;
        }
    }

    /** Notes an error status seen anywhere on this device: a sticky one means the device must be reset. */
    void noteStatus(int status) {
        if (HipApiErrors.isSticky(status)) {
            faulted = true;
            backend.markFaulted(device);
        }
    }

    /** What identifies the device's code: name, compute capability, gfx number where HIP reports it, runtime. */
    String archKey() {
        int gcn = attr(HipApiConstants.hipDeviceAttributeGcnArch, -1);
        return name + "|cc " + capability + "|gcn " + gcn + "|hip " + backend.runtimeVersion();
    }

    // ---------------------------------------------------------------- properties

    @Override
    public String name() {
        return name;
    }

    @Override
    public String driverVersion() {
        return "HIP " + HipBackend.shortVersion(backend.runtimeVersion());
    }

    @Override
    public ComputeCapability computeCapability() {
        return capability;
    }

    @Override
    public long attribute(DeviceAttribute attribute) {
        int a = switch (attribute) {
            case MAX_THREADS_PER_BLOCK -> HipApiConstants.hipDeviceAttributeMaxThreadsPerBlock;
            case MAX_BLOCK_DIM_X -> HipApiConstants.hipDeviceAttributeMaxBlockDimX;
            case MAX_BLOCK_DIM_Y -> HipApiConstants.hipDeviceAttributeMaxBlockDimY;
            case MAX_BLOCK_DIM_Z -> HipApiConstants.hipDeviceAttributeMaxBlockDimZ;
            case MAX_GRID_DIM_X -> HipApiConstants.hipDeviceAttributeMaxGridDimX;
            case MAX_GRID_DIM_Y -> HipApiConstants.hipDeviceAttributeMaxGridDimY;
            case MAX_GRID_DIM_Z -> HipApiConstants.hipDeviceAttributeMaxGridDimZ;
            case MAX_SHARED_MEMORY_PER_BLOCK -> HipApiConstants.hipDeviceAttributeMaxSharedMemoryPerBlock;
            case MAX_SHARED_MEMORY_PER_BLOCK_OPTIN -> HipApiConstants.hipDeviceAttributeSharedMemPerBlockOptin;
            case TOTAL_CONSTANT_MEMORY -> HipApiConstants.hipDeviceAttributeTotalConstantMemory;
            case WARP_SIZE -> HipApiConstants.hipDeviceAttributeWarpSize;
            case MAX_REGISTERS_PER_BLOCK -> HipApiConstants.hipDeviceAttributeMaxRegistersPerBlock;
            case CLOCK_RATE_KHZ -> HipApiConstants.hipDeviceAttributeClockRate;
            case MEMORY_CLOCK_RATE_KHZ -> HipApiConstants.hipDeviceAttributeMemoryClockRate;
            case GLOBAL_MEMORY_BUS_WIDTH -> HipApiConstants.hipDeviceAttributeMemoryBusWidth;
            case L2_CACHE_SIZE -> HipApiConstants.hipDeviceAttributeL2CacheSize;
            case MULTIPROCESSOR_COUNT -> HipApiConstants.hipDeviceAttributeMultiprocessorCount;
            case MAX_THREADS_PER_MULTIPROCESSOR -> HipApiConstants.hipDeviceAttributeMaxThreadsPerMultiProcessor;
            case COMPUTE_CAPABILITY_MAJOR -> HipApiConstants.hipDeviceAttributeComputeCapabilityMajor;
            case COMPUTE_CAPABILITY_MINOR -> HipApiConstants.hipDeviceAttributeComputeCapabilityMinor;
            case ASYNC_ENGINE_COUNT -> HipApiConstants.hipDeviceAttributeAsyncEngineCount;
            case CONCURRENT_KERNELS -> HipApiConstants.hipDeviceAttributeConcurrentKernels;
            case INTEGRATED -> HipApiConstants.hipDeviceAttributeIntegrated;
            case CAN_MAP_HOST_MEMORY -> HipApiConstants.hipDeviceAttributeCanMapHostMemory;
            case UNIFIED_ADDRESSING -> HipApiConstants.hipDeviceAttributeUnifiedAddressing;
            case MANAGED_MEMORY -> HipApiConstants.hipDeviceAttributeManagedMemory;
            case MEMORY_POOLS_SUPPORTED -> HipApiConstants.hipDeviceAttributeMemoryPoolsSupported;
            case COOPERATIVE_LAUNCH -> HipApiConstants.hipDeviceAttributeCooperativeLaunch;
            case PCI_BUS_ID -> HipApiConstants.hipDeviceAttributePciBusId;
            case PCI_DEVICE_ID -> HipApiConstants.hipDeviceAttributePciDeviceId;
            case PCI_DOMAIN_ID -> HipApiConstants.hipDeviceAttributePciDomainID;
            case ECC_ENABLED -> HipApiConstants.hipDeviceAttributeEccEnabled;
            case COMPUTE_MODE -> HipApiConstants.hipDeviceAttributeComputeMode;
            case CLUSTER_LAUNCH -> -1; // HIP has no thread-block clusters: the honest answer is "no"
        };
        if (a < 0) {
            return 0;
        }
        try {
            return api.deviceAttribute(a, device);
        } catch (SluiceException e) {
            if (e.errorCode().orElse(-1) == HipApiConstants.hipErrorInvalidValue || e instanceof UnsupportedOnBackendException) {
                throw new UnsupportedOnBackendException("attribute " + attribute + " is not supported on hip (" + e.getMessage() + ")");
            }
            throw e;
        }
    }

    @Override
    public MemoryInfo memoryInfo() {
        bind();
        long[] fm = api.memGetInfo();
        return new MemoryInfo(fm[0], fm[1]);
    }

    private static int limitCode(Limit limit) {
        return switch (limit) {
            case STACK_SIZE -> 0; // hipLimitStackSize: HIP 6 and later; HIP 5 answers hipErrorUnsupportedLimit
            case PRINTF_FIFO_SIZE -> HipApiConstants.hipLimitPrintfFifoSize;
            case MALLOC_HEAP_SIZE -> HipApiConstants.hipLimitMallocHeapSize;
            default -> throw new UnsupportedOnBackendException("limit " + limit + " is not supported on hip");
        };
    }

    @Override
    public long limit(Limit limit) {
        int code = limitCode(limit);
        bind();
        long v = api.deviceGetLimitOrNegatedStatus(code);
        if (v < 0) {
            int status = (int) -v;
            if (status == HipApiConstants.hipErrorUnsupportedLimit || status == HipApiConstants.hipErrorInvalidValue
                    || status == HipApiConstants.hipErrorNotSupported) {
                throw new UnsupportedOnBackendException("limit " + limit + " is not supported on hip (hipDeviceGetLimit answered "
                        + api.errorName(status) + ")");
            }
            throw HipApiErrors.exception(api, "hipDeviceGetLimit(" + limit + ")", status, -1);
        }
        return v;
    }

    @Override
    public void setLimit(Limit limit, long value) {
        int code = limitCode(limit);
        if (!api.lib.has(HipApiSymbol.hipDeviceSetLimit)) {
            throw new UnsupportedOnBackendException("setting limit " + limit + " is not supported on hip: " + backend.libraryName()
                    + " has no hipDeviceSetLimit (HIP 5.3 and later)");
        }
        bind();
        int status = api.deviceSetLimit(code, value);
        if (status == HipApiConstants.hipErrorUnsupportedLimit || status == HipApiConstants.hipErrorNotSupported) {
            throw new UnsupportedOnBackendException("setting limit " + limit + " is not supported on hip (hipDeviceSetLimit answered "
                    + api.errorName(status) + ")");
        }
        if (status != HipApiConstants.hipSuccess) {
            throw HipApiErrors.exception(api, "hipDeviceSetLimit(" + limit + ", " + value + ")", status, -1);
        }
    }

    @Override
    public boolean canAccessPeer(ContextHandle peer) {
        HipContext p = (HipContext) peer;
        return p.device == device || api.deviceCanAccessPeer(device, p.device);
    }

    @Override
    public void enablePeerAccess(ContextHandle peer) {
        HipContext p = (HipContext) peer;
        if (p.device == device) {
            return; // two contexts of one device share its memory
        }
        bind();
        api.deviceEnablePeerAccess(p.device);
    }

    @Override
    public Set<ContextFlag> contextFlags() {
        return Set.of();
    }

    @Override
    public void profiler(boolean start) {
        bind();
        api.profiler(start);
    }

    @Override
    public long nativeHandle() {
        throw new UnsupportedOnBackendException("a native context handle on HIP (HIP has one implicit context per device and"
                + " process; other libraries use the device, " + device + ", and the stream handle)");
    }

    @Override
    public PriorityRange streamPriorityRange() {
        bind();
        int[] r = api.deviceStreamPriorityRange();
        return new PriorityRange(r[0], r[1]);
    }

    // ---------------------------------------------------------------- streams and events

    @Override
    public StreamHandle defaultStream() {
        return defaultStream;
    }

    @Override
    public StreamHandle createStream(StreamOptions options) {
        HipStream s = new HipStream(this, options, false);
        streams.add(s);
        return s;
    }

    @Override
    public EventHandle createEvent(Set<EventFlag> flags) {
        int f = (flags.contains(EventFlag.TIMING) ? HipApiConstants.hipEventDefault : HipApiConstants.hipEventDisableTiming)
                | (flags.contains(EventFlag.BLOCKING_SYNC) ? HipApiConstants.hipEventBlockingSync : 0)
                | (flags.contains(EventFlag.INTERPROCESS) ? HipApiConstants.hipEventInterprocess : 0);
        bind();
        try {
            long e = api.eventCreateWithFlags(f);
            return new NativeEvent(events, e, () -> api.eventDestroy(e));
        } catch (SluiceException e) {
            if (flags.contains(EventFlag.INTERPROCESS)) {
                throw new UnsupportedOnBackendException("interprocess events are not supported on hip here (" + e.getMessage() + ")");
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- memory

    /**
     * From the memory pool where the device has one ({@code hipMallocAsync} on a stream of its own, then waiting
     * for that stream alone), so that freeing needs no {@code hipFree}, which synchronises the whole device and
     * could wait forever on a stream gated on host work; {@code hipMalloc} otherwise.
     */
    @Override
    public DeviceMemory allocate(long bytes) {
        HipStream a = allocationStream;
        if (a != null) {
            synchronized (a) {
                long p = a.allocatePooled(bytes);
                api.streamSynchronize(a.handle);
                return new DeviceAllocation(p, bytes, true, device);
            }
        }
        bind();
        return new DeviceAllocation(api.malloc(bytes), bytes, false, device);
    }

    @Override
    public void free(DeviceMemory memory) {
        DeviceAllocation m = DeviceAllocation.of(memory);
        if (!m.claimFree()) {
            return; // freed already (or a module variable): a second free must not reach the runtime
        }
        HipStream a = allocationStream;
        if (m.streamOrdered() && a != null) {
            synchronized (a) {
                api.freeAsync(m.address(), a.handle);
            }
        } else {
            bind();
            api.free(m.address());
        }
    }

    /** True: hipHostMalloc and hipHostRegister always pass their Portable flags. */
    @Override
    public boolean pinnedMemoryPortable() {
        return true;
    }

    @Override
    public HostMemory allocateHost(long bytes) {
        bind();
        long p = api.hostMalloc(bytes, HipApiConstants.hipHostMallocPortable | HipApiConstants.hipHostMallocMapped);
        MemorySegment s = MemorySegment.ofAddress(p).reinterpret(bytes);
        s.fill((byte) 0);
        return new PinnedHostMemory(s, false);
    }

    @Override
    public HostMemory registerHost(MemorySegment segment) {
        bind();
        api.hostRegister(segment.address(), segment.byteSize(),
                HipApiConstants.hipHostRegisterPortable | HipApiConstants.hipHostRegisterMapped);
        return new PinnedHostMemory(segment, true);
    }

    /**
     * Unregisters at once (the caller may free its memory right after), but frees allocated memory on the
     * reaper thread: this is called on the completion thread, where {@code hipHostFree}'s implicit device
     * synchronisation could deadlock.
     */
    @Override
    public void freeHost(HostMemory memory) {
        PinnedHostMemory m = PinnedHostMemory.of(memory);
        if (!m.claimFree()) {
            return; // freed already: a second free must not reach the runtime
        }
        if (m.registered()) {
            api.hostUnregister(m.segment().address());
        } else {
            long p = m.segment().address();
            reaper.later(() -> api.hostFree(p));
        }
    }

    // ---------------------------------------------------------------- kernels

    @Override
    public FunctionHandle load(Kernel kernel) {
        if (kernel.hipCodeObject().isPresent()) {
            return loadImage(kernel.entryPoint(), kernel.hipCodeObject().get());
        }
        if (kernel.cudaSource().isPresent()) {
            KernelCompiler compiler = backend.compiler();
            KernelCompiler.Image image = compiler.compile(device, archKey(), kernel.name(), kernel.cudaSource().get(), kernel.compileOptions());
            try {
                return loadImage(kernel.entryPoint(), image.code());
            } catch (SluiceException e) {
                if (!image.fromCache()) {
                    throw e;
                }
                // a stale or foreign cache entry: compile afresh once
                compiler.evict(image);
                image = compiler.compile(device, archKey(), kernel.name(), kernel.cudaSource().get(), kernel.compileOptions());
                return loadImage(kernel.entryPoint(), image.code());
            }
        }
        throw new UnsupportedOnBackendException("kernel " + kernel.name() + " has neither CUDA C++ source (for hiprtc) nor a HIP"
                + " code object, so it cannot run on hip");
    }

    /** The kernel from {@code image}, loaded on this device once per process ({@link HipBackend#module}). */
    HipModule loadImage(String kernelName, byte[] image) {
        return backend.module(this, kernelName, image);
    }

    /** {@code hipModuleLoadData} and {@code hipModuleGetFunction}, for {@link HipBackend#module}. */
    HipModule loadImageNow(String kernelName, byte[] image) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment code = a.allocate(image.length + 1L, 16);
            MemorySegment.copy(image, 0, code, ValueLayout.JAVA_BYTE, 0, image.length);
            bind();
            long module = api.moduleLoadData(code);
            try {
                return new HipModule(api, device, module, api.moduleGetFunction(module, kernelName), kernelName);
            } catch (RuntimeException e) {
                api.moduleUnload(module);
                throw e;
            }
        }
    }

    /** Repeated work's graph: {@link HipReplayGraph}, or unsupported where a step or the runtime cannot be described. */
    @Override
    public UpdatableGraph buildGraph(List<WorkStep> steps) {
        return HipReplayGraph.build(this, steps);
    }

    /** The internal kernel that fills 64-bit patterns (HIP's memsets stop at 32 bits); compiled on first use. */
    HipModule fill64() {
        HipModule f = fill64;
        if (f == null) {
            synchronized (this) {
                f = fill64;
                if (f == null) {
                    String src = """
                            extern "C" __global__ void sluice_fill_u64(unsigned long long* p, unsigned long long v,
                                                                       unsigned long long n) {
                                unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x;
                                unsigned long long stride = (unsigned long long) gridDim.x * blockDim.x;
                                for (; i < n; i += stride) p[i] = v;
                            }
                            """;
                    KernelCompiler.Image image = backend.compiler().compile(device, archKey(), "sluice_fill_u64", src, List.of());
                    f = loadImage("sluice_fill_u64", image.code());
                    fill64 = f;
                }
            }
        }
        return f;
    }

    /**
     * Waits for every stream of this context. Not {@code hipDeviceSynchronize}: HIP has one context per device,
     * so that would also wait for other contexts' streams, which may be gated on host work that the caller is
     * yet to do.
     */
    @Override
    public void synchronize() {
        for (HipStream s : streams) {
            s.synchronize();
        }
    }

    /** Idempotent and safe from any thread: of concurrent callers exactly one releases the context. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        try {
            defaultStream.synchronize(); // already done by the public layer; reports a fault of the device
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "synchronize at close of " + this + " failed", e);
        }
        HipStream a = allocationStream;
        if (a != null) {
            quietly(a::destroy);
        }
        quietly(defaultStream::destroy);
        for (HipReplayGraph g : List.copyOf(replayGraphs)) {
            g.destroy(); // its launches have finished with the streams; the public layer skips it once the context is closed
        }
        // pinned host memory is freed on the reaper thread: hipHostFree may synchronise the whole device
        reaper.later(() -> quietly(gates::destroy));
        CompletionCounters c = counters;
        if (c != null) {
            reaper.later(() -> quietly(c::destroy));
        }
        reaper.later(() -> quietly(staging::destroy));
        reaper.later(() -> quietly(markerEvents::destroy));
        reaper.drainAndStop();
        hostNodes.removeAll(); // its streams, and the graphs launched on them, have finished
        backend.closed(this, faulted);
    }

    private void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "releasing part of " + this + " failed", e);
        }
    }

    @Override
    public String toString() {
        return "HipContext[device " + device + ", " + name + "]";
    }
}
