package dev.sluice;

import org.jspecify.annotations.Nullable;

/**
 * Observes one context's operations, memory, kernels and faults, for metrics ({@code sluice-micrometer}'s binder) and
 * monitoring. Register it with {@link DeviceContext#addListener(DeviceListener)}; every method has an empty default, so
 * a listener overrides only what it needs.
 *
 * <p><b>Cost:</b> while a context has no listener (and no Flight Recorder recording enables {@code dev.sluice.Operation}),
 * an enqueue pays one volatile read for this hook. With one, each operation pays the listeners' calls, one clock read
 * on the enqueuing thread, and a larger future that carries what they are told when it completes: no other object and
 * no stage on the future (so no marker group is sealed for it: futures complete as they would without a listener).
 *
 * <p><b>Threads:</b> {@link #operationEnqueued} runs on the enqueuing thread under the stream's enqueue lock, so other
 * threads enqueuing on that stream wait for it; {@link #operationCompleted} runs on the thread that completes the
 * operation's future (the context's completion thread, or a thread waiting for one of the stream's futures that
 * polls the device itself, see {@link dev.sluice.ContextOptions#spinNanos()}) just before the future completes (so a thread that sees the future done sees the completion reported),
 * and every other future of the context completes after it. Both must be short and must not block, enqueue, or throw.
 * The memory, kernel, fault, stream-close and close callbacks run on the thread that allocated, freed, compiled, saw
 * the fault, or closed.
 *
 * <p><b>What a listener throws</b> never reaches the caller and never stops the completion thread: an exception or an
 * {@link Error} is logged (at {@code WARNING}, by {@code System.Logger} {@code dev.sluice.Observers}) and dropped, and
 * the operation, the other listeners and every other future go on as if it had returned. A
 * {@link VirtualMachineError} ({@link OutOfMemoryError}, {@link StackOverflowError}, {@link InternalError}) is logged
 * once at {@code ERROR} and also <em>removes the listener</em> from the context, as closing its registration would: it
 * is not told of operations enqueued later (those enqueued before may still reach it). The context is not faulted:
 * its device and its futures are unaffected, since a monitoring failure must not stop the work it monitors.
 *
 * <p>Operations enqueued while a stream captures a graph are not reported: they run when the graph is launched, which is
 * reported as one {@code graph} operation.
 */
public interface DeviceListener {

    /**
     * An operation was handed to the device. The default tells {@link #operationEnqueued(DeviceStream, String, long)}
     * with the kind's {@linkplain OperationKind#category() category}: override either.
     *
     * @param stream the stream it was enqueued on
     * @param kind   what it is: a copy of some kind, a fill, a launch, an event record, a wait, a host function, a marker,
     *               an allocation, a free, a graph launch, or a graph launch of repeated work (whose operations are
     *               reported too, each as its own kind, completing with it)
     * @param bytes  the bytes a copy moves ({@link OperationKind#isCopy()}); 0 otherwise
     */
    default void operationEnqueued(DeviceStream stream, OperationKind kind, long bytes) {
        operationEnqueued(stream, kind.category(), bytes);
    }

    /**
     * {@link #operationEnqueued(DeviceStream, OperationKind, long)} by category name.
     *
     * @param stream   the stream it was enqueued on
     * @param category its {@link TraceSpan#category()}: {@code upload}, {@code download}, {@code d2d}, {@code peer},
     *                 {@code memset}, {@code kernel}, {@code record}, {@code wait}, {@code host}, {@code marker},
     *                 {@code alloc}, {@code free}, {@code graph} or {@code replay} (a graph launch of repeated work, whose
     *                 operations are reported too, each under its own category, completing with it)
     * @param bytes    the bytes a copy moves ({@code upload}, {@code download}, {@code d2d}, {@code peer}); 0 otherwise
     */
    default void operationEnqueued(DeviceStream stream, String category, long bytes) {
    }

    /**
     * The operation reported by {@link #operationEnqueued} has finished, or failed; its future completes right after.
     *
     * @param latencyNanos from the enqueue to the completion, on the host's clock; it includes the time the operation
     *                     waited behind earlier work of its stream
     * @param failure      why the operation failed (a {@link DeviceException} for a device fault, a
     *                     {@link ClosedResourceException} when the context closed first), or null. A user's
     *                     {@code cancel()} of the future is not reported: the device still runs the operation
     */
    default void operationCompleted(DeviceStream stream, String category, long bytes, long latencyNanos,
            @Nullable Throwable failure) {
    }

    /**
     * {@link #operationCompleted(DeviceStream, String, long, long, Throwable)} with the operation's kind; the default
     * tells that method with the kind's {@linkplain OperationKind#category() category}: override either.
     */
    default void operationCompleted(DeviceStream stream, OperationKind kind, long bytes, long latencyNanos,
            @Nullable Throwable failure) {
        operationCompleted(stream, kind.category(), bytes, latencyNanos, failure);
    }

    /** {@code bytes} of device memory were allocated, by {@link DeviceContext#allocate} or {@link DeviceStream#enqueueAllocate}. */
    default void memoryAllocated(DeviceContext context, long bytes) {
    }

    /** An allocation of {@code bytes} was handed back to the device, in stream order after its last use. */
    default void memoryFreed(DeviceContext context, long bytes) {
    }

    /**
     * {@link DeviceContext#compile(Kernel)} finished, having taken {@code nanos}.
     *
     * @param failure the {@link CompilationException} or other reason it failed, or null
     */
    default void kernelCompiled(DeviceContext context, String kernel, long nanos, @Nullable Throwable failure) {
    }

    /** The context faulted ({@link DeviceContext#isFaulted()}): it stays unusable. Called once. */
    default void faulted(DeviceContext context, Throwable fault) {
    }

    /**
     * {@code stream} was closed by {@link DeviceStream#close()}: it takes no more operations, so a listener that keeps
     * state per stream (a metrics binder's meters, tagged with {@link DeviceStream#name()}, which no later stream
     * reuses) can drop it. Called once per stream, on the thread of the first {@code close()} call to return; completions
     * of its operations may still follow where that call did not wait for them (interrupted, racing another thread's
     * close, or on a faulted context). Streams that
     * the context's close destroys are not reported one by one: {@link #closed} covers them.
     */
    default void streamClosed(DeviceStream stream) {
    }

    /** The context closed; no callback follows. */
    default void closed(DeviceContext context) {
    }

    /** A listener's registration; {@link #close()} removes it. */
    interface Registration extends AutoCloseable {

        /**
         * Removes the listener: operations enqueued afterwards are not reported, and those already reported may still
         * report their completion. Idempotent.
         */
        @Override
        void close();
    }
}
