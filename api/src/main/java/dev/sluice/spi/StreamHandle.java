package dev.sluice.spi;

import dev.sluice.LaunchConfig;
import java.lang.foreign.MemorySegment;

/**
 * A backend stream: an in-order queue. Every enqueue method returns at once, after the work is queued;
 * errors detected at enqueue are thrown as {@link dev.sluice.SluiceException}s, errors on the device
 * surface through {@link Marker#isDone()}.
 *
 * <p>Host memory passed to copies may be native (pinned, registered or pageable) or on the Java heap
 * (a segment over an array): the backend reads or writes it in stream order, staging where it must.
 * The public layer keeps the memory reachable until the copy's future completes.
 */
public interface StreamHandle {

    /** Copies {@code bytes} from host memory to {@code destination} at {@code destinationOffset}, in stream order. */
    void copyHostToDevice(MemorySegment source, DeviceMemory destination, long destinationOffset, long bytes);

    /** Copies {@code bytes} from {@code source} at {@code sourceOffset} to host memory, in stream order. */
    void copyDeviceToHost(DeviceMemory source, long sourceOffset, MemorySegment destination, long bytes);

    /** Copies {@code bytes} between two buffers of this context, in stream order. */
    void copyDeviceToDevice(DeviceMemory source, long sourceOffset, DeviceMemory destination, long destinationOffset,
            long bytes);

    /** Copy between two contexts' memory (peer copy on GPUs); this stream belongs to the destination context. */
    void copyPeer(ContextHandle sourceContext, DeviceMemory source, long sourceOffset, ContextHandle destinationContext,
            DeviceMemory destination, long destinationOffset, long bytes);

    /**
     * Copies a rectangle of {@code height} rows of {@code widthBytes} bytes from host memory, whose rows start
     * {@code sourcePitch} bytes apart from byte 0 of {@code source}, to {@code destination}, whose rows start
     * {@code destinationPitch} bytes apart from {@code destinationOffset}, in stream order; the bytes between rows are
     * left as they are. The public layer has checked that both rectangles lie inside their memory and that each pitch
     * is at least {@code widthBytes}. The default enqueues one {@link #copyHostToDevice} per row, so every backend has
     * it; backends with a native pitched copy override it.
     */
    default void copyHostToDevice2D(MemorySegment source, long sourcePitch, DeviceMemory destination, long destinationOffset,
            long destinationPitch, long widthBytes, long height) {
        for (long row = 0; row < height; row++) {
            copyHostToDevice(source.asSlice(row * sourcePitch, widthBytes), destination, destinationOffset + row * destinationPitch,
                    widthBytes);
        }
    }

    /** {@link #copyHostToDevice2D} the other way: from device memory to host memory; the default copies row by row. */
    default void copyDeviceToHost2D(DeviceMemory source, long sourceOffset, long sourcePitch, MemorySegment destination,
            long destinationPitch, long widthBytes, long height) {
        for (long row = 0; row < height; row++) {
            copyDeviceToHost(source, sourceOffset + row * sourcePitch, destination.asSlice(row * destinationPitch, widthBytes),
                    widthBytes);
        }
    }

    /** {@link #copyHostToDevice2D} between two buffers of this context; the default copies row by row. */
    default void copyDeviceToDevice2D(DeviceMemory source, long sourceOffset, long sourcePitch, DeviceMemory destination,
            long destinationOffset, long destinationPitch, long widthBytes, long height) {
        for (long row = 0; row < height; row++) {
            copyDeviceToDevice(source, sourceOffset + row * sourcePitch, destination, destinationOffset + row * destinationPitch,
                    widthBytes);
        }
    }

    /** Sets {@code count} elements of {@code elementBytes} (1, 2, 4 or 8) to the low bits of {@code bits}. */
    void fill(DeviceMemory destination, long offset, long count, int elementBytes, long bits);

    /** Stream-ordered allocation: usable by work enqueued after it on this stream. */
    DeviceMemory allocate(long bytes);

    /** Stream-ordered free. */
    void free(DeviceMemory memory);

    /** Launches {@code function} over {@code config}'s grid with {@code arguments}, in stream order. */
    void launch(FunctionHandle function, LaunchConfig config, LaunchArguments arguments);

    /** Records {@code event} after everything enqueued so far. */
    void record(EventHandle event);

    /** Makes work enqueued later wait, on the device, until {@code event} has completed. */
    void waitEvent(EventHandle event);

    /** Records a completion marker after everything enqueued so far. */
    Marker recordMarker();

    /** Device-side wait: work enqueued after this call waits for {@code marker}, which may belong to any stream or context. */
    void waitMarker(Marker marker);

    /** Enqueues a gate that host code opens; see {@link HostGate}. */
    HostGate enqueueHostGate();

    /** Blocks the caller until everything enqueued so far has finished. */
    void synchronize();

    /** Starts capturing work into a graph instead of running it. */
    default void beginCapture() {
        throw new dev.sluice.UnsupportedOnBackendException("stream capture", null);
    }

    /**
     * While capturing: captures {@code step} as a host step of the graph (CUDA and HIP: a captured
     * {@code cuLaunchHostFunc} / {@code hipLaunchHostFunc}, which becomes a host node). Each replay runs it once on a
     * thread of the backend, after the work captured before it and before the work captured after it; it never
     * throws. The backend keeps it callable until the graph is destroyed, which the public layer does only once no
     * replay is running its steps. The public layer makes each replay of such a graph wait for the one before, on the
     * device, when it is launched on another stream, so the replays run one after another in launch order.
     *
     * @throws dev.sluice.UnsupportedOnBackendException if the backend cannot run host code inside a graph, with
     *                                                  nothing captured
     */
    default void captureHostStep(Runnable step) {
        throw new dev.sluice.UnsupportedOnBackendException("host functions and host waits inside a captured graph", null);
    }

    /** Ends capture and returns the executable graph. */
    default GraphHandle endCapture() {
        throw new dev.sluice.UnsupportedOnBackendException("stream capture", null);
    }

    /** Destroys the stream; the public layer has synchronised it first. */
    void destroy();

    /** The backend's own stream handle (CUDA: the {@code CUstream}; HIP: the {@code hipStream_t}). */
    default long nativeHandle() {
        throw new dev.sluice.UnsupportedOnBackendException("native stream handles (this backend has no driver stream to share)");
    }
}
