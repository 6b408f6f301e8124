package dev.sluice.cuda;

import dev.sluice.ComputeCapability;
import dev.sluice.ContextFlag;
import dev.sluice.ContextOptions;
import dev.sluice.DeviceAttribute;
import dev.sluice.EventFlag;
import dev.sluice.Kernel;
import dev.sluice.Limit;
import dev.sluice.MemoryInfo;
import dev.sluice.PriorityRange;
import dev.sluice.StreamOptions;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.WaitStrategy;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.HostMemory;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.support.CompletionCounters;
import dev.sluice.spi.support.DeviceAllocation;
import dev.sluice.spi.support.EventPool;
import dev.sluice.spi.support.HostNodes;
import dev.sluice.spi.support.HostFlagSlots;
import dev.sluice.spi.support.NativeEvent;
import dev.sluice.spi.support.PinnedHostMemory;
import dev.sluice.spi.support.StreamCounter;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import org.jspecify.annotations.Nullable;

/**
 * SPI layer: one opened CUDA device. Binds its {@link DriverContext} on every thread that calls in (the completion
 * thread included, through the markers). Owns the pools behind the hot path: marker events, host-gate flags,
 * staging chunks, and the built-in kernels (64-bit fill, gate fallback).
 *
 * <p>Device memory comes from the device's stream-ordered memory pool where it has one
 * ({@code CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED}): synchronous allocations are {@code cuMemAllocAsync}
 * on an internal stream followed by its synchronisation, so every allocation, whichever call made it, can be
 * freed in any stream's order with {@code cuMemFreeAsync}. Without pools, {@code cuMemAlloc}.
 */
final class CudaContext implements ContextHandle {

    private static final Logger LOG = System.getLogger(CudaContext.class.getName());

    final DriverContext cu;
    final ContextOptions options;
    /** The driver's events of this context, as the kit's pool and user events call them. */
    final DriverEvents events;
    final EventPool markerEvents;
    /** The host steps of this context's graphs, found by the driver's host-node callback; forgotten at close. */
    final HostNodes hostNodes = new HostNodes();
    /** Page-locked host memory of this context, for the host flags and the staging chunks. */
    private final DriverPinnedMemory pinned;
    final HostFlagSlots flags;
    /**
     * The streams' completion counters, or null where completion is learned by querying events: the driver refused
     * stream memory writes or mapped memory when the context opened, or {@code -Dsluice.completion=events} asked so.
     */
    final @Nullable CompletionCounters counters;
    /** How this context's futures learn completion, in words ({@link #completion()}). */
    private final String completion;
    /** When the streams' markers have their counter written ({@link StreamCounter.Arming}); a knob for measuring. */
    final StreamCounter.Arming arming;
    final boolean memoryPools;
    final CopyOnWriteArrayList<Long> modules = new CopyOnWriteArrayList<>();
    /**
     * Host gates wait in {@code cuStreamWaitValue32} unless {@code -Dsluice.cuda.gates=kernel} (a one-thread kernel
     * polling the mapped flag), or the driver refuses stream memory operations. On the H200 with driver 580,
     * while a gate of either kind was closed, {@code cuModuleLoadDataEx} and {@code cuStreamCreateWithPriority} in
     * the same context blocked until it opened (docs/gpu-runs.md, 2026-11-22 03:16 and 03:22).
     */
    volatile boolean gateKernelOnly = "kernel".equalsIgnoreCase(System.getProperty(dev.sluice.SluiceProperties.Measurement.CUDA_GATES, ""));
    private final String name;
    private final ComputeCapability capability;
    private final CudaStream defaultStream;
    private final CUstream allocationStream;
    private final Set<CudaStream> streams = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> builtins = new HashMap<>();
    private @Nullable Staging staging;
    private @Nullable MarkerWaiter waiter;
    private volatile boolean closed;
    private final AtomicBoolean closing = new AtomicBoolean();

