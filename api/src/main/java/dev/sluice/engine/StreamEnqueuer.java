package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import dev.sluice.DeviceException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.OperationKind;
import dev.sluice.observe.Tracer;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.UpdatableGraph;
import dev.sluice.spi.WorkStep;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The engine's half of one stream: the enqueue protocol around every operation, on arguments the public stream has
 * checked. A device operation (a copy, a fill, a launch) is described as a {@link Work} and goes through one path
 * ({@link #enqueueLocked}): under the stream's lock it is claimed (its memory, refused if closed since the check),
 * ordered after other streams' conflicting uses (a device-side wait: automatic ordering), handed to the backend as one
 * step, marked ({@link StreamOrder#mark}) and noted as the use of its memory. Repeated work records the same value
 * instead, and submits it through the same path when it cannot replay it as a graph. A failure under the lock gives the
 * claims back and enqueues nothing of the operation's own.
 *
 * <p>Every operation method fills in the future the public stream allocated ({@code f}) and returns it.
 */
public final class StreamEnqueuer implements ContextOwned {

    private final ContextRuntime context;
    final HoldingStream handle;
    final StreamOrder core;
    private final boolean isDefault;
    private final int index;
    /** The public stream: named in messages. */
    private final PublicStream owner;
    /** The arguments of this stream's launches, one instance reused under the lock; copied by what outlives an enqueue. */
    private final LaunchArguments launchArguments = new LaunchArguments();
    /** This stream's description of the operation being enqueued, refilled for each; copied by what outlives it. */
    private final Work slot = new Work();
    /** The step of the last launch, reused while the function and configuration repeat. Under the lock. */
    private WorkStep.@Nullable Launch lastLaunch;
    /** Null when the context traces nothing: then an enqueue pays two null checks of this final field. */
    private final @Nullable Tracer tracer;
    /** Where the next traced operation begins: the end of the last, or a point recorded by {@link #begin()}. */
    private Tracer.@Nullable Point traceStart;
    private @Nullable String label;
    private volatile boolean closed;
    /** What the operation being enqueued claims, waits for and uses. Under the lock. */
    private final StreamClaims claims;
    /** The capture in progress, or null. Under the lock. */
    private @Nullable GraphCapture capture;
    /** The repeated work being recorded, or null: set and ended by {@link ReplayedWork}. Under the lock. */
    @Nullable Recording recording;
    /** The stream's event records, waits, markers and host functions. */
    private final StreamWaits waits;
    /** The stream's allocations and frees. */
    private final StreamMemory memory;

    StreamEnqueuer(ContextRuntime context, StreamHandle stream, boolean isDefault, int index, PublicStream owner) {
        this.context = context;
        this.isDefault = isDefault;
        this.index = index;
        this.owner = owner;
        this.handle = new HoldingStream(stream, context.handle(), context.options().hostWaits(), owner.toString(),
                context.heldRecords());
        this.core = context.engine().newStream(handle, context.options().markerBatch(), owner);
        this.tracer = context.tracer();
        this.claims = new StreamClaims(this, core, context.options().autoOrdering());
        this.waits = new StreamWaits(this, context);
        this.memory = new StreamMemory(this, context);
    }

    /** The stream's allocations and frees. */
    public StreamMemory memory() {
        return memory;
    }

    /** The stream's event records, waits, markers and host functions. */
    public StreamWaits waits() {
        return waits;
    }

    /** The stream's name in traces: "default", or "stream N". */
    public String name() {
        return isDefault ? "default" : "stream " + index;
    }

    /** The context this stream belongs to. */
    ContextRuntime context() {
        return context;
    }

    // ---------------------------------------------------------------- the enqueue protocol

    /**
     * Locks the stream and checks that it, its context and its device are usable. An operation that a recording of
     * repeated work cannot describe submits what was recorded as plain enqueues first, and ends the recording.
     */
    void begin() {
        lock();
        try {
            submitRecorded();
            traceFromHere();
        } catch (RuntimeException e) {
            core.unlock();
            throw e;
        }
    }

    /** Locks the stream and checks that it, its context and its device are usable. */
    private void lock() {
        core.lock();
        try {
            checkOpenLocked();
            claims.begin();
        } catch (RuntimeException e) {
            core.unlock();
            throw e;
        }
    }

    /** Ends the recording of repeated work on this stream, if any, submitting what it recorded as plain enqueues. */
    private void submitRecorded() {
        Recording r = recording;
        if (r != null) {
            recording = null;
            r.submitPlain(this);
            claims.begin();
        }
    }

    /** Where the next traced operation begins: here. Under the lock. */
    void traceFromHere() {
        if (tracer != null && capture == null) {
            traceStart = tracer.record(handle, traceStart);
        }
    }

    // ---------------------------------------------------------------- the one path of device operations

    /**
     * Enqueues {@code w}, this stream's description of the operation just made, for {@code f}; under the lock, which the
     * caller lets go. Recorded instead (a copy of it, completing {@code f}) while repeated work records this stream on
     * this thread and can hold it; an operation it cannot hold, or another thread's, ends the recording first, its
     * operations submitted in order.
     */
    private <F extends Operation<?>> F submitLocked(F f, Work w) {
        try {
            Recording r = recording;
            if (r != null) {
                if (w.recordable && r.isOwnedByThisThread()) {
                    r.add(core, w.copy(f));
                    return f;
                }
                w = w.copy(null); // the recording's submission may let the lock go, and another enqueue refill the slot
                submitRecorded();
            }
            traceFromHere();
            return enqueueLocked(f, w, false);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            slot.clear(); // keeps nothing of the caller's reachable: the leak detector must see it unreachable
        }
    }

    /**
     * The protocol of every device operation, under the lock: claims {@code w}'s memory (refused naming the argument
     * once closed, unless {@code held}: memory a recording holds stays allocated whatever its owner did), waits on the
     * device for other streams' conflicting uses, hands the step to the backend, marks {@code f}, and notes {@code f} as
     * the use of each piece of memory.
     */
    <F extends Operation<?>> F enqueueLocked(F f, Work w, boolean held) {
        claims.claim(w, held, capture != null);
        Work ordered = Objects.requireNonNull(claims.orderAfterHazards(w)); // a copy of w if ordering let the lock go
        handle.enqueue(ordered.step);
        if (ordered.keptByCapture) {
            keptByGraph(Objects.requireNonNull(ordered.keepAlive));
        }
        mark(f, ordered.kind, ordered.traceKind, ordered.bytes, ordered.keepAlive, label);
        claims.used(ordered, f, capture);
        return f;
    }

    /**
     * Records the completion marker of the operation just enqueued into {@code f}. Under the lock.
     *
     * @param kind      what the operation was, for tracing and listeners; null for markers that end no operation of
     *                  their own
     * @param keepAlive kept reachable until the device has finished the operation
     */
    <F extends Operation<?>> F mark(F f, @Nullable OperationKind kind, @Nullable Object keepAlive) {
        return mark(f, kind, kind == null ? null : kind.traceName(), 0, keepAlive, label);
    }

    /**
     * {@link #mark} of an operation that listeners and the trace are told of as {@code kind}, {@code traceKind}
     * ({@code "kernel <name>"} for a launch) and {@code bytes} (a copy's), labelled {@code spanLabel}.
     */
    private <F extends Operation<?>> F mark(F f, @Nullable OperationKind kind, @Nullable String traceKind, long bytes,
            @Nullable Object keepAlive, @Nullable String spanLabel) {
        if (capture != null) {
            f.attach(core);
            f.fail(new IllegalStateException(
                    "operation was captured into a graph: it runs, and completes, when the graph is launched"));
        } else {
            if (kind != null && f instanceof Operation.Observing o) {
                f.attach(core); // its observers name the stream
                o.enqueued(kind, Objects.requireNonNull(traceKind), bytes, spanLabel);
            }
            if (tracer != null) {
                markTraced(tracer, f, traceKind, keepAlive, spanLabel);
            } else {
                core.mark(f, keepAlive);
            }
        }
        claims.marked(); // the operation is the stream's now: its uses are noted next, each ending its claim
        return f;
    }

    /** {@link #mark} with tracing on: the end point goes before the marker, so the marker's completion implies it. */
    private void markTraced(Tracer t, Operation<?> f, @Nullable String traceKind, @Nullable Object keepAlive,
            @Nullable String spanLabel) {
        Tracer.Point start = traceStart;
        Tracer.Point end = traceKind != null && start != null ? t.record(handle, null) : null;
        core.markAlone(f, keepAlive);
        if (end != null) {
            traceStart = null;
            t.add(index, name(), traceKind, spanLabel, start, end, f);
        }
    }

    void end() {
        core.unlock();
    }

    /** Refuses a call on a closed stream. */
    void checkNotClosed() {
        if (closed) {
            throw new ClosedResourceException(owner.toString());
        }
    }

    /** Refuses work on a closed stream or an unusable context. Under the lock. */
    void checkOpenLocked() {
        if (closed) {
            throw new ClosedResourceException(owner.toString());
        }
        context.checkUsable();
    }

    /** What the operation being enqueued claims, waits for and uses. Under the lock. */
    StreamClaims claims() {
        return claims;
    }

    /** Whether the stream is capturing. Under the lock. */
    boolean isCapturing() {
        return capture != null;
    }

    /** The capture in progress. Under the lock, while {@link #isCapturing()}. */
    GraphCapture capture() {
        return Objects.requireNonNull(capture);
    }

    /**
     * An enqueue that failed under the lock: gives back the claims it made before its marker (so a close() does not wait
     * for a use that never came), and a sticky error that the driver returned to its call faults the context as a
     * marker's would (its listeners hear of it, its pending futures fail, later calls are refused), on its completion
     * thread, at once.
     */
    RuntimeException failed(RuntimeException e) {
        claims.giveBack();
        if (e instanceof DeviceException d && d.isSticky()) {
            context.report(d);
        }
        return e;
    }

    // ---------------------------------------------------------------- labels

    /** Sets the label of operations enqueued from now on and returns the one it replaces. */
    public @Nullable String swapLabel(@Nullable String newLabel) {
        core.lock();
        try {
            String previous = label;
            label = newLabel;
            return previous;
        } finally {
            core.unlock();
        }
    }

    /** The label in effect. */
    public @Nullable String label() {
        core.lock();
        try {
            return label;
        } finally {
            core.unlock();
        }
    }

    // ---------------------------------------------------------------- copies

    /**
     * Copies host memory to {@code destination}.
     *
     * @param source       the host memory; Java memory stays reachable until the device has read it
     * @param sourceBuffer the pinned or registered memory {@code source} lies in, or null for other memory
     * @param sourceWhat   the host buffer, named if it closed since the caller's check
     * @param shape        null for a plain copy of {@code destination}'s size
     */
    public <F extends Operation<?>> F copyToDevice(F f, MemorySegment source, @Nullable HostAllocation sourceBuffer,
            @Nullable PublicMemory sourceWhat, Region destination, @Nullable Pitched shape) {
        lock();
        try {
            return submitLocked(f, slot.upload(source, sourceBuffer, sourceWhat, destination, shape,
                    sourceBuffer != null && sourceBuffer.context == context)); // page-locked memory of this context: a DMA
        } finally {
            end();
        }
    }

    /** Copies {@code source} to host memory; the parameters mirror {@link #copyToDevice}'s. */
    public <F extends Operation<?>> F copyToHost(F f, Region source, MemorySegment destination,
            @Nullable HostAllocation destinationBuffer, @Nullable PublicMemory destinationWhat, @Nullable Pitched shape) {
        lock();
        try {
            return submitLocked(f, slot.download(source, destination, destinationBuffer, destinationWhat, shape,
                    destinationBuffer != null && destinationBuffer.context == context));
        } finally {
            end();
        }
    }

    /**
     * Copies {@code bytes} between device buffers, of this context or (one of them) of a peer context of the same backend.
     */
    public <F extends Operation<?>> F copyOnDevice(F f, Region source, Region destination, long bytes,
            @Nullable Pitched shape) {
        ContextState from = source.allocation().context;
        ContextState to = destination.allocation().context;
        lock();
        try {
            return submitLocked(f, slot.deviceCopy(source, destination, bytes, shape, from != to && from.peerAccessEnabled(to)));
        } finally {
            end();
        }
    }

    /** Sets {@code count} elements of {@code elementBytes} each of {@code destination} to {@code bits}. */
    public <F extends Operation<?>> F fill(F f, Region destination, long count, int elementBytes, long bits) {
        lock();
        try {
            return submitLocked(f, slot.fill(destination, count, elementBytes, bits));
        } finally {
            end();
        }
    }

    /** The device-side waits automatic ordering has enqueued on this stream. */
    public long automaticWaits() {
        core.lock();
        try {
            return claims.automaticWaits();
        } finally {
            core.unlock();
        }
    }

    // ---------------------------------------------------------------- kernels

    /**
     * Launches {@code function} with arguments checked against {@code params}: a number or boolean for a scalar
     * parameter, the {@link Region} a buffer views for a pointer parameter.
     *
     * @param keep what must stay loaded until the launch has run (the public function)
     * @param kind {@code "kernel <name>"}
     */
    public <F extends Operation<?>> F launch(F f, FunctionHandle function, Kernel.Loaded keep, String kind,
            List<KernelParam> params, LaunchConfig config, Object[] arguments) {
        lock();
        try {
            Work w = slot.launch(function, keep, kind, params, config, arguments, launchArguments, lastLaunch);
            lastLaunch = (WorkStep.Launch) w.step;
            return submitLocked(f, w);
        } finally {
            end();
        }
    }

    // ---------------------------------------------------------------- repeated work

    /**
     * Marks the future of {@code w}, recorded and run by a graph launch whose span traces it: observers hear of its
     * enqueue. Under the lock.
     */
    void markRecorded(Work w) {
        Operation<?> f = Objects.requireNonNull(w.future);
        if (f instanceof Operation.Observing o) {
            f.attach(core); // its observers name the stream
            o.enqueued(w.kind, w.traceKind, w.bytes, label);
        }
        core.mark(f, w.keepAlive);
        claims.marked();
    }

    /** {@link #mark} for a graph launch of repeated work; traced, its span is labelled with what the launch ran. */
    <F extends Operation<?>> F markReplay(F f, OperationKind kind, UpdatableGraph graph, Recording r) {
        return mark(f, kind, kind.traceName(), 0, graph, tracer != null && capture == null ? r.traceLabel(label) : label);
    }

    // ---------------------------------------------------------------- waits on the device

    /** Whether a wait was enqueued (a future of this stream, or one already finished, needs none). Under the lock. */
    boolean waitMarkerLocked(Operation<?> future) {
        if (future.core() == core || future.deviceFinished()) {
            return false; // ordered by this stream already, or finished (the engine may already have recycled its marker)
        }
        Marker m = future.marker();
        if (m == null) {
            throw new IllegalStateException("internal: " + future + " has no marker yet; its group must be sealed first");
        }
        core.sealLocked(); // this wait may hold the stream (on another stream's held work): earlier work first gets its marker
        handle.waitMarker(m);
        return true;
    }

    // ---------------------------------------------------------------- graphs

    void keptByGraph(Object kept) {
        if (capture != null) {
            capture.keep(kept);
        }
    }

    /** Begins capturing this stream's work into a graph instead of running it. */
    public void beginCapture() {
        begin();
        try {
            if (capture != null) {
                throw new IllegalStateException(owner + " is already capturing");
            }
            core.sealLocked(); // a marker recorded during capture would be captured into the graph
            handle.beginCapture();
            capture = new GraphCapture();
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /**
     * Ends the capture and returns the graph; if {@code failure} (what the capture's body threw) is not null, destroys the
     * graph and throws it.
     */
    public CapturedGraph endCapture(@Nullable RuntimeException failure) {
        GraphCapture c;
        dev.sluice.spi.GraphHandle graph;
        core.lock();
        try {
            c = capture;
            capture = null;
            if (c == null) {
                throw new IllegalStateException("internal: " + owner + " is not capturing");
            }
            graph = handle.endCapture();
        } catch (RuntimeException e) {
            if (failure != null) { // a refused operation may have invalidated the capture: report the refusal
                failure.addSuppressed(e);
                throw failure;
            }
            throw e;
        } finally {
            core.unlock();
        }
        if (failure != null) {
            graph.destroy();
            throw failure;
        }
        return c.graph(context, graph);
    }

    /**
     * Launches a replay of {@code graph} on this stream. Host steps find their replay by launch order, so replays of a
     * graph with host steps must not overlap: CUDA orders the launches of one graph, HIP does not say it does; a replay on another stream
     * than the last waits for it on the device.
     */
    public <F extends Operation<?>> F launchGraph(F f, CapturedGraph graph) {
        GraphHostSteps steps = graph.hostSteps;
        if (steps == null) {
            return launchGraphOn(graph, f, null);
        }
        steps.launchOrder.lock();
        try {
            Operation<?> previous = steps.lastReplay;
            if (previous != null && previous.core() != core) {
                previous.seal(); // a device-side wait needs its marker; before the stream's lock is taken
            } else {
                previous = null;
            }
            launchGraphOn(graph, f, previous);
            steps.lastReplay = f;
            return f;
        } finally {
            steps.launchOrder.unlock();
        }
    }

    /** Launches a replay of {@code graph} after {@code after} (a replay on another stream), or right away. */
    private <F extends Operation<?>> F launchGraphOn(CapturedGraph graph, F f, @Nullable Operation<?> after) {
        begin();
        try {
            if (isCapturing() && graph.hostSteps != null) {
                // Its steps find their replay by launch order; a launch captured into another graph never runs as one.
                throw new IllegalStateException(graph.name() + " has host steps and cannot be launched while " + this
                        + " is capturing");
            }
            // A replay uses the captured memory as the captured operations did: claimed (refused if it was closed since),
            // and noted as used, so a close() waits for the replay instead of freeing memory under it.
            for (GraphCapture.Use u : graph.uses) {
                if (!claims.claimForReplay(u)) { // a replay may read and write all it captured
                    throw new ClosedResourceException(u.what() + ", which " + graph.name() + " uses (close the graph"
                            + " before the memory its work captured)");
                }
            }
            if (after != null) {
                waitMarkerLocked(after);
            }
            claims.orderAfterHazards(null);
            GraphHostSteps steps = graph.hostSteps;
            if (steps == null) {
                handle.launchGraph(graph.handle);
                // The events and functions it names live until the replay has finished, the graph closed or not.
                mark(f, OperationKind.GRAPH, graph.handles.isEmpty() ? null : graph.handles);
            } else {
                // The replay is the future's keep-alive: its steps' failures fail the future (Operation.finish).
                GraphHostSteps.Replay replay = new GraphHostSteps.Replay();
                replay.handles = graph.handles;
                handle.launchGraph(steps.launching(graph.handle, replay));
                mark(f, OperationKind.GRAPH, replay);
            }
            for (GraphCapture.Use u : graph.uses) {
                claims.usedByReplay(u, f);
            }
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    // ---------------------------------------------------------------- interoperation and blocking

    /** The backend's native stream handle. */
    public long nativeHandle() {
        core.lock();
        try {
            checkOpenLocked();
            return handle.device.nativeHandle();
        } finally {
            core.unlock();
        }
    }

    /**
     * Waits, until {@code deadline}, while the stream holds work behind a host function's turn (the context is
     * closing); whether it waited. Without the stream's lock: the function may enqueue on it.
     */
    boolean awaitHostFunctions(long deadline) {
        return handle.awaitHostFunctions(deadline);
    }

    /** Fails work held on the host behind a wait that never ended (the context is closing). */
    void dropHeld(RuntimeException cause) {
        core.lock();
        try {
            core.sealLocked();
            handle.dropHeld(cause);
        } finally {
            core.unlock();
        }
    }

    /** Whether the stream is closed. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes the stream: refuses later work, waits (until {@code deadline}) for the work enqueued and its futures, then
     * destroys the backend's stream if {@code destroy}.
     */
    public void close(boolean destroy, long deadline, boolean interruptible) {
        core.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            core.sealLocked(); // the last group's marker, recorded now: the backend's stream may be gone before it is idle
        } finally {
            core.unlock();
        }
        try {
            if (context.fault() == null) {
                handle.synchronize();
                waits.awaitFinished(core.last(), deadline, interruptible); // its futures too: results may be read once close() returns
            }
        } finally {
            context.engine().remove(core);
            if (destroy) {
                handle.destroy();
            }
            context.forget(this);
        }
    }

    @Override
    public String toString() {
        return owner.toString();
    }
}
