package dev.sluice.spi;

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

    /**
     * Enqueues {@code step} (a copy of any kind, a fill or a launch) in stream order. Every device operation reaches
     * the backend here, whether the public layer enqueues it at once or submits it later (held on the host, or recorded
     * by repeated work that could not be replayed as a graph). A launch's {@link LaunchArguments} may be the public
     * layer's instance, reused for the stream's next launch: the backend must not keep it after the call returns.
     * {@link dev.sluice.spi.support.DispatchingStream} gives each kind of step a method of its own.
     */
    void enqueue(WorkStep step);

    /** Stream-ordered allocation: usable by work enqueued after it on this stream. */
    DeviceMemory allocate(long bytes);

    /** Stream-ordered free. */
    void free(DeviceMemory memory);

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
