package dev.sluice;

/**
 * What an operation on a stream is: the kind a {@link TraceSpan}, a {@link DeviceListener} and the metrics report. Each
 * kind has the name a trace shows ({@link #traceName()}), the category listeners and metrics group it under
 * ({@link #category()}), and whether it is a copy that moves bytes ({@link #isCopy()}, the copies' sizes being
 * reported with them).
 */
public enum OperationKind {
    /** A copy from host memory to a device buffer. */
    UPLOAD("upload", "upload", true),
    /** A copy from a device buffer to host memory. */
    DOWNLOAD("download", "download", true),
    /** A copy between two device buffers of one context. */
    DEVICE_TO_DEVICE("d2d", "d2d", true),
    /** A copy between buffers of two contexts with peer access: the devices move the bytes between them. */
    PEER("peer", "peer", true),
    /** A copy between buffers of two contexts without peer access, staged through host memory by the driver. */
    PEER_STAGED("peer-staged", "peer-staged", true),
    /** A fill or memset of a device buffer. */
    MEMSET("memset", "memset", false),
    /** A kernel launch; a trace names the kernel after the kind ({@code "kernel scale"}). */
    KERNEL("kernel", "kernel", false),
    /** An event record. */
    RECORD("record", "record", false),
    /** A wait for an event, another stream's operation or a host stage. */
    WAIT("wait", "wait", false),
    /** A host function run in stream order. */
    HOST("host", "host", false),
    /** A marker: completes once the work enqueued before it has finished. */
    MARKER("marker", "marker", false),
    /** A stream-ordered allocation. */
    ALLOC("alloc", "alloc", false),
    /** A stream-ordered free. */
    FREE("free", "free", false),
    /** A launch of a captured graph ({@link DeviceGraph}). */
    GRAPH("graph", "graph", false),
    /** One launch of repeated work's graph, updated with the call's arguments ({@link RepeatedWork}). */
    REPLAY("replay", "replay", false),
    /** One launch of repeated work's graph, built anew: the first call, or one whose work changed shape. */
    REPLAY_BUILT("replay (new graph)", "replay", false);

    private final String traceName;
    private final String category;
    private final boolean copy;

    OperationKind(String traceName, String category, boolean copy) {
        this.traceName = traceName;
        this.category = category;
        this.copy = copy;
    }

    /**
     * What a trace calls it ({@link TraceSpan#kind()}): {@code "upload"}, {@code "d2d"}, {@code "replay (new graph)"}...;
     * a launch's span adds the kernel's name ({@code "kernel scale"}).
     */
    public String traceName() {
        return traceName;
    }

    /**
     * The category listeners and metrics report it under ({@link TraceSpan#category()}): the trace name, except
     * {@code "replay"} for both kinds of repeated work's launches.
     */
    public String category() {
        return category;
    }

    /** Whether it is a copy, whose listeners and metrics are told the bytes it moves. */
    public boolean isCopy() {
        return copy;
    }

    /**
     * The kind a trace's span kind names ({@code "kernel scale"} is {@link #KERNEL}), as {@link TraceSpan#operationKind()}
     * reads it.
     *
     * @throws InvalidArgumentException naming {@code traceKind} if no kind has that trace name
     */
    public static OperationKind ofTraceKind(String traceKind) {
        Checks.notNull("traceKind", traceKind);
        if (traceKind.startsWith("kernel ")) {
            return KERNEL;
        }
        for (OperationKind k : values()) {
            if (k.traceName.equals(traceKind)) {
                return k;
            }
        }
        throw new InvalidArgumentException("traceKind", "'" + traceKind + "' is the trace name of no operation kind; the"
                + " names are " + java.util.Arrays.stream(values()).map(OperationKind::traceName).toList());
    }
}
