package dev.sluice.spi;

import dev.sluice.ComputeCapability;
import dev.sluice.ContextFlag;
import dev.sluice.DeviceAttribute;
import dev.sluice.EventFlag;
import dev.sluice.Kernel;
import dev.sluice.Limit;
import dev.sluice.MemoryInfo;
import dev.sluice.PriorityRange;
import dev.sluice.StreamOptions;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * One opened device of a backend. Every method may be called from any thread; the backend binds its
 * native context to the calling thread itself where the native API needs that (CUDA's current context).
 */
public interface ContextHandle {

    /** The device's name as the driver reports it. */
    String name();

    /** Driver or runtime version, as the backend prints it ("CUDA 13.0", "HIP 5.2", "Java 25"). */
    String driverVersion();

    /** The device's compute capability (the CPU simulator reports its own). */
    ComputeCapability computeCapability();

    /**
     * The device attribute's value, read now; called only on an open context.
     *
     * @throws dev.sluice.UnsupportedOnBackendException if the backend has no such attribute
     */
    long attribute(DeviceAttribute attribute);

    /** Free and total device memory, in bytes, as the driver reports them now. */
    MemoryInfo memoryInfo();

    /**
     * The context limit's current value.
     *
     * @throws dev.sluice.UnsupportedOnBackendException if the backend has no such limit
     */
    long limit(Limit limit);

    /**
     * Sets the context limit; {@code value} is already checked to be non-negative.
     *
     * @throws dev.sluice.UnsupportedOnBackendException if the backend has no such limit
     */
    void setLimit(Limit limit, long value);

    /** Whether this device can access {@code peer}'s memory directly. */
    boolean canAccessPeer(ContextHandle peer);

    /** Lets this context access {@code peer}'s memory directly; refuses if it cannot. */
    void enablePeerAccess(ContextHandle peer);

    /** The range of stream priorities the device accepts. */
    PriorityRange streamPriorityRange();

    /** The context's flags as the device reports them (the CPU simulator: as given when opened). */
    Set<ContextFlag> contextFlags();

    /**
     * How the context's futures learn that the device finished, in words (for {@code sluice check} and diagnostics):
     * which mechanism the backend chose when the context opened, and, where it fell back, why.
     */
    default String completion() {
        return "completion markers polled by the completion thread";
    }

    /** The context's default stream; created with the context, destroyed with it. */
    StreamHandle defaultStream();

    /**
     * Creates a stream of this context; the public layer closes it.
     *
     * @param options flags and a priority already checked against {@link #streamPriorityRange()}
     */
    StreamHandle createStream(StreamOptions options);

    /** Creates an event with {@code flags}. */
    EventHandle createEvent(Set<EventFlag> flags);

    /** Synchronous device allocation. @throws dev.sluice.DeviceOutOfMemoryException when it does not fit */
    DeviceMemory allocate(long bytes);

    /** Synchronous free; the public layer has already waited for every use of the memory. */
    void free(DeviceMemory memory);

    /** Page-locked host memory, zero-filled. */
    HostMemory allocateHost(long bytes);

    /** Pins existing native host memory in place. */
    HostMemory registerHost(MemorySegment segment);

    /** Frees pinned host memory from {@link #allocateHost}, after every copy using it has completed. */
    void freeHost(HostMemory memory);

    /**
     * Whether the host memory this backend pins ({@link #allocateHost}, {@link #registerHost}) is pinned for every
     * context of this backend in the process, so that a stream of any of them copies to and from it at full speed, as
     * with CUDA's and HIP's {@code PORTABLE} flags. Then the public layer lets a stream copy to and from a host buffer of
     * another context of this backend. Default: false (host buffers serve their own context's streams only).
     */
    default boolean pinnedMemoryPortable() {
        return false;
    }

    /**
     * Compiles (if needed) and loads {@code kernel} for this device, choosing the source form this backend
     * understands. @throws dev.sluice.CompilationException with the compiler's log
     * @throws dev.sluice.UnsupportedOnBackendException if the kernel carries no form this backend can run
     */
    FunctionHandle load(Kernel kernel);

    /** Blocks until all work of the context has finished. */
    void synchronize();

    /** Destroys the context; the public layer has synchronised and freed everything first. */
    void close();

    /** Starts ({@code true}) or stops an external profiler's capture (cuProfilerStart / Stop); a no-op where there is none. */
    default void profiler(boolean start) {
    }

    /** The backend's own context handle (CUDA: the {@code CUcontext}). */
    default long nativeHandle() {
        throw new dev.sluice.UnsupportedOnBackendException("native context handles (this backend has no driver context to share)");
    }

    /**
     * Builds an executable graph that runs {@code steps} in order, one after another, each launch running on the stream
     * it is launched on, without enqueuing anything now. The public layer calls it for repeated work whose shape changed,
     * then {@link UpdatableGraph#update} while the shape stays the same. The default says the backend cannot: repeated
     * work then runs as plain enqueues.
     *
     * @throws dev.sluice.UnsupportedOnBackendException if the backend builds no such graphs
     */
    default UpdatableGraph buildGraph(java.util.List<WorkStep> steps) {
        throw new dev.sluice.UnsupportedOnBackendException("graph replay of repeated work", null);
    }
}
