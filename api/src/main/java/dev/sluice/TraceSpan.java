package dev.sluice;

import org.jspecify.annotations.Nullable;

/**
 * One operation's run on the device, as recorded with tracing on ({@link ContextOptions#withTracing(boolean)}):
 * the device times at which its stream reached the operation and finished it, measured by timing events
 * recorded before and after it (on GPUs) or by clocks (on the CPU simulator).
 *
 * <p>Times are in nanoseconds since the context's trace base, recorded when the context opened. GPU event
 * timers resolve about half a microsecond. A span starts when the stream reaches the operation: for an
 * operation enqueued on a busy stream that is when the previous one ended, not when the call was made.
 *
 * @param stream     the stream's name in the trace: {@code "default"} or {@code "stream N"}
 * @param kind       what ran: {@code upload}, {@code download}, {@code d2d}, {@code peer}, {@code peer-staged}, {@code memset},
 *                   {@code kernel <name>}, {@code record}, {@code wait}, {@code host}, {@code marker},
 *                   {@code alloc}, {@code free} or {@code graph}
 * @param label      the label in effect on the stream when the operation was enqueued
 *                   ({@link DeviceStream#label(String)}), or null
 * @param startNanos when the stream reached the operation
 * @param endNanos   when the operation had finished; never before {@code startNanos}
 */
public record TraceSpan(String stream, String kind, @Nullable String label, long startNanos, long endNanos) {

    public static final String UPLOAD = "upload";
    public static final String DOWNLOAD = "download";
    public static final String DEVICE_TO_DEVICE = "d2d";
    /** A copy between two contexts that have peer access: directly between the devices. */
    public static final String PEER = "peer";
    /**
     * A copy between two contexts without peer access ({@link DeviceContext#enablePeerAccess} not called either way,
     * or impossible): the driver stages it through host memory, at host-link speed.
     */
    public static final String PEER_STAGED = "peer-staged";
    public static final String MEMSET = "memset";
    /** The kind of a launch is this word, a space, and the kernel's name. */
    public static final String KERNEL = "kernel";
    public static final String RECORD = "record";
    public static final String WAIT = "wait";
    public static final String HOST = "host";
    public static final String MARKER = "marker";
    public static final String ALLOC = "alloc";
    public static final String FREE = "free";
    public static final String GRAPH = "graph";
    /** One launch of repeated work's graph, updated with the call's arguments ({@code DeviceStream.repeatedWork()}). */
    public static final String REPLAY = "replay";
    /** One launch of repeated work's graph, built anew: the first call, or one whose work changed shape. */
    public static final String REPLAY_BUILT = "replay (new graph)";

    /**
     * Checks that the span has a stream and a kind and does not end before it starts.
     *
     * @throws InvalidArgumentException naming the argument for a null stream or kind, or an end before the start
     */
    public TraceSpan {
        Checks.notNull("stream", stream);
        Checks.notNull("kind", kind);
        if (endNanos < startNanos) {
            throw new InvalidArgumentException("endNanos", "span ends (" + endNanos + " ns) before it starts ("
                    + startNanos + " ns)");
        }
    }

    /** The span's duration in nanoseconds: {@code end - start}. */
    public long durationNanos() {
        return endNanos - startNanos;
    }

    /** The kind's first word: {@code "kernel"} for every launch, the kind itself otherwise. */
    public String category() {
        int space = kind.indexOf(' ');
        return space < 0 ? kind : kind.substring(0, space);
    }

    /**
     * What ran, as the enum listeners and metrics use: {@link OperationKind#ofTraceKind} of {@link #kind()}.
     *
     * @throws InvalidArgumentException if the kind is the trace name of no operation kind (a span made by hand)
     */
    public OperationKind operationKind() {
        return OperationKind.ofTraceKind(kind);
    }

    /** For a launch, the kernel's name; otherwise empty. */
    public String kernelName() {
        return kind.startsWith(KERNEL + " ") ? kind.substring(KERNEL.length() + 1) : "";
    }
}
