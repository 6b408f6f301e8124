package dev.sluice;

import dev.sluice.observe.Tracer;
import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.HostMemory;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One device of one backend (Mojo's {@code DeviceContext}): its properties, its default stream, and the
 * factory of streams, events, buffers and compiled kernels. Open one with {@link #open()} (the best
 * backend present: CUDA, then HIP, then the CPU simulator, then backends from other jars), {@link #open(String, int)}
 * with a backend's name ("cuda", "hip", "cpu" or that of a backend from another jar), {@link #open(Api, int)} for a
 * built-in one, or with the system property {@value SluiceProperties#API} / environment variable
 * {@value SluiceProperties#API_ENVIRONMENT} naming one.
 *
 * <p>Each context has one completion thread ({@code sluice-completion-<backend>-<id>-<n>}, {@code n} counting the contexts
 * opened in the JVM) that completes the
 * futures of all its streams. A device fault makes the context unusable: every pending future completes
 * exceptionally with the {@link DeviceException}, and every later call throws it.
 *
 * <p>Thread-safe. {@link #close()} waits for all work, then frees everything the context still owns.
 */
public final class DeviceContext implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DeviceContext.class.getName());
    private static final AtomicInteger CONTEXTS = new AtomicInteger();

    final ContextHandle handle;
    private final String backendName;
    /** Null for a backend that is not built in. */
    private final @Nullable Api api;
    /** The contexts this one has enabled peer access to: which peer copies go directly (see the trace's kinds). */
    private final java.util.Set<DeviceContext> peersEnabled = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final int id;
    private final ContextOptions options;
    final CompletionEngine engine;
    /** Event records held on the host by this context's streams ({@link HoldingStream}). */
    final HoldingStream.HeldRecords heldRecords = new HoldingStream.HeldRecords();
    /** Null unless {@link ContextOptions#tracing()}; read by each stream into a final field of its own. */
    final @Nullable Tracer tracer;
    private final DeviceStream defaultStream;
    private final LaunchLimits limits;
    /** Streams, events, functions and memory this context owns, and its gates waiting for stages. */
    private final ContextResources resources;
    private final AtomicInteger streamCount = new AtomicInteger();
    private volatile @Nullable ExecutorService hostExecutor;
    private volatile @Nullable Throwable fault;
    private volatile boolean closed;
    /** Fails when {@link #close()} begins: releases the host waits of graphs, which block a driver thread. */
    final java.util.concurrent.CompletableFuture<Void> closing = new java.util.concurrent.CompletableFuture<>();
    /** The listeners and Flight Recorder events of this context. */
    final Observers observers = new Observers(this);
    /**
     * {@link #observers} while a listener or a recording wants operations, else null: the enqueue hook's one volatile
     * read ({@code DeviceStream.mark}).
     */
    volatile @Nullable Observers observing;
    /** Claimed by the one close() that does the work; the others wait for {@link #closeDone}. */
    private final java.util.concurrent.atomic.AtomicBoolean closeClaimed = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.CountDownLatch closeDone = new java.util.concurrent.CountDownLatch(1);
    /** What this context's close and other threads wait for in each other (see {@link CloseHandshake}). */
    final CloseHandshake handshake = new CloseHandshake();

    /**
     * How long {@link #close()} waits for futures to complete once the device has finished their work: a dependent stage
     * stuck on the completion thread must not keep close() from returning. After it, the futures still pending fail.
     * 10 s; {@code -Dsluice.close.futuresMillis}, read when the context opens, a knob for tests.
     */
    private final long closeFuturesNanos = Long.getLong(SluiceProperties.Measurement.CLOSE_FUTURES_MILLIS, 10_000L) * 1_000_000L;

    private DeviceContext(String backendName, int id, ContextHandle handle, ContextOptions options) {
        this.backendName = backendName;
        this.api = Backends.builtIn(backendName);
        this.id = id;
        this.handle = handle;
        this.options = options;
        this.resources = new ContextResources(this, handle);
        this.tracer = options.tracing() ? openTracer(handle, backendName + ":" + id, options) : null;
        this.engine = new CompletionEngine(this, options, backendName + "-" + id + "-" + CONTEXTS.incrementAndGet());
        this.defaultStream = new DeviceStream(this, handle.defaultStream(), true, 0, 0);
        this.limits = readLimits();
        observers.opened();
    }

    private static Tracer openTracer(ContextHandle handle, String device, ContextOptions options) {
        try {
            return new Tracer(handle, "DeviceContext[" + device + "] " + handle.name(), device, options.traceCapacity(),
                    options.traceFile());
        } catch (RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    // ---------------------------------------------------------------- opening

    /**
     * Opens device 0 of the best backend present: the one named by the system property {@value SluiceProperties#API} or,
     * if that is unset or blank, the environment variable {@value SluiceProperties#API_ENVIRONMENT}; with neither, the
     * first in {@link #backendNames()}'s order that has a device: CUDA, HIP, the CPU simulator, then backends that are
     * not built in by their {@link Backend#preference()}, highest first, then by name.
     *
     * @throws BackendUnavailableException if the named backend is absent, or none is (listing what each tried)
     * @throws InvalidArgumentException    naming {@code api} if the property or variable names no backend, listing the
     *                                     known ones
     */
    public static DeviceContext open() {
        return open(ContextOptions.defaults());
    }

    /** {@link #open()} with options. */
    public static DeviceContext open(ContextOptions options) {
        Checks.notNull("options", options);
        String named = System.getProperty(SluiceProperties.API);
        String source = "system property " + SluiceProperties.API;
        if (named == null || named.isBlank()) {
            named = System.getenv(SluiceProperties.API_ENVIRONMENT);
            source = "environment variable " + SluiceProperties.API_ENVIRONMENT;
        }
        if (named != null && !named.isBlank()) {
            // A misspelt name is the property's or the variable's fault, not an argument's: name what the user set.
            return open(Backends.known(source, named), 0, options);
        }
        StringBuilder why = new StringBuilder();
        for (String name : Backends.openOrder()) {
            BackendProbe p = Backends.probe(name);
            if (p.available() && p.deviceCount() > 0) {
                return open(name, 0, options);
            }
            why.append("\n  ").append(name).append(": ").append(describeAbsence(p));
        }
        throw new BackendUnavailableException("no backend has a device:" + why);
    }

    /** Opens device {@code deviceId} of the built-in backend {@code api}: {@code open(api.id(), deviceId)}. */
    public static DeviceContext open(Api api, int deviceId) {
        return open(api, deviceId, ContextOptions.defaults());
    }

    /**
     * Opens device {@code deviceId} of the backend named {@code api}: "cuda", "hip", "cpu" or the {@link Backend#name()}
     * of a backend from another jar on the class path (any case, surrounding blanks ignored).
     *
     * @throws InvalidArgumentException    naming {@code api} for a name no backend has (listing the known ones), or
     *                                     naming {@code deviceId} as {@link #open(String, int, ContextOptions)} does
     * @throws BackendUnavailableException if the backend's library or devices are absent
     */
    public static DeviceContext open(String api, int deviceId) {
        return open(api, deviceId, ContextOptions.defaults());
    }

    /**
     * Opens device {@code deviceId} of the built-in backend {@code api} with {@code options}: the same as
     * {@code open(api.id(), deviceId, options)}.
     *
     * @throws BackendUnavailableException if the backend's library or devices are absent (the message lists
     *                                     every library name and path tried)
     * @throws InvalidArgumentException    if {@code deviceId} is negative or not below the device count
     */
    public static DeviceContext open(Api api, int deviceId, ContextOptions options) {
        Checks.notNull("api", api);
        return open(api.id(), deviceId, options);
    }

    /**
     * Opens device {@code deviceId} of the backend named {@code api} with {@code options}; see
     * {@link #open(String, int)} for the names.
     *
     * @throws InvalidArgumentException    naming {@code api} for a name no backend has (listing the known ones), or
     *                                     {@code deviceId} if it is negative or not below the device count
     * @throws BackendUnavailableException if the backend's library or devices are absent (the message lists
     *                                     every library name and path tried)
     */
    public static DeviceContext open(String api, int deviceId, ContextOptions options) {
        String name = Backends.known("api", api);
        Checks.notNull("options", options);
        Backend backend = Backends.all().get(name);
        BackendProbe probe = Backends.probe(name);
        if (backend == null || !probe.available()) {
            throw new BackendUnavailableException(name + " backend unavailable: " + describeAbsence(probe));
        }
        if (deviceId < 0 || deviceId >= probe.deviceCount()) {
            throw new InvalidArgumentException("deviceId", "value " + deviceId + " but " + name + " has "
                    + probe.deviceCount() + " device(s)" + (probe.deviceCount() > 0 ? ", ids 0 to " + (probe.deviceCount() - 1) : ""));
        }
        return new DeviceContext(name, deviceId, backend.open(deviceId, options), options);
    }

    private static String describeAbsence(BackendProbe p) {
        String s = p.available() ? "library loaded (" + p.version() + ") but no device found" : p.version();
        if (!p.tried().isEmpty()) {
            s += "; tried: " + String.join(", ", p.tried());
        }
        return s;
    }

    /**
     * The names of the backends {@link #open()} tries, in the order it tries them: "cuda", "hip", "cpu" (always listed,
     * present or not), then each backend from another jar on the class path by {@link Backend#preference()}, highest
     * first, then by name. Found once per JVM.
     */
    public static List<String> backendNames() {
        return List.copyOf(Backends.openOrder());
    }

    /** Devices usable through {@code api}; 0 if the backend or its library is absent (Mojo's {@code number_of_devices}). */
    public static int deviceCount(Api api) {
        Checks.notNull("api", api);
        return deviceCount(api.id());
    }

    /**
     * Devices usable through the backend named {@code api} (as {@link #open(String, int)} takes it); 0 if its library is
     * absent.
     *
     * @throws InvalidArgumentException naming {@code api} for a name no backend has, listing the known ones
     */
    public static int deviceCount(String api) {
        BackendProbe p = Backends.probe(Backends.known("api", api));
        return p.available() ? p.deviceCount() : 0;
    }

    /** Whether a built-in GPU backend (CUDA or HIP) has at least one device (Numba's {@code is_available}). */
    public static boolean hasAccelerator() {
        return deviceCount(Api.CUDA) > 0 || deviceCount(Api.HIP) > 0;
    }

    /**
     * A printable summary of every backend in {@link #backendNames()} and its devices, with library versions and, for
     * absent backends, what was tried (Numba's {@code detect()}).
     */
    public static String detect() {
        StringBuilder sb = new StringBuilder("Sluice backends:\n");
        for (String name : Backends.openOrder()) {
            BackendProbe p = Backends.probe(name);
            sb.append("  ").append(name).append(": ");
            if (!p.available()) {
                sb.append("unavailable: ").append(describeAbsence(p)).append('\n');
                continue;
            }
            sb.append(p.deviceCount()).append(" device(s), ").append(p.version()).append('\n');
            for (String d : p.devices()) {
                sb.append("    ").append(d).append('\n');
            }
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------- properties

    /**
     * Starts the capture of an external profiler that was told to wait for it (Numba's {@code profile_start}): Nsight
     * Systems with {@code nsys profile --capture-range=cudaProfilerApi}, Nsight Compute with
     * {@code --profile-from-start off}, rocprof on AMD. It concerns the whole process, not only this context, and
     * returns at once; without such a profiler it does nothing. Sluice's own timeline is {@link #trace()}.
     */
    public void profilerStart() {
        checkUsable();
        handle.profiler(true);
    }

    /** Stops what {@link #profilerStart()} started (Numba's {@code profile_stop}); without a profiler it does nothing. */
    public void profilerStop() {
        checkUsable();
        handle.profiler(false);
    }

    /**
     * The backend's own context (CUDA: the {@code CUcontext}, the device's primary context unless
     * {@link ContextOptions#withPrimaryContext} said otherwise) as a native address, for another library on the same
     * device. Sluice keeps owning it: never destroy, pop or reset it; it is valid until this context is closed.
     *
     * @throws UnsupportedOnBackendException on HIP (one implicit context per device: use the device id and
     *                                       {@link DeviceStream#nativeHandle()}) and on the CPU simulator
     */
    public long nativeHandle() {
        checkUsable();
        return handle.nativeHandle();
    }

    /** The device's name as the driver reports it. */
    public String name() {
        checkUsable();
        return handle.name();
    }

    /**
     * The built-in backend this context belongs to.
     *
     * @throws UnsupportedOnBackendException for a context of a backend that is not built in (its {@link #backendName()}
     *                                       is not "cuda", "hip" or "cpu"); such code reads {@link #backendName()}
     */
    public Api api() {
        Api a = api;
        if (a == null) {
            throw new UnsupportedOnBackendException("api() on a context of the backend '" + backendName
                    + "', which is not one of the built-in cuda, hip, cpu; backendName() names every backend");
        }
        return a;
    }

    /** The name of this context's backend, as {@link #open(String, int)} takes it: "cuda", "hip", "cpu" or another. */
    public String backendName() {
        return backendName;
    }

    /** The device id within its backend. */
    public int id() {
        return id;
    }

    /** The options this context was opened with, as given (never null: the defaults where none were given). */
    public ContextOptions options() {
        return options;
    }

    /**
     * The version of the driver or runtime behind this context, for logs and bug reports: {@code "CUDA 12.4"},
     * {@code "HIP 6.1"}, or the Java version on the CPU simulator. Not meant to be parsed.
     *
     * @throws ClosedResourceException if the context is closed
     */
    public String driverVersion() {
        checkUsable();
        return handle.driverVersion();
    }

    /**
     * The device's compute capability: on CUDA the SM version kernels are compiled for, on HIP what the runtime
     * reports as such, 0.0 on the CPU simulator.
     *
     * @throws ClosedResourceException if the context is closed
     */
    public ComputeCapability computeCapability() {
        checkUsable();
        return handle.computeCapability();
    }

    /**
     * The value of a device attribute, in the unit {@link DeviceAttribute} gives for it (yes/no attributes: 1 or 0).
     *
     * @throws InvalidArgumentException      naming {@code attribute} for null
     * @throws UnsupportedOnBackendException if this backend cannot report {@code attribute}
     * @throws ClosedResourceException       if the context is closed
     */
    public long attribute(DeviceAttribute attribute) {
        Checks.notNull("attribute", attribute);
        checkUsable();
        return handle.attribute(attribute);
    }

    /** Free and total device memory. */
    public MemoryInfo memoryInfo() {
        checkUsable();
        return handle.memoryInfo();
    }

    /**
     * The current value of a context limit, in the unit {@link Limit} gives for it.
     *
     * @throws UnsupportedOnBackendException if this backend has no such limit
     * @throws ClosedResourceException       if the context is closed
     */
    public long limit(Limit limit) {
        Checks.notNull("limit", limit);
        checkUsable();
        return handle.limit(limit);
    }

    /**
     * Sets a context limit for the kernels launched after this call, on every stream of the context; the driver may
     * round {@code value} (read it back with {@link #limit}). Set limits right after opening the context: CUDA fixes
     * {@link Limit#MALLOC_HEAP_SIZE} once a kernel that uses {@code malloc} has run.
     *
     * @throws InvalidArgumentException      naming {@code value} if it is negative
     * @throws UnsupportedOnBackendException if this backend has no such limit
     * @throws ClosedResourceException       if the context is closed
     */
    public void setLimit(Limit limit, long value) {
        Checks.notNull("limit", limit);
        Checks.nonNegative("value", value);
        checkUsable();
        handle.setLimit(limit, value);
    }

    /**
     * Whether this context's streams copy to and from {@linkplain HostBuffer host buffers} of {@code other} (and
     * {@code other}'s streams to and from this context's), at full speed: true for the context itself, and for another
     * context of the same backend whose pinned memory is pinned for every context of the process (CUDA, HIP and the CPU
     * simulator: a device pipeline over several GPUs then needs one set of pinned buffers, not one per device). Where it
     * is false, such a copy is refused with an {@link InvalidArgumentException}.
     *
     * @throws ClosedResourceException if either context is closed
     */
    public boolean sharesPinnedMemoryWith(DeviceContext other) {
        Checks.notNull("other", other);
        checkUsable();
        other.checkUsable();
        return sharesPinnedMemory(other);
    }

    /** {@link #sharesPinnedMemoryWith} without the checks (the enqueue path: its buffers are already checked open). */
    boolean sharesPinnedMemory(DeviceContext other) {
        return other == this || other.backendName.equals(backendName) && handle.pinnedMemoryPortable();
    }

    /** Whether this device can access {@code peer}'s memory directly (Mojo's {@code can_access}). */
    public boolean canAccess(DeviceContext peer) {
        Checks.notNull("peer", peer);
        checkUsable();
        peer.checkUsable();
        if (peer == this) {
            return true;
        }
        return peer.backendName.equals(backendName) && handle.canAccessPeer(peer.handle);
    }

    /**
     * Lets this device access {@code peer}'s memory directly, which makes peer copies and kernels reading
     * peer memory go over NVLink or PCIe without host staging.
     *
     * @throws InvalidArgumentException if {@code peer} is this context or of another backend
     */
    public void enablePeerAccess(DeviceContext peer) {
        Checks.notNull("peer", peer);
        checkUsable();
        peer.checkUsable();
        if (peer == this || !peer.backendName.equals(backendName)) {
            throw new InvalidArgumentException("peer", peer + " is " + (peer == this ? "this context" : "of another backend"));
        }
        handle.enablePeerAccess(peer.handle);
        peersEnabled.add(peer);
    }

    /**
     * Whether this context or {@code peer} has {@linkplain #enablePeerAccess enabled} access to the other's memory,
     * so that a copy between them goes directly between the devices rather than through host memory.
     */
    boolean peerAccessEnabled(DeviceContext peer) {
        return peersEnabled.contains(peer) || peer.peersEnabled.contains(this);
    }

    /**
     * The context's flags as the device reports them: those given with {@link ContextOptions#withContextFlags}, or, on
     * CUDA's primary context opened without flags, whatever the process set on it (empty where nothing was set).
     */
    public Set<ContextFlag> contextFlags() {
        checkUsable();
        return handle.contextFlags();
    }

    /** Priorities {@link #createStream(StreamOptions)} accepts. */
    public PriorityRange streamPriorityRange() {
        checkUsable();
        return handle.streamPriorityRange();
    }

    LaunchLimits limits() {
        return limits;
    }

    private LaunchLimits readLimits() {
        return new LaunchLimits(
                (int) attr(DeviceAttribute.MAX_THREADS_PER_BLOCK, 1024),
                new Dim((int) attr(DeviceAttribute.MAX_BLOCK_DIM_X, 1024), (int) attr(DeviceAttribute.MAX_BLOCK_DIM_Y, 1024),
                        (int) attr(DeviceAttribute.MAX_BLOCK_DIM_Z, 64)),
                new Dim((int) attr(DeviceAttribute.MAX_GRID_DIM_X, Integer.MAX_VALUE), (int) attr(DeviceAttribute.MAX_GRID_DIM_Y, 65535),
                        (int) attr(DeviceAttribute.MAX_GRID_DIM_Z, 65535)),
                attr(DeviceAttribute.MAX_SHARED_MEMORY_PER_BLOCK, 48 * 1024),
                Math.max(attr(DeviceAttribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0), attr(DeviceAttribute.MAX_SHARED_MEMORY_PER_BLOCK, 48 * 1024)),
                attr(DeviceAttribute.CLUSTER_LAUNCH, 0) != 0);
    }

    private long attr(DeviceAttribute a, long fallback) {
        try {
            return handle.attribute(a);
        } catch (UnsupportedOnBackendException e) {
            return fallback;
        }
    }

    // ---------------------------------------------------------------- streams and events

    /** The default stream (Mojo's {@code ctx.stream()}); it lives as long as the context. */
    public DeviceStream stream() {
        return defaultStream;
    }

    /** A new non-blocking stream of default priority. */
    public DeviceStream createStream() {
        return createStream(StreamOptions.defaults());
    }

    /**
     * A new stream.
     *
     * @throws InvalidArgumentException if the priority lies outside {@link #streamPriorityRange()}
     */
    public DeviceStream createStream(StreamOptions options) {
        Checks.notNull("options", options);
        checkUsable();
        PriorityRange range = handle.streamPriorityRange();
        if (!range.contains(options.priority())) {
            throw new InvalidArgumentException("priority", "value " + options.priority() + " is outside the device's range "
                    + range.greatest() + " (highest) to " + range.least() + " (lowest)");
        }
        StreamHandle h = handle.createStream(options);
        DeviceStream s = new DeviceStream(this, h, false, options.priority(), streamCount.incrementAndGet());
        resources.add(s);
        return s;
    }

    /** A new event; {@link EventFlag#TIMING} to measure with it. */
    public DeviceEvent createEvent(EventFlag... flags) {
        Checks.notNull("flags", flags);
        checkUsable();
        Set<EventFlag> set = flags.length == 0 ? EnumSet.noneOf(EventFlag.class) : EnumSet.copyOf(List.of(flags));
        if (set.contains(EventFlag.INTERPROCESS) && set.contains(EventFlag.TIMING)) {
            throw new InvalidArgumentException("flags", "INTERPROCESS events cannot have TIMING");
        }
        DeviceEvent e = new DeviceEvent(this, handle.createEvent(set), set);
        resources.add(e.owned); // not the event itself, which the leak detector watches
        return e;
    }

    // ---------------------------------------------------------------- memory

    /**
     * Allocates device memory synchronously (Mojo's {@code create_buffer_sync}); contents undefined.
     * Closing the buffer frees it in the default stream's order after all its uses.
     */
    public DeviceBuffer allocate(DType type, long count) {
        Checks.notNull("type", type);
        Checks.positive("count", count);
        long bytes = checkAllocationSize("count", type, count);
        checkUsable();
        DeviceMemory memory = handle.allocate(bytes);
        Allocation a = new Allocation(this, memory, defaultStream);
        DeviceBuffer buffer = new DeviceBuffer(a, type, count);
        buffer.ready(DeviceFuture.completed(null, buffer));
        track(a);
        observers.allocated(bytes);
        return buffer;
    }

    /** Allocates zero-filled page-locked host memory (Mojo's {@code enqueue_create_host_buffer} / {@code malloc_host}). */
    public HostBuffer allocateHost(DType type, long count) {
        Checks.notNull("type", type);
        Checks.positive("count", count);
        long bytes = checkAllocationSize("count", type, count);
        checkUsable();
        HostMemory m = handle.allocateHost(bytes);
        HostAllocation a = new HostAllocation(this, m);
        resources.add(a);
        return new HostBuffer(a, type, count);
    }

    /**
     * Pins existing native memory in place (CUDA's {@code cuMemHostRegister}) so copies from and to it run at
     * full speed, and returns it as a {@link HostBuffer}; closing the buffer unregisters it, once the copies enqueued on
     * it have finished, but does not free the memory, which the caller still owns and must keep alive until then:
     * until the buffer's {@link HostBuffer#whenReleased()} completes.
     *
     * @throws InvalidArgumentException if {@code segment} is on the Java heap, read-only, or not a whole number of elements
     */
    public HostBuffer registerHost(MemorySegment segment, DType type) {
        Checks.notNull("segment", segment);
        Checks.notNull("type", type);
        if (!segment.isNative()) {
            throw new InvalidArgumentException("segment", "is on the Java heap; only native memory can be pinned");
        }
        if (segment.isReadOnly()) {
            throw new InvalidArgumentException("segment", "is read-only");
        }
        Checks.notConfined("segment", segment);
        Checks.positive("segment.byteSize()", segment.byteSize());
        if (segment.byteSize() % type.byteSize() != 0) {
            throw new InvalidArgumentException("segment", segment.byteSize() + " bytes are not a whole number of " + type + " elements");
        }
        checkUsable();
        HostMemory m = handle.registerHost(segment);
        HostAllocation a = new HostAllocation(this, m);
        resources.add(a);
        return new HostBuffer(a, type, segment.byteSize() / type.byteSize());
    }

    long checkAllocationSize(String argument, DType type, long count) {
        if (count > Long.MAX_VALUE / type.byteSize()) {
            throw new InvalidArgumentException(argument, "value " + count + " of " + type + " overflows a byte size");
        }
        return count * type.byteSize();
    }

    HostBuffer mapToHost(DeviceBuffer buffer) {
        refuseBlocking("mapToHost");
        HostBuffer host = allocateHost(buffer.dtype(), buffer.count());
        DeviceStream s = defaultStream;
        for (DeviceFuture<?> use : buffer.allocation.uses.pendingUses(s.core)) {
            s.waitFor(use);
        }
        try {
            join(s.enqueueCopy(buffer, host));
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
        HostAllocation mapped = host.allocation;
        DType type = buffer.dtype();
        long count = buffer.count();
        // Names the allocation, not the buffer: the context holds this while the mapping is open, and the buffer must
        // stay collectable for the leak detector.
        mapped.writeBack = () -> {
            if (!buffer.isClosed() && fault == null && !closed) {
                join(s.enqueueCopy(HostBuffer.internalView(mapped, type, count), buffer));
            }
        };
        return host;
    }

    // ---------------------------------------------------------------- kernels

    /**
     * Compiles (when given source) and loads {@code kernel} for this device: CUDA compiles CUDA C++ with NVRTC
     * for the device's architecture, caching the result on disk, or loads PTX/cubin/fatbin; HIP uses hiprtc or
     * a code object; the CPU backend uses the Java implementation.
     *
     * @throws CompilationException          with the compiler's log if compilation fails
     * @throws UnsupportedOnBackendException if the kernel has no form this backend can run
     */
    public DeviceFunction compile(Kernel kernel) {
        Checks.notNull("kernel", kernel);
        checkUsable();
        long start = System.nanoTime();
        Object token = observers.beginCompile();
        DeviceFunction f;
        try {
            f = new DeviceFunction(this, kernel, handle.load(kernel));
        } catch (RuntimeException e) {
            observers.compiled(kernel, start, token, e);
            throw e;
        }
        observers.compiled(kernel, start, token, null);
        resources.add(f.owned); // not the function itself, which the leak detector watches
        return f;
    }

    // ---------------------------------------------------------------- ordering and timing

    /**
     * Makes work enqueued later on this context's default stream wait, on the device, for everything enqueued
     * so far on {@code other}'s default stream (Mojo's {@code enqueue_wait_for(other)}). Contexts of another
     * backend are waited for through a host gate.
     */
    public DeviceFuture<Void> waitFor(DeviceContext other) {
        Checks.notNull("other", other);
        checkUsable();
        return defaultStream.waitFor(other.stream());
    }

    /**
     * Blocks until all work of every stream of this context has finished and its futures have completed.
     *
     * @throws DeviceException if the device faulted
     */
    public void synchronize() {
        refuseBlocking("DeviceContext.synchronize");
        checkUsable();
        handle.synchronize();
        defaultStream.synchronize();
        for (DeviceStream s : resources.streams()) {
            if (!s.isClosed()) {
                s.synchronize();
            }
        }
        Tracer t = tracer;
        if (t != null) {
            t.awaitResolved(); // trace() after synchronize() holds every span, as Trace promises
        }
        checkUsable();
    }

    /** The work of one timed iteration, enqueued on {@code stream}. */
    @FunctionalInterface
    public interface TimedBody {
        /**
         * Enqueues the work of iteration {@code iteration} (0 to {@code iterations - 1}) on {@code stream}, the
         * context's default stream; called on the thread that called {@link #executionTime}, and must not block on
         * the work it enqueues.
         */
        void enqueue(DeviceStream stream, int iteration);
    }

    /**
     * Device time of {@code iterations} runs of {@code body} on the default stream, measured with timing
     * events recorded before the first and after the last (Mojo's {@code execution_time_iter}). Blocks until
     * the work has finished. The total is returned; divide by {@code iterations} for the mean.
     */
    public Duration executionTime(int iterations, TimedBody body) {
        Checks.positive("iterations", iterations);
        Checks.notNull("body", body);
        refuseBlocking("executionTime");
        try (DeviceEvent start = createEvent(EventFlag.TIMING); DeviceEvent end = createEvent(EventFlag.TIMING)) {
            defaultStream.enqueueRecord(start);
            for (int i = 0; i < iterations; i++) {
                body.enqueue(defaultStream, i);
            }
            defaultStream.enqueueRecord(end);
            end.synchronize();
            return start.elapsed(end);
        }
    }

    /**
     * The device timeline recorded so far (tracing on): a snapshot of the {@link TraceSpan}s of the operations
     * that have finished on any stream of this context; see {@link Trace} for when spans resolve. Readable after
     * {@link #close()} too. Write it with {@link Trace#writeChromeJson} for Perfetto; JDK Flight Recorder gets
     * the same spans as {@code dev.sluice.DeviceOperation} events while it records.
     *
     * @throws IllegalStateException if the context was opened with tracing off
     */
    public Trace trace() {
        Tracer t = tracer;
        if (t == null) {
            throw new IllegalStateException("tracing is off for " + this
                    + ": open the context with ContextOptions.defaults().withTracing(true)");
        }
        return Trace.of(t);
    }

    /**
     * Registers {@code listener} for this context's operations, memory, kernels and faults, until the returned
     * registration is closed or the context closes. Listeners are called in the order of registration; see
     * {@link DeviceListener} for the threads they run on and what they cost.
     *
     * @throws InvalidArgumentException naming {@code listener} for null
     * @throws ClosedResourceException  if the context is closed
     */
    public DeviceListener.Registration addListener(DeviceListener listener) {
        Checks.notNull("listener", listener);
        if (closed) {
            throw new ClosedResourceException(toString());
        }
        return observers.add(listener);
    }

    /** Whether this context records a {@link #trace()}. */
    public boolean isTracing() {
        return tracer != null;
    }

    /** The blocking facade over the default stream (Mojo's {@code *_sync} family). */
    public SyncStream sync() {
        return defaultStream.sync();
    }

    // ---------------------------------------------------------------- life cycle

    /**
     * Throws if the context is closed or faulted. Cheap: two volatile reads.
     */
    void checkUsable() {
        if (closed) {
            throw new ClosedResourceException(toString());
        }
        Throwable f = fault;
        if (f != null) {
            throw rethrowableFault(f);
        }
    }

    private static SluiceException rethrowableFault(Throwable f) {
        if (f instanceof SluiceException se) {
            return new DeviceException("the context faulted earlier: " + se.getMessage(), se.errorName().orElse(null),
                    se.errorCode().isPresent() ? se.errorCode().getAsInt() : null, true, se);
        }
        return new DeviceException("the context faulted earlier: " + f, null, null, true, f);
    }

    /** The fault that stopped this context, if any. */
    @Nullable Throwable fault() {
        return fault;
    }

    /** Whether the context faulted (a sticky device error); it then stays unusable. */
    public boolean isFaulted() {
        return fault != null;
    }

    /** Called by the completion engine when a marker reports a device fault. */
    void faulted(Throwable cause) {
        if (fault == null) {
            fault = cause;
            LOG.log(System.Logger.Level.WARNING, this + " faulted: " + cause.getMessage());
            observers.faulted(cause);
        }
    }

    void refuseOnCompletionThread(String what) {
        if (engine.isCompletionThread()) {
            throw new IllegalStateException(what + " blocks, and would wait for the completion thread it was called on;"
                    + " use a *Async stage or another thread");
        }
    }

    /** The context whose host function ({@link DeviceStream#enqueueHostFunction}) the current thread runs, if any. */
    private static final ThreadLocal<DeviceContext> HOST_FUNCTION_OF = new ThreadLocal<>();

    /** Runs a host function of this context on the current (host executor) thread, marked as such for {@link #refuseBlocking}. */
    void runHostFunction(Runnable function) {
        HOST_FUNCTION_OF.set(this);
        try {
            function.run();
        } finally {
            HOST_FUNCTION_OF.remove();
        }
    }

    /**
     * Refuses a call that blocks where it would wedge this context: on a completion thread (of any context: the wait may
     * need its futures) or inside a host function of this context (its stream, and the work the call waits for, is held
     * until the function returns).
     *
     * @throws IllegalStateException naming {@code what} and the thread
     */
    void refuseBlocking(String what) {
        refuseOnCompletionThread(what);
        Thread t = Thread.currentThread();
        if (t.getName().startsWith("sluice-completion-")) {
            throw new IllegalStateException(what + " blocks, and was called on " + t.getName() + ", a completion thread whose"
                    + " futures it may wait for; use a *Async stage or another thread");
        }
        if (HOST_FUNCTION_OF.get() == this) {
            throw new IllegalStateException(what + " blocks, and was called in a host function of " + this + " ("
                    + t.getName() + "): the stream's later work waits until the host function returns;"
                    + " enqueue the work instead, or wait on another thread");
        }
    }

    ExecutorService hostExecutor() {
        ExecutorService e = hostExecutor;
        if (e == null) {
            synchronized (this) {
                e = hostExecutor;
                if (e == null) {
                    e = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-host-" + backendName + "-" + id + "-", 0).factory());
                    hostExecutor = e;
                }
            }
        }
        return e;
    }

    void track(Allocation a) {
        resources.add(a);
    }

    /** See {@link ContextResources#retire}. */
    void retire(Allocation a, List<DeviceFuture<?>> pendingUses) {
        resources.retire(a, pendingUses);
    }

    void untrack(Allocation a) {
        resources.remove(a);
    }

    void forget(Object o) {
        resources.remove(o);
    }

    /**
     * Frees a closed buffer's memory after all its uses, in its home stream's order, or the default stream's once the
     * home stream is closed (also when it closes while this runs). If the context is closed or faulted, its close()
     * frees what it still owns.
     */
    void release(Allocation a) {
        if (closed || fault != null) {
            return; // close() frees it (a faulted context's memory too)
        }
        DeviceStream s = a.home.isClosed() ? defaultStream : a.home;
        try {
            s.freeInOrder(a);
        } catch (ClosedResourceException e) {
            if (s != defaultStream && !closed) {
                try {
                    defaultStream.freeInOrder(a); // the home stream closed meanwhile
                } catch (SluiceException again) {
                    LOG.log(System.Logger.Level.DEBUG, "free of " + a.memory + " left to the context's close", again);
                }
            }
        } catch (SluiceException e) {
            LOG.log(System.Logger.Level.DEBUG, "free of " + a.memory + " left to the context's close", e);
        }
    }

    /** Frees closed host memory once the device has finished every copy using it; see {@link ContextResources#release}. */
    void release(HostAllocation a) {
        resources.release(a);
    }

    void trackGate(HostGate gate, DeviceFuture<?> future) {
        resources.trackGate(gate, future);
    }

    void untrackGate(HostGate gate) {
        resources.untrackGate(gate);
    }

    /** Whether {@link #close()} has begun; a closed context refuses every new operation. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Waits for all work, then destroys every stream, event, function and buffer the context still owns and
     * the native context. Work held behind a stage that has not completed ({@link DeviceStream#waitFor(java.util.concurrent.CompletionStage)},
     * host functions after it) never runs: its futures and the waits fail with {@link ClosedResourceException} (with
     * {@link HostWaits#GATE_ON_DEVICE} the gates open and such work runs). Futures still pending fail with it too:
     * enqueues racing with close() either complete or fail, none is left pending.
     *
     * <p>Idempotent and safe from any thread: a concurrent second call waits until the first has finished. Memory is
     * freed only once the device has finished with it. If a dependent stage blocks the completion thread, close() waits
     * for futures at most 10 s after the device has finished, then fails the rest and returns.
     *
     * <p><b>Other contexts' work on this context's memory</b> (a peer copy into or out of one of its buffers, a copy to
     * or from its shared pinned memory, enqueued on another context's stream) is waited for up to the same deadline. A
     * close that reaches it with such work still pending (held on the host behind a stage that has not completed, say)
     * returns, but frees none of the memory that work uses, nor the native context it belongs to: both stay allocated,
     * and a warning is logged, until that work has finished on the device or been dropped by its own context's close;
     * then they are released on a thread of their own. The buffers themselves are closed at once.
     *
     * @throws IllegalStateException on a completion thread or in a host function of this context, where it would wait
     *                               for itself
     */
    @Override
    public void close() {
        if (closeDone.getCount() == 0) {
            return;
        }
        refuseBlocking("DeviceContext.close");
        if (!closeClaimed.compareAndSet(false, true)) {
            boolean interrupted = false;
            while (true) {
                try {
                    closeDone.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            closeOnce();
        } finally {
            closeDone.countDown();
            handshake.closed(this);
        }
    }

    private void closeOnce() {
        ClosedResourceException closing = new ClosedResourceException(toString());
        this.closing.completeExceptionally(closing);
        // Work held on the host behind a wait that never ended must not run now: drop it, failing its futures. (With
        // HostWaits.GATE_ON_DEVICE it waits on the device, and opening the gates below lets it run.)
        List<DeviceStream> streams = resources.streams();
        defaultStream.dropHeld(closing);
        for (DeviceStream s : streams) {
            s.dropHeld(closing);
        }
        resources.openGates(closing);
        long deadline = System.nanoTime() + closeFuturesNanos;
        if (fault == null) {
            drainForClose(defaultStream, deadline);
            for (DeviceStream s : streams) {
                drainForClose(s, deadline);
            }
        }
        closed = true; // from here every enqueue is refused (checked under its stream's lock)
        try {
            defaultStream.closeInternal(false, deadline, false); // waits for an enqueue in flight on it, then for its work
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the default stream during close failed", e); // a fault the engine has not seen yet
        }
        LeftBehind left = new LeftBehind(toString(), handle);
        resources.releaseAll(fault != null, deadline, left);
        engine.stop(closing, deadline - System.nanoTime());
        if (tracer != null) {
            try {
                tracer.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing the tracer failed", e);
            }
        }
        ExecutorService e = hostExecutor;
        if (e != null) {
            e.shutdown();
        }
        handshake.awaitReleases(this); // a free claimed on another thread before releaseAll reaches the backend before the native close
        left.seal(); // closes the native context now, or once other contexts' work on its memory is done or dropped
        observers.closed();
    }

    /** Waits for {@code s}'s work on the device, then for its futures until {@code deadline}; failures are logged. */
    private void drainForClose(DeviceStream s, long deadline) {
        try {
            s.drain(deadline);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "synchronize of " + s + " during close failed", e);
        }
    }

    static <T> T join(DeviceFuture<T> f) {
        return SyncStream.await(f);
    }

    @Override
    public String toString() {
        return "DeviceContext[" + backendName + ":" + id + "]";
    }
}
