package dev.sluice.cpu;

import dev.sluice.ComputeCapability;
import dev.sluice.ContextFlag;
import dev.sluice.DeviceAttribute;
import dev.sluice.DeviceException;
import dev.sluice.DeviceOutOfMemoryException;
import dev.sluice.EventFlag;
import dev.sluice.Kernel;
import dev.sluice.Limit;
import dev.sluice.MemoryInfo;
import dev.sluice.PriorityRange;
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
import java.lang.foreign.MemorySegment;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/** One simulated device. */
final class CpuContext implements ContextHandle {

    /** Like a GPU's: priorities 0 (lowest) to -5 (highest). The simulator schedules streams fairly whatever their priority. */
    private static final PriorityRange PRIORITIES = new PriorityRange(0, -5);

    private final int id;
    private final long totalMemory;
    private final AtomicLong usedMemory = new AtomicLong();
    private final CpuStream defaultStream;
    private final Map<Limit, Long> limits = new EnumMap<>(Limit.class);
    private volatile @Nullable Throwable fault;
    /** As given at open: the simulator has no driver whose waits they would steer. */
    private final Set<ContextFlag> flags;
    /** Device and pinned host memory not yet freed: closing the context frees what is left, faulted or not. */
    private final Set<CpuMemory> liveMemory = ConcurrentHashMap.newKeySet();
    private final Set<CpuMemory.Host> liveHost = ConcurrentHashMap.newKeySet();
    /** Faults injected by tests ({@link CpuFaults}), or null. */
    final @Nullable CpuFaults faults;

    CpuContext(int id, long totalMemory, Set<ContextFlag> flags) {
        this(id, totalMemory, flags, null);
    }

    CpuContext(int id, long totalMemory, Set<ContextFlag> flags, @Nullable CpuFaults faults) {
        this.faults = faults;
        this.id = id;
        this.flags = flags;
        this.totalMemory = totalMemory;
        this.defaultStream = new CpuStream(this);
        limits.put(Limit.STACK_SIZE, 1024L);
        limits.put(Limit.PRINTF_FIFO_SIZE, 1L << 20);
        limits.put(Limit.MALLOC_HEAP_SIZE, 8L << 20);
    }

    static String deviceName() {
        return "Sluice CPU simulator (" + Runtime.getRuntime().availableProcessors() + " cores)";
    }

    // ---------------------------------------------------------------- faults

    boolean isFaulted() {
        return fault != null;
    }

    void fault(Throwable t) {
        if (fault == null) {
            fault = t instanceof DeviceException ? t
                    : new DeviceException("device operation failed: " + t, "CPU_DEVICE_FAULT", null, true, t);
        }
    }

    DeviceException faultException() {
        Throwable f = fault;
        return f instanceof DeviceException de ? de : new DeviceException("device fault: " + f, "CPU_DEVICE_FAULT", null, true, f);
    }

    // ---------------------------------------------------------------- properties

    @Override
    public String name() {
        return deviceName();
    }

    @Override
    public String driverVersion() {
        return "Java " + Runtime.version();
    }

    @Override
    public ComputeCapability computeCapability() {
        return new ComputeCapability(0, 0);
    }

    @Override
    public long attribute(DeviceAttribute attribute) {
        int cores = Runtime.getRuntime().availableProcessors();
        return switch (attribute) {
            case MAX_THREADS_PER_BLOCK -> 1024;
            case MAX_BLOCK_DIM_X, MAX_BLOCK_DIM_Y -> 1024;
            case MAX_BLOCK_DIM_Z -> 64;
            case MAX_GRID_DIM_X -> Integer.MAX_VALUE;
            case MAX_GRID_DIM_Y, MAX_GRID_DIM_Z -> 65535;
            case MAX_SHARED_MEMORY_PER_BLOCK -> 48 * 1024;
            case MAX_SHARED_MEMORY_PER_BLOCK_OPTIN -> 96 * 1024;
            case TOTAL_CONSTANT_MEMORY -> 64 * 1024;
            case WARP_SIZE -> 32;
            case MULTIPROCESSOR_COUNT -> cores;
            case MAX_THREADS_PER_MULTIPROCESSOR -> 2048;
            case COMPUTE_CAPABILITY_MAJOR, COMPUTE_CAPABILITY_MINOR -> 0;
            case ASYNC_ENGINE_COUNT -> 1;
            case CONCURRENT_KERNELS, CAN_MAP_HOST_MEMORY, MEMORY_POOLS_SUPPORTED, CLUSTER_LAUNCH -> 1;
            case INTEGRATED -> 1;
            case UNIFIED_ADDRESSING, MANAGED_MEMORY, COOPERATIVE_LAUNCH, ECC_ENABLED -> 0;
            case COMPUTE_MODE -> 0;
            default -> throw new UnsupportedOnBackendException("attribute " + attribute + " is not supported on cpu");
        };
    }

