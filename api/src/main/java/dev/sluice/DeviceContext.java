package dev.sluice;

import dev.sluice.engine.ContextRuntime;
import dev.sluice.engine.HostAllocation;
import dev.sluice.observe.JfrEvents;
import dev.sluice.observe.Tracer;
import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
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
    private final int id;
    private final ContextOptions options;
    /** Fault state, completion thread, what the context owns, and the close sequence. */
    final ContextRuntime core;
    private final DeviceStream defaultStream;
    private final LaunchLimits limits;
    private final AtomicInteger streamCount = new AtomicInteger();
    /** The listeners and Flight Recorder events of this context. */
    final Observers observers = new Observers(this);
    /**
     * {@link #observers} while a listener or a recording wants operations, else null: the enqueue hook's one volatile
     * read ({@code DeviceStream.future}).
     */
    volatile @Nullable Observers observing;

    private DeviceContext(String backendName, int id, ContextHandle handle, ContextOptions options) {
        this.backendName = backendName;
        this.api = Backends.builtIn(backendName);
        this.id = id;
        this.handle = handle;
        this.options = options;
        this.core = new ContextRuntime(toString(), backendName + "-" + id + "-" + CONTEXTS.incrementAndGet(), backendName + ":" + id,
                handle, options, observers);
        this.defaultStream = new DeviceStream(this, handle.defaultStream(), true, 0, 0);
        this.limits = readLimits();
        core.start();
        observers.opened();
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
     * How this context's futures learn that the device has finished, in words, for diagnostics ({@code sluice check}
     * prints it): on CUDA and HIP, device-written counters in host-mapped memory where the driver performs stream
     * memory writes, else event queries through the driver, with the reason; decided when the context opened. The
     * wording is for people and may change between releases.
     *
     * @throws ClosedResourceException if the context is closed
     */
    public String completion() {
        checkUsable();
        return handle.completion();
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
        core.peerEnabled(peer.core);
    }

    /**
     * Whether this context or {@code peer} has {@linkplain #enablePeerAccess enabled} access to the other's memory,
     * so that a copy between them goes directly between the devices rather than through host memory.
     */
    boolean peerAccessEnabled(DeviceContext peer) {
        return core.peerAccessEnabled(peer.core);
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
        return new DeviceStream(this, h, false, options.priority(), streamCount.incrementAndGet());
    }

    /**
     * A new event; {@link EventFlag#TIMING} to measure with it.
     *
     * @throws InvalidArgumentException naming {@code flags} for a null array or element, or INTERPROCESS with TIMING
     */
    public DeviceEvent createEvent(EventFlag... flags) {
        Checks.noNulls("flags", flags);
        checkUsable();
        Set<EventFlag> set = flags.length == 0 ? EnumSet.noneOf(EventFlag.class) : EnumSet.copyOf(List.of(flags));
        if (set.contains(EventFlag.INTERPROCESS) && set.contains(EventFlag.TIMING)) {
            throw new InvalidArgumentException("flags", "INTERPROCESS events cannot have TIMING");
        }
        return new DeviceEvent(this, handle.createEvent(set), set); // owned by the context through its OwnedHandle
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
        DeviceBuffer buffer = new DeviceBuffer(this, core.allocate(bytes), type, count);
        buffer.ready(DeviceFuture.completed(buffer));
        return buffer;
    }

    /** Allocates zero-filled page-locked host memory (Mojo's {@code enqueue_create_host_buffer} / {@code malloc_host}). */
    public HostBuffer allocateHost(DType type, long count) {
        Checks.notNull("type", type);
        Checks.positive("count", count);
        long bytes = checkAllocationSize("count", type, count);
        return new HostBuffer(this, core.allocateHost(bytes), type, count);
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
        return new HostBuffer(this, core.registerHost(segment), type, segment.byteSize() / type.byteSize());
    }

    long checkAllocationSize(String argument, DType type, long count) {
        if (count > Long.MAX_VALUE / type.byteSize()) {
            throw new InvalidArgumentException(argument, "value " + count + " of " + type + " overflows a byte size");
        }
        return count * type.byteSize();
    }

    HostBuffer mapToHost(DeviceBuffer buffer) {
        core.refuseBlocking("mapToHost");
        HostBuffer host = allocateHost(buffer.dtype(), buffer.count());
        DeviceStream s = defaultStream;
        s.engine.memory().waitForUses(buffer.allocation()); // also other streams' unordered uses
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
        mapped.writeBack(() -> {
            if (!buffer.isClosed() && core.fault() == null && !core.isClosed()) {
                join(s.enqueueCopy(HostBuffer.internalView(this, mapped, type, count), buffer));
            }
        });
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
        JfrEvents.@Nullable Started token = observers.beginCompile();
        DeviceFunction f;
        try {
            f = new DeviceFunction(this, kernel, handle.load(kernel));
        } catch (RuntimeException e) {
            observers.compiled(kernel, start, token, e);
            throw e;
        }
        observers.compiled(kernel, start, token, null);
        return f; // owned by the context through its OwnedHandle
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
        core.synchronize();
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
        Tracer t = core.tracing();
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
        if (core.isClosed()) {
            throw new ClosedResourceException(toString());
        }
        return observers.add(listener);
    }

    /** Whether this context records a {@link #trace()}. */
    public boolean isTracing() {
        return core.tracing() != null;
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
        core.checkUsable();
    }

    /** Whether the context faulted (a sticky device error); it then stays unusable. */
    public boolean isFaulted() {
        return core.fault() != null;
    }

    /**
     * Refuses a call that blocks where it would wedge this context: on a completion thread (of any context: the wait may
     * need its futures) or inside a host function of this context (its stream, and the work the call waits for, is held
     * until the function returns).
     *
     * @throws IllegalStateException naming {@code what} and the thread
     */
    void refuseBlocking(String what) {
        core.refuseBlocking(what);
    }

    /**
     * What this context still owns that was opened through it and not closed: one description per stream (the default
     * stream aside), device buffer and host buffer (per allocation: a buffer's views share one), in no particular order.
     * For tests and leak checks ({@code sluice-test}'s extension fails a test that leaves any open); {@link #close()}
     * would release them all. Memory closed but whose free still waits for earlier work in stream order is not listed,
     * nor a buffer the leak detector already released. A snapshot: other threads may open and close meanwhile.
     *
     * @return a new list, empty when nothing is open
     */
    public List<String> openResources() {
        return core.openResources();
    }

    /** Whether {@link #close()} has begun; a closed context refuses every new operation. */
    public boolean isClosed() {
        return core.isClosed();
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
        core.close(observers::closed);
    }

    static <T> T join(DeviceFuture<T> f) {
        return SyncStream.await(f);
    }

    @Override
    public String toString() {
        return "DeviceContext[" + backendName + ":" + id + "]";
    }
}