    private CudaContext(DriverContext cu, ContextOptions options) {
        this.cu = cu;
        this.options = options;
        int blocking = options.waitStrategy() == WaitStrategy.BLOCKING ? 1 : 0; // CU_EVENT_BLOCKING_SYNC
        this.events = new DriverEvents(cu, blocking);
        this.markerEvents = new EventPool(events);
        this.pinned = new DriverPinnedMemory(cu);
        this.flags = new HostFlagSlots(pinned);
        byte[] n = new byte[256];
        Jc.check(JCudaDriver.cuDeviceGetName(n, n.length, cu.device), "cuDeviceGetName");
        this.name = CuLibrary.cString(n);
        int[] major = new int[1];
        int[] minor = new int[1];
        // the attributes, not cuDeviceComputeCapability, which CUDA deprecated
        Jc.check(JCudaDriver.cuDeviceGetAttribute(major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                cu.device), "cuDeviceGetAttribute");
        Jc.check(JCudaDriver.cuDeviceGetAttribute(minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                cu.device), "cuDeviceGetAttribute");
        this.capability = new ComputeCapability(major[0], minor[0]);
        this.memoryPools = Cu.hasMemoryPools() && attribute(DeviceAttribute.MEMORY_POOLS_SUPPORTED) != 0 && !Boolean.getBoolean(dev.sluice.SluiceProperties.CUDA_NO_MEMORY_POOLS);
        this.allocationStream = new CUstream();
        Jc.check(JCudaDriver.cuStreamCreate(allocationStream, 1), "cuStreamCreate");
        CompletionCounters probed = null;
        String how;
        String completionMode = System.getProperty(dev.sluice.SluiceProperties.Measurement.COMPLETION, "");
        this.arming = StreamCounter.Arming.of(completionMode);
        if ("events".equalsIgnoreCase(completionMode)) {
            how = "event queries (cuEventQuery), as -D" + dev.sluice.SluiceProperties.Measurement.COMPLETION + "=events asks";
        } else {
            int limit = markerStreamLimit();
            CompletionCounters c = new CompletionCounters(pinned, limit);
            String refused = c.probe((device, value) -> probeWrite(allocationStream, device, value));
            if (refused == null) {
                probed = c;
                how = "device-written counters in host-mapped memory (cuStreamWaitEvent + cuStreamWriteValue32 on a marker"
                        + " stream) for up to " + limit + " streams at once, event queries for the others";
            } else {
                c.destroy();
                how = "event queries (cuEventQuery): " + refused;
            }
        }
        this.counters = probed;
        this.completion = how;
        this.defaultStream = createStream(StreamOptions.defaults());
        try {
            // Loaded now, before any stream can wait on the device: a module load waits for such streams
            // (impl-cuda/gate-probe.sh), and the built-ins are needed in the middle of enqueues (64-bit fills, kernel gates).
            builtinFunction("sluice_fill64");
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "built-in kernels not loaded at open; retried on first use", e);
        }
    }

    /** The completion counters' probe write on {@code stream}: {@code cuStreamWriteValue32}, then a synchronize. */
    private static void probeWrite(CUstream stream, long device, int value) {
        Cu.check(Cu.streamWriteValue32(Jc.address(stream), device, value, 0), "cuStreamWriteValue32 (completion counter probe)");
        int r = JCudaDriver.cuStreamSynchronize(stream);
        if (r != Cu.SUCCESS) {
            throw Cu.error(r, "cuStreamSynchronize (completion counter probe)");
        }
    }

    /**
     * How many streams of this context may have a marker stream (and a counter) at once: half the hardware queues the
     * driver gives a context ({@code CUDA_DEVICE_MAX_CONNECTIONS}, 8 by default), so that as many work streams as
     * marker streams fit without sharing a queue ({@link CompletionCounters} says why it matters).
     */
    private static int markerStreamLimit() {
        int connections = 8;
        String set = System.getenv("CUDA_DEVICE_MAX_CONNECTIONS");
        if (set != null) {
            try {
                connections = Integer.parseInt(set.strip());
            } catch (NumberFormatException e) {
                LOG.log(Level.DEBUG, "CUDA_DEVICE_MAX_CONNECTIONS=" + set + " is not a number; taking 8");
            }
        }
        return Math.max(1, connections / 2);
    }

    /** How this context's futures learn completion, in words, for {@code sluice check} and diagnostics. */
    @Override
    public String completion() {
        return completion;
    }

    static CudaContext open(int ordinal, ContextOptions options) {
        DriverContext cu = DriverContext.open(ordinal, options.primaryContext(), options.contextFlags());
        try {
            return new CudaContext(cu, options);
        } catch (RuntimeException | Error e) {
            cu.close();
            throw e;
        }
    }

    String description() {
        return "CUDA device " + cu.ordinal + " (" + name + (cu.primary ? ", primary context)" : ", own context)");
    }

    // ---------------------------------------------------------------- properties

    @Override
    public String name() {
        return name;
    }

    @Override
    public String driverVersion() {
        return "CUDA " + CuLibrary.versionString(CuLibrary.driverVersion());
    }

    @Override
    public ComputeCapability computeCapability() {
        return capability;
    }

    @Override
    public long attribute(DeviceAttribute attribute) {
        int id = switch (attribute) {
            case MAX_THREADS_PER_BLOCK -> 1;
            case MAX_BLOCK_DIM_X -> 2;
            case MAX_BLOCK_DIM_Y -> 3;
            case MAX_BLOCK_DIM_Z -> 4;
            case MAX_GRID_DIM_X -> 5;
            case MAX_GRID_DIM_Y -> 6;
            case MAX_GRID_DIM_Z -> 7;
            case MAX_SHARED_MEMORY_PER_BLOCK -> 8;
            case TOTAL_CONSTANT_MEMORY -> 9;
            case WARP_SIZE -> 10;
            case MAX_REGISTERS_PER_BLOCK -> 12;
            case CLOCK_RATE_KHZ -> 13;
            case MULTIPROCESSOR_COUNT -> 16;
            case INTEGRATED -> 18;
            case CAN_MAP_HOST_MEMORY -> 19;
            case COMPUTE_MODE -> 20;
            case CONCURRENT_KERNELS -> 31;
            case ECC_ENABLED -> 32;
            case PCI_BUS_ID -> 33;
            case PCI_DEVICE_ID -> 34;
            case MEMORY_CLOCK_RATE_KHZ -> 36;
            case GLOBAL_MEMORY_BUS_WIDTH -> 37;
            case L2_CACHE_SIZE -> 38;
            case MAX_THREADS_PER_MULTIPROCESSOR -> 39;
            case ASYNC_ENGINE_COUNT -> 40;
            case UNIFIED_ADDRESSING -> 41;
            case PCI_DOMAIN_ID -> 50;
            case COMPUTE_CAPABILITY_MAJOR -> 75;
            case COMPUTE_CAPABILITY_MINOR -> 76;
            case MANAGED_MEMORY -> 83;
            case COOPERATIVE_LAUNCH -> 95;
            case MAX_SHARED_MEMORY_PER_BLOCK_OPTIN -> 97;
            case MEMORY_POOLS_SUPPORTED -> 115;
            case CLUSTER_LAUNCH -> 120;
        };
        int[] out = new int[1];
        int r = JCudaDriver.cuDeviceGetAttribute(out, id, cu.device);
        if (r != Cu.SUCCESS) {
            throw new UnsupportedOnBackendException("device attribute " + attribute.name() + " (CU_DEVICE_ATTRIBUTE " + id
                    + ") is not reported by this CUDA driver: " + Cu.errorName(r));
        }
        int v = out[0];
        // The grid's x limit is 2^31-1, reported as a signed int; everything else is small and non-negative.
        return v & 0xFFFF_FFFFL;
    }

    @Override
    public MemoryInfo memoryInfo() {
        cu.bind();
        long[] free = new long[1];
        long[] total = new long[1];
        Jc.check(JCudaDriver.cuMemGetInfo(free, total), "cuMemGetInfo");
        return new MemoryInfo(free[0], total[0]);
    }

    private static int limitId(Limit limit) {
        return switch (limit) {
            case STACK_SIZE -> 0;
            case PRINTF_FIFO_SIZE -> 1;
            case MALLOC_HEAP_SIZE -> 2;
            case DEV_RUNTIME_SYNC_DEPTH -> 3;
            case DEV_RUNTIME_PENDING_LAUNCH_COUNT -> 4;
            case MAX_L2_FETCH_GRANULARITY -> 5;
            case PERSISTING_L2_CACHE_SIZE -> 6;
        };
    }

    @Override
    public long limit(Limit limit) {
        cu.bind();
        long[] v = new long[1];
        int r = JCudaDriver.cuCtxGetLimit(v, limitId(limit));
        if (r == 215 || r == Cu.ERROR_NOT_SUPPORTED) { // CUDA_ERROR_UNSUPPORTED_LIMIT
            throw new UnsupportedOnBackendException("limit " + limit + " on " + description() + ": " + Cu.errorName(r));
        }
        Jc.check(r, "cuCtxGetLimit(" + limit + ")");
        return v[0];
    }

    @Override
    public void setLimit(Limit limit, long value) {
        cu.bind();
        int r = JCudaDriver.cuCtxSetLimit(limitId(limit), value);
        if (r == 215 || r == Cu.ERROR_NOT_SUPPORTED) {
            throw new UnsupportedOnBackendException("limit " + limit + " on " + description() + ": " + Cu.errorName(r));
        }
        Jc.check(r, "cuCtxSetLimit(" + limit + ", " + value + ")");
    }

    @Override
    public boolean canAccessPeer(ContextHandle peer) {
        CudaContext p = (CudaContext) peer;
        if (p.cu.ordinal == cu.ordinal) {
            return true;
        }
        int[] can = new int[1];
        Jc.check(JCudaDriver.cuDeviceCanAccessPeer(can, cu.device, p.cu.device), "cuDeviceCanAccessPeer");
        return can[0] != 0;
    }

    /**
     * {@code cuCtxEnablePeerAccess}, plus access for this device to the peer's memory pool, since
     * stream-ordered allocations are not covered by context peer access.
     */
    @Override
    public void enablePeerAccess(ContextHandle peer) {
        CudaContext p = (CudaContext) peer;
        if (p.cu.ordinal == cu.ordinal) {
            return;
        }
        cu.bind();
        int r = JCudaDriver.cuCtxEnablePeerAccess(p.cu.context, 0);
        if (r != Cu.ERROR_PEER_ACCESS_ALREADY_ENABLED) {
            Jc.check(r, "cuCtxEnablePeerAccess(device " + p.cu.ordinal + ")");
        }
        if (p.memoryPools) {
            int pr = Cu.memPoolGrantAccess(p.cu.ordinal, cu.ordinal);
            if (pr != Cu.SUCCESS) {
                LOG.log(Level.DEBUG, "cuMemPoolSetAccess(" + p.cu.ordinal + " -> " + cu.ordinal + "): " + Cu.errorName(pr));
            }
        }
    }

    @Override
    public long nativeHandle() {
        return cu.address;
    }

    /** {@code cuProfilerStart} / {@code cuProfilerStop}, on this context (the profiler API wants one current). */
    @Override
    public void profiler(boolean start) {
        cu.bind();
        Cu.check(Cu.profiler(start), start ? "cuProfilerStart" : "cuProfilerStop");
    }

    @Override
    public Set<ContextFlag> contextFlags() {
        return cu.currentFlags();
    }

    @Override
    public PriorityRange streamPriorityRange() {
        cu.bind();
        int[] least = new int[1];
        int[] greatest = new int[1];
        Jc.check(JCudaDriver.cuCtxGetStreamPriorityRange(least, greatest), "cuCtxGetStreamPriorityRange");
        return new PriorityRange(least[0], greatest[0]);
    }

    // ---------------------------------------------------------------- streams and events

    @Override
    public StreamHandle defaultStream() {
        return defaultStream;
    }

    @Override
    public CudaStream createStream(StreamOptions options) {
        cu.bind();
        CUstream s = new CUstream();
        Jc.check(JCudaDriver.cuStreamCreateWithPriority(s, options.nonBlocking() ? 1 : 0, options.priority()),
                "cuStreamCreateWithPriority");
        CudaStream stream = new CudaStream(this, s);
        streams.add(stream);
        return stream;
    }

    void forget(CudaStream s) {
        streams.remove(s);
    }

    @Override
    public EventHandle createEvent(Set<EventFlag> flags) {
        cu.bind();
        int f = 0;
        if (!flags.contains(EventFlag.TIMING)) {
            f |= 2; // CU_EVENT_DISABLE_TIMING
        }
        if (flags.contains(EventFlag.BLOCKING_SYNC)) {
            f |= 1;
        }
        if (flags.contains(EventFlag.INTERPROCESS)) {
            f |= 4;
        }
        long e = Cu.eventCreate(f);
        return new NativeEvent(events, e, () -> {
            if (!isClosed()) { // a closed context took its events with it
                cu.bind();
                Cu.eventDestroy(e);
            }
        });
    }

    // ---------------------------------------------------------------- memory

    @Override
    public DeviceMemory allocate(long bytes) {
        cu.bind();
        if (memoryPools) {
            long stream = Jc.address(allocationStream);
            long p;
            synchronized (allocationStream) {
                p = Cu.memAllocAsync(bytes, stream);
                int r = JCudaDriver.cuStreamSynchronize(allocationStream);
                if (r != Cu.SUCCESS) {
                    throw Cu.error(r, "cuStreamSynchronize (allocation)");
                }
            }
            return new DeviceAllocation(p, bytes, true, cu.ordinal);
        }
        return new DeviceAllocation(Cu.memAlloc(bytes), bytes, false, cu.ordinal);
    }

    @Override
    public void free(DeviceMemory memory) {
        DeviceAllocation m = DeviceAllocation.of(memory);
        if (!m.claimFree()) {
            return; // freed already (or a module variable): a second free must not reach the driver
        }
        cu.bind();
        if (m.streamOrdered()) {
            Cu.check(Cu.memFreeAsync(m.address(), Jc.address(allocationStream)), "cuMemFreeAsync");
        } else {
            Cu.check(Cu.memFree(m.address()), "cuMemFree");
        }
    }

    /** True: cuMemHostAlloc and cuMemHostRegister always pass PORTABLE. */
    @Override
    public boolean pinnedMemoryPortable() {
        return true;
    }

    @Override
    public HostMemory allocateHost(long bytes) {
        cu.bind();
        long p = Cu.memHostAlloc(bytes, 1 | 2); // PORTABLE | DEVICEMAP
        MemorySegment s = MemorySegment.ofAddress(p).reinterpret(bytes);
        s.fill((byte) 0);
        PinnedRanges.add(p, bytes);
        return new PinnedHostMemory(s, false);
    }

    @Override
    public HostMemory registerHost(MemorySegment segment) {
        cu.bind();
        int r = Cu.memHostRegister(segment.address(), segment.byteSize(), 1 | 2); // PORTABLE | DEVICEMAP
        if (r != Cu.SUCCESS) {
            r = Cu.memHostRegister(segment.address(), segment.byteSize(), 1);
        }
        Cu.checkAlloc(r, "cuMemHostRegister", segment.byteSize());
        PinnedRanges.add(segment.address(), segment.byteSize());
        return new PinnedHostMemory(segment, true);
    }

    @Override
    public void freeHost(HostMemory memory) {
        if (!PinnedHostMemory.of(memory).claimFree()) {
            return; // freed already: a second free must not reach the driver
        }
        cu.bind();
        long p = memory.segment().address();
        PinnedRanges.remove(p);
        if (memory.registered()) {
            Cu.check(Cu.memHostUnregister(p), "cuMemHostUnregister");
        } else {
            Cu.check(Cu.memFreeHost(p), "cuMemFreeHost");
        }
    }

    // ---------------------------------------------------------------- kernels

    @Override
    public FunctionHandle load(Kernel kernel) {
        cu.bind();
        ModuleLoader.Loaded m = ModuleLoader.load(cu, capability, description(), kernel);
        modules.add(m.module());
        return new CudaFunction(this, kernel.name(), m.module(), m.function(), m.ptx());
    }

    /** A built-in kernel's CUfunction, loading the built-in module on first use. */
    synchronized long builtinFunction(String function) {
        Long f = builtins.get(function);
        if (f == null) {
            int arch = capability.major() * 10 + capability.minor();
            long module = ModuleLoader.loadImage(cu, ModuleLoader.nulTerminated(
                    Builtins.ptx(arch).getBytes(StandardCharsets.UTF_8)), "Sluice's built-in kernels");
            modules.add(module);
            for (String n : new String[] {"sluice_fill64", "sluice_gate_wait"}) {
                builtins.put(n, Cu.moduleGetFunction(module, n));
            }
            f = builtins.get(function);
        }
        return f;
    }

    synchronized Staging staging() {
        if (staging == null) {
            staging = new Staging(cu, pinned);
        }
        return staging;
    }

    synchronized MarkerWaiter waiter() {
        if (waiter == null) {
            waiter = new MarkerWaiter(cu);
        }
        return waiter;
    }

    @Override
    public dev.sluice.spi.UpdatableGraph buildGraph(java.util.List<dev.sluice.spi.WorkStep> steps) {
        return CudaReplayGraph.build(this, steps);
    }

    // ---------------------------------------------------------------- life cycle

    /** Whether {@link #close()} has begun: native objects of this context must not be destroyed one by one any more. */
    boolean isClosed() {
        return closed;
    }

    @Override
    public void synchronize() {
        cu.bind();
        int r = JCudaDriver.cuCtxSynchronize();
        if (r != Cu.SUCCESS) {
            if (Cu.isSticky(r)) {
                cu.markFaulted();
            }
            throw Cu.error(r, "cuCtxSynchronize");
        }
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return; // closed by another call, or being closed: the native context is destroyed once
        }
        closed = true;
        cu.bind();
        MarkerWaiter w;
        Staging st;
        synchronized (this) {
            w = waiter;
            st = staging;
        }
        if (w != null) {
            w.stop();
        }
        if (st != null) {
            quietly("staging", st::close);
        }
        for (CudaStream s : streams) {
            quietly("stream", s::destroy);
        }
        quietly("allocation stream", () -> JCudaDriver.cuStreamDestroy(allocationStream));
        quietly("flags", flags::destroy);
        if (counters != null) {
            quietly("completion counters", counters::destroy);
        }
        quietly("marker events", markerEvents::destroy);
        for (long m : modules) {
            quietly("module", () -> Cu.moduleUnload(m));
        }
        modules.clear();
        cu.close();
        hostNodes.removeAll(); // after the native context, with its graphs, is gone: no host node calls a step after this
    }

    private static void quietly(String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "closing " + what + " failed", e);
        }
    }

    @Override
    public String toString() {
        return "CudaContext[" + description() + "]";
    }
}