    @Override
    public MemoryInfo memoryInfo() {
        return new MemoryInfo(totalMemory - usedMemory.get(), totalMemory);
    }

    @Override
    public synchronized long limit(Limit limit) {
        Long v = limits.get(limit);
        if (v == null) {
            throw new UnsupportedOnBackendException("limit " + limit + " is not supported on cpu");
        }
        return v;
    }

    @Override
    public synchronized void setLimit(Limit limit, long value) {
        if (!limits.containsKey(limit)) {
            throw new UnsupportedOnBackendException("limit " + limit + " is not supported on cpu");
        }
        limits.put(limit, value);
    }

    @Override
    public boolean canAccessPeer(ContextHandle peer) {
        return peer instanceof CpuContext;
    }

    @Override
    public void enablePeerAccess(ContextHandle peer) {
        // Simulated devices share the machine's memory: peer access is always on.
    }

    @Override
    public PriorityRange streamPriorityRange() {
        return PRIORITIES;
    }

    @Override
    public Set<ContextFlag> contextFlags() {
        return flags;
    }

    // ---------------------------------------------------------------- streams, events

    @Override
    public UpdatableGraph buildGraph(List<WorkStep> steps) {
        return new CpuStream.ReplayGraph(steps);
    }

    /** The simulator's markers complete in host memory, set by the stream's own thread when its drain reaches them. */
    @Override
    public String completion() {
        return "markers completed in host memory by the simulated streams (no driver to poll)";
    }

    @Override
    public StreamHandle defaultStream() {
        return defaultStream;
    }

    @Override
    public StreamHandle createStream(StreamOptions options) {
        return new CpuStream(this);
    }

    @Override
    public EventHandle createEvent(Set<EventFlag> flags) {
        return new CpuEvent(flags);
    }

    // ---------------------------------------------------------------- memory

    @Override
    public DeviceMemory allocate(long bytes) {
        if (faults != null) {
            faults.beforeAllocation(bytes);
        }
        long used = usedMemory.addAndGet(bytes);
        if (used > totalMemory) {
            usedMemory.addAndGet(-bytes);
            throw new DeviceOutOfMemoryException("out of device memory: " + bytes + " bytes asked for, "
                    + (totalMemory - used + bytes) + " of " + totalMemory + " free on cpu:" + id, bytes, "CPU_ERROR_OUT_OF_MEMORY", null);
        }
        try {
            CpuMemory m = new CpuMemory(bytes);
            liveMemory.add(m);
            return m;
        } catch (OutOfMemoryError e) {
            usedMemory.addAndGet(-bytes);
            throw new DeviceOutOfMemoryException("out of native memory for " + bytes + " bytes: " + e.getMessage(), bytes,
                    "CPU_ERROR_OUT_OF_MEMORY", null);
        }
    }

    @Override
    public void free(DeviceMemory memory) {
        CpuMemory m = (CpuMemory) memory;
        if (m.free()) {
            liveMemory.remove(m);
            usedMemory.addAndGet(-m.byteSize());
        }
    }

    /** True: the simulator's pinned memory is ordinary native memory, and its copies are memory copies. */
    @Override
    public boolean pinnedMemoryPortable() {
        return true;
    }

    @Override
    public HostMemory allocateHost(long bytes) {
        try {
            CpuMemory.Host h = new CpuMemory.Host(bytes);
            liveHost.add(h);
            return h;
        } catch (OutOfMemoryError e) {
            throw new DeviceOutOfMemoryException("out of host memory for " + bytes + " bytes: " + e.getMessage(), bytes,
                    "CPU_ERROR_OUT_OF_MEMORY", null);
        }
    }

    @Override
    public HostMemory registerHost(MemorySegment segment) {
        return new CpuMemory.Host(segment);
    }

    @Override
    public void freeHost(HostMemory memory) {
        CpuMemory.Host h = (CpuMemory.Host) memory;
        liveHost.remove(h);
        h.free();
    }

    // ---------------------------------------------------------------- kernels

    @Override
    public FunctionHandle load(Kernel kernel) {
        return new CpuFunction(kernel, kernel.java().orElseThrow(() -> new UnsupportedOnBackendException("kernel "
                + kernel.name() + " has no Java implementation; the cpu backend runs kernels only through Kernel.Builder.java(...)")));
    }

    @Override
    public void synchronize() {
        defaultStream.synchronize();
    }

    /**
     * Frees every allocation still held. The public layer frees a healthy context's memory one allocation at a time
     * before this, but not a faulted one's (a GPU frees that with the context): without this, closing a faulted
     * context would leak all its simulated device memory. A kernel still running on it (one that never returns)
     * gets an exception at its next access rather than touching freed memory.
     */
    @Override
    public void close() {
        for (CpuMemory m : List.copyOf(liveMemory)) {
            free(m);
        }
        for (CpuMemory.Host h : List.copyOf(liveHost)) {
            freeHost(h);
        }
    }
}
