package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import dev.sluice.DeviceException;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.TraceSpan;
import dev.sluice.observe.Tracer;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The engine's half of one stream: the enqueue protocol around every operation, on arguments the public stream has
 * checked. Each operation takes the stream's lock ({@link #begin()}), claims the memory it uses (refused if closed since
 * the check), waits on the device for other streams' conflicting uses (automatic ordering), hands the work to the
 * backend, marks it ({@link StreamCore#mark}) and notes its uses, then lets the lock go. A failure under the lock gives
 * the claims back and enqueues nothing of the operation's own.
 *
 * <p>Every operation method fills in the future the public stream allocated ({@code f}) and returns it.
 */
public final class StreamEngine {

    private final ContextCore context;
    final HoldingStream handle;
    final StreamCore core;
    private final boolean isDefault;
    private final int index;
    /** The public stream: named in messages. */
    private final Object owner;
    private final LaunchArguments launchArguments = new LaunchArguments();
    /** Null when the context traces nothing: then an enqueue pays two null checks of this final field. */
    private final @Nullable Tracer tracer;
    /** Where the next traced operation begins: the end of the last, or a point recorded by {@link #begin()}. */
    private Tracer.@Nullable Point traceStart;
    /** The bytes of the copy being marked, for listeners. Under the lock. */
    long copyBytes;
    private @Nullable String label;
    private volatile boolean closed;
    /** What the operation being enqueued claims, waits for and uses. Under the lock. */
    private final StreamClaims claims;
    /** The capture in progress, or null. Under the lock. */
    private @Nullable GraphCapture capture;
    /** The repeated work being recorded, or null: set and ended by {@link ReplayedWork}. Under the lock. */
    @Nullable Recording recording;

    StreamEngine(ContextCore context, StreamHandle stream, boolean isDefault, int index, Object owner) {
        this.context = context;
        this.isDefault = isDefault;
        this.index = index;
        this.owner = owner;
        this.handle = new HoldingStream(stream, context.handle(), context.options().hostWaits(), owner.toString(),
                context.heldRecords());
        this.core = context.engine().newStream(handle, context.options().markerBatch(), owner);
        this.tracer = context.tracer();
        this.claims = new StreamClaims(this, core, context.options().autoOrdering());
    }

    /** The stream's name in traces: "default", or "stream N". */
    public String name() {
        return isDefault ? "default" : "stream " + index;
    }

    // ---------------------------------------------------------------- the enqueue protocol

    /**
     * Locks the stream and checks that it, its context and its device are usable. An operation that a recording of
     * repeated work cannot describe submits what was recorded as plain enqueues first, and ends the recording.
     */
    void begin() {
        begin(false);
    }

    /** {@link #begin()}; true, with nothing else done, if the operation is to be recorded ({@code recordable}). */
    private boolean begin(boolean recordable) {
        core.lock();
        try {
            checkOpenLocked();
            claims.begin();
            if (recording != null) {
                if (recordable && recording.isOwnedByThisThread()) { // another thread's work: submitted in order
                    return true;
                }
                Recording r = recording;
                recording = null;
                r.submitPlain(this);
                claims.begin();
            }
            traceFromHere();
            return false;
        } catch (RuntimeException e) {
            core.unlock();
            throw e;
        }
    }

    /** Where the next traced operation begins: here. Under the lock. */
    void traceFromHere() {
        if (tracer != null && capture == null) {
            traceStart = tracer.record(handle, traceStart);
        }
    }

    /** Adds {@code step} to the recording and lets the lock go: it is submitted when the recording ends. */
    private <F extends Operation<?>> F recorded(F f, Recording.Step step) {
        try {
            Objects.requireNonNull(recording).add(core, step);
            return f;
        } finally {
            core.unlock();
        }
    }

    /**
     * Records the completion marker of the operation just enqueued into {@code f}. Under the lock.
     *
     * @param kind      what the operation was, for tracing and listeners (a {@link TraceSpan} kind, {@code "kernel <name>"}
     *                  for a launch); null for markers that end no operation of their own
     * @param keepAlive kept reachable until the device has finished the operation (Java memory it reads or writes)
     */
    <F extends Operation<?>> F mark(F f, @Nullable String kind, @Nullable Object keepAlive) {
        return mark(f, kind, keepAlive, label);
    }

    /** {@link #mark} with {@code spanLabel} for the stream's label, for the observers and the trace. */
    private <F extends Operation<?>> F mark(F f, @Nullable String kind, @Nullable Object keepAlive,
            @Nullable String spanLabel) {
        if (capture != null) {
            f.attach(core);
            f.fail(new IllegalStateException(
                    "operation was captured into a graph: it runs, and completes, when the graph is launched"));
        } else {
            if (kind != null && f instanceof Operation.Observing o) {
                f.attach(core); // its observers name the stream
                o.enqueued(kind, isCopy(kind) ? copyBytes : 0, spanLabel);
            }
            if (tracer != null) {
                markTraced(tracer, f, kind, keepAlive, spanLabel);
            } else {
                core.mark(f, keepAlive);
            }
        }
        claims.marked(); // the operation is the stream's now: its uses are noted next, each ending its claim
        return f;
    }

    /** Whether {@code kind} is a copy's: the copies pass these very constants to {@code mark}, so identity suffices. */
    @SuppressWarnings("StringEquality")
    private static boolean isCopy(String kind) {
        return kind == TraceSpan.UPLOAD || kind == TraceSpan.DOWNLOAD || kind == TraceSpan.DEVICE_TO_DEVICE
                || kind == TraceSpan.PEER || kind == TraceSpan.PEER_STAGED;
    }

    /** {@link #mark} with tracing on: the end point goes before the marker, so the marker's completion implies it. */
    private void markTraced(Tracer t, Operation<?> f, @Nullable String kind, @Nullable Object keepAlive,
            @Nullable String spanLabel) {
        Tracer.Point start = traceStart;
        Tracer.Point end = kind != null && start != null ? t.record(handle, null) : null;
        core.markAlone(f, keepAlive);
        if (end != null) {
            traceStart = null;
            t.add(index, name(), kind, spanLabel, start, end, f);
        }
    }

    void end() {
        core.unlock();
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

    // ---------------------------------------------------------------- memory

    /**
     * Allocates {@code bytes} of device memory in stream order and returns the buffer {@code buffer} makes of it;
     * {@code ready} makes the buffer's future, which completes with the allocation.
     */
    public <B> B allocate(long bytes, Function<Allocation, B> buffer, Function<B, ? extends Operation<?>> ready) {
        begin();
        try {
            DeviceMemory memory = handle.allocate(bytes);
            Allocation allocation = new Allocation(context, memory, this);
            B b = buffer.apply(allocation);
            Operation<?> f = mark(ready.apply(b), TraceSpan.ALLOC, null);
            if (claims.ordering() && capture == null) {
                claims.allocated(allocation, f, bytes); // other streams' first uses wait for the memory to exist
            }
            context.track(allocation);
            context.allocated(bytes);
            return b;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Frees {@code allocation}, which its owner closed, after every pending use of every stream. */
    public <F extends Operation<?>> F free(F f, Allocation allocation) {
        return freeInOrder(f, allocation);
    }

    void freeInOrder(Allocation allocation) {
        freeInOrder(new InternalOperation(), allocation);
    }

    private <F extends Operation<?>> F freeInOrder(F f, Allocation allocation) {
        Recording.submitOnOtherStreams(allocation, this); // what they recorded on it is among their uses then
        List<Operation<?>> others = allocation.uses.pendingUses(core);
        for (Operation<?> use : others) {
            use.seal(); // a device-side wait needs the use's marker; sealed before this stream's lock is taken
        }
        context.retire(allocation, others); // the context's close must not free it under another context's pending use
        begin();
        try {
            for (Operation<?> use : others) {
                waitMarkerLocked(use);
            }
            handle.free(allocation.memory);
            context.untrack(allocation);
            context.freed(allocation.memory.byteSize());
            return mark(f, TraceSpan.FREE, null);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Enqueues, on this stream, a wait for every other stream's pending use of {@code allocation}. */
    public void waitForUses(Allocation allocation) {
        Recording.submitOnOtherStreams(allocation, this);
        for (Operation<?> use : allocation.uses.pendingUses(core)) {
            waitFor(new InternalOperation(), use);
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
            @Nullable Object sourceWhat, Region destination, @Nullable Pitched shape) {
        if (begin(shape == null && sourceBuffer != null && sourceBuffer.context == context)) { // page-locked: a DMA
            return recorded(f, Recording.upload(f, source, sourceBuffer, Objects.requireNonNull(sourceWhat), destination));
        }
        try {
            claim("destination", destination, true);
            claims.claim("source", sourceBuffer, sourceWhat);
            claims.orderAfterHazards();
            if (shape == null) {
                handle.copyHostToDevice(source, destination.memory(), destination.byteOffset(), destination.byteSize());
                copyBytes = destination.byteSize();
            } else {
                handle.copyHostToDevice2D(source, shape.sourcePitch(), destination.memory(), destination.byteOffset(),
                        shape.destinationPitch(), shape.widthBytes(), shape.height());
                copyBytes = shape.bytes();
            }
            mark(f, TraceSpan.UPLOAD, sourceBuffer == null ? source : null); // Java memory must outlive the copy
            used(destination, f, true);
            claims.used(sourceBuffer, sourceWhat, f, capture);
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Copies {@code source} to host memory; the parameters mirror {@link #copyToDevice}'s. */
    public <F extends Operation<?>> F copyToHost(F f, Region source, MemorySegment destination,
            @Nullable HostAllocation destinationBuffer, @Nullable Object destinationWhat, @Nullable Pitched shape) {
        if (begin(shape == null && destinationBuffer != null && destinationBuffer.context == context)) {
            return recorded(f, Recording.download(f, source, destination, destinationBuffer,
                    Objects.requireNonNull(destinationWhat)));
        }
        try {
            claim("source", source, false);
            claims.claim("destination", destinationBuffer, destinationWhat);
            claims.orderAfterHazards();
            if (shape == null) {
                handle.copyDeviceToHost(source.memory(), source.byteOffset(), destination, source.byteSize());
                copyBytes = source.byteSize();
            } else {
                handle.copyDeviceToHost2D(source.memory(), source.byteOffset(), shape.sourcePitch(), destination,
                        shape.destinationPitch(), shape.widthBytes(), shape.height());
                copyBytes = shape.bytes();
            }
            mark(f, TraceSpan.DOWNLOAD, destinationBuffer == null ? destination : null); // Java memory must outlive the copy
            used(source, f, false);
            claims.used(destinationBuffer, destinationWhat, f, capture);
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /**
     * Copies {@code bytes} between device buffers, of this context or (one of them) of a peer context of the same backend.
     */
    public <F extends Operation<?>> F copyOnDevice(F f, Region source, Region destination, long bytes,
            @Nullable Pitched shape) {
        if (begin(shape == null && source.allocation().context == destination.allocation().context)) {
            return recorded(f, Recording.copy(f, source, destination, bytes));
        }
        try {
            claim("source", source, false);
            claim("destination", destination, true);
            claims.orderAfterHazards(); // on this stream, whichever context the other buffer and its users belong to
            ContextCore from = source.allocation().context;
            ContextCore to = destination.allocation().context;
            String kind;
            if (shape != null) {
                handle.copyDeviceToDevice2D(source.memory(), source.byteOffset(), shape.sourcePitch(), destination.memory(),
                        destination.byteOffset(), shape.destinationPitch(), shape.widthBytes(), shape.height());
                copyBytes = shape.bytes();
                kind = TraceSpan.DEVICE_TO_DEVICE;
            } else if (from == to) {
                handle.copyDeviceToDevice(source.memory(), source.byteOffset(), destination.memory(),
                        destination.byteOffset(), bytes);
                copyBytes = bytes;
                kind = TraceSpan.DEVICE_TO_DEVICE;
            } else {
                handle.copyPeer(from.handle(), source.memory(), source.byteOffset(), to.handle(), destination.memory(),
                        destination.byteOffset(), bytes);
                copyBytes = bytes;
                kind = from.peerAccessEnabled(to) ? TraceSpan.PEER : TraceSpan.PEER_STAGED;
            }
            mark(f, kind, null);
            used(source, f, false);
            used(destination, f, true);
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Sets {@code count} elements of {@code elementBytes} each of {@code destination} to {@code bits}. */
    public <F extends Operation<?>> F fill(F f, Region destination, long count, int elementBytes, long bits) {
        if (begin(true)) {
            return recorded(f, Recording.fill(f, destination, count, elementBytes, bits));
        }
        try {
            claim("destination", destination, true);
            claims.orderAfterHazards();
            handle.fill(destination.memory(), destination.byteOffset(), count, elementBytes, bits);
            mark(f, TraceSpan.MEMSET, null);
            used(destination, f, true);
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
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

    private void claim(String argument, Region buffer, boolean writes) {
        claims.claim(argument, buffer, writes, capture != null);
    }

    private void used(Region buffer, Operation<?> f, boolean writes) {
        claims.used(buffer, f, writes, capture);
    }

    // ---------------------------------------------------------------- kernels

    /**
     * Launches {@code function} with arguments checked against {@code params}: {@code regions} gives the region of each
     * pointer argument.
     *
     * @param keep what must stay loaded until the launch has run (the public function)
     * @param kind {@code "kernel <name>"}
     */
    public <F extends Operation<?>> F launch(F f, FunctionHandle function, Object keep, String kind,
            List<KernelParam> params, LaunchConfig config, Object[] arguments, Function<Object, Region> regions) {
        if (begin(true)) {
            return recorded(f, Recording.launch(f, function, keep, kind, params, config, arguments, regions));
        }
        try {
            for (int i = 0; i < arguments.length; i++) {
                KernelParam p = params.get(i);
                if (p.isPointer()) {
                    Region r = regions.apply(arguments[i]);
                    if (!claims.claim(r, p.access().writes(), capture != null)) {
                        throw new ClosedResourceException("arguments[" + i + "] (" + p + ") " + r.what());
                    }
                }
            }
            claims.orderAfterHazards(); // before the arguments are set: it may let the lock go, and they are the stream's
            LaunchArguments a = launchArguments;
            Recording.setArguments(a, params, arguments, regions);
            handle.launch(function, config, a);
            keptByGraph(keep);
            mark(f, kind, keep); // not unloaded by the leak detector before it ran
            for (int i = 0; i < arguments.length; i++) {
                KernelParam p = params.get(i);
                if (p.isPointer()) {
                    used(regions.apply(arguments[i]), f, p.access().writes());
                }
            }
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    // ---------------------------------------------------------------- repeated work

    /** Marks {@code f}, run by a graph launch whose span traces it: observers hear of its enqueue. Under the lock. */
    <F extends Operation<?>> F markRecorded(F f, String kind, long bytes, @Nullable Object keepAlive) {
        if (f instanceof Operation.Observing o) {
            f.attach(core); // its observers name the stream
            o.enqueued(kind, bytes, label);
        }
        core.mark(f, keepAlive);
        claims.marked();
        return f;
    }

    /** {@link #mark} for a graph launch of repeated work; traced, its span is labelled with what the launch ran. */
    <F extends Operation<?>> F markReplay(F f, String kind, Object graph, Recording r) {
        return mark(f, kind, graph, tracer != null && capture == null ? r.traceLabel(label) : label);
    }

    // ---------------------------------------------------------------- events, waits, host work

    /** Records {@code event} (whose public side {@code keep} stays reachable until the record ran). */
    public <F extends Operation<?>> F record(F f, EventHandle event, Object keep) {
        begin();
        try {
            handle.record(event);
            keptByGraph(keep);
            return mark(f, TraceSpan.RECORD, keep); // not destroyed by the leak detector before the record ran
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Makes later work of this stream wait for {@code event}'s last record. */
    public <F extends Operation<?>> F waitEvent(F f, EventHandle event, Object keep) {
        begin();
        try {
            core.sealLocked(); // this wait may hold the stream (on a held record): earlier work first gets its marker
            handle.waitEvent(event);
            keptByGraph(keep);
            return mark(f, TraceSpan.WAIT, keep); // not destroyed by the leak detector before the wait ran
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Makes later work of this stream wait, on the device, for {@code future}'s operation (of this backend). */
    public <F extends Operation<?>> F waitFor(F f, Operation<?> future) {
        if (future.core() != core) {
            future.refuseWaitWhileRecorded("waitFor(future)");
            future.seal(); // its group's marker must exist before a device-side wait on it; before taking this lock
        }
        begin();
        try {
            waitMarkerLocked(future);
            return mark(f, TraceSpan.WAIT, null);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

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

    /** Makes later work of this stream wait, on the host, for {@code stage}; its failure fails {@code f}. */
    public <F extends Operation<?>> F waitForStage(F f, CompletionStage<?> stage) {
        HostGate gate;
        begin();
        try {
            if (capture != null) {
                handle.captureHostStep(capture.hostSteps(context).hostWait(stage));
                return mark(f, TraceSpan.WAIT, null);
            }
            core.sealLocked(); // earlier work must not wait for the host behind this gate to get its marker
            gate = handle.enqueueHostGate();
            mark(f, TraceSpan.WAIT, null);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
        context.trackGate(gate, f);
        stage.whenComplete((v, e) -> {
            if (e != null) {
                f.presetFailure(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
            context.untrackGate(gate);
            gate.open();
        });
        return f;
    }

    /** A marker: completes when the work enqueued before it has finished. */
    public <F extends Operation<?>> F marker(F f, @Nullable String kind) {
        begin();
        try {
            return mark(f, kind, null);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /**
     * Runs {@code function} on a host thread once the work enqueued before it has finished; later work waits until it
     * returns. What it throws fails {@code f}.
     */
    public <F extends Operation<?>> F hostFunction(F f, Runnable function) {
        Operation<?> before;
        HostGate gate;
        begin();
        try {
            if (capture != null) {
                handle.captureHostStep(capture.hostSteps(context).hostFunction(function));
                return mark(f, TraceSpan.HOST, null);
            }
            before = mark(new InternalOperation(), null, null);
            core.sealLocked(); // earlier work must not wait for the host behind this gate to get its marker
            gate = handle.enqueueHostGate();
            mark(f, TraceSpan.HOST, null);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
        before.whenCompleteAsync((v, e) -> {
            if (e == null) {
                try {
                    context.runHostFunction(function);
                } catch (Throwable t) {
                    f.presetFailure(t);
                }
            } else {
                f.presetFailure(e);
            }
            gate.open();
        }, context.hostExecutor());
        return f;
    }

    // ---------------------------------------------------------------- graphs

    private void keptByGraph(Object kept) {
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

    /** Blocks until the work enqueued so far has finished and its futures have completed. */
    public void synchronize() {
        context.refuseBlocking("DeviceStream.synchronize");
        if (closed) {
            throw new ClosedResourceException(owner.toString());
        }
        Operation<?> upTo = Recording.submitBeforeWait(this);
        context.checkUsable();
        handle.synchronize();
        awaitFinished(upTo, Long.MAX_VALUE, true);
        context.checkUsable();
    }

    private void awaitFinished(@Nullable Operation<?> upTo, long deadline, boolean interruptible) {
        if (upTo != null && core.awaitCompleted(upTo.seq(), deadline, interruptible)) {
            upTo.awaitQuietly(); // completed by now, or about to be: its sequence has passed
        }
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

    /** Waits, until {@code deadline}, for the work enqueued so far (the context is closing). */
    void drain(long deadline) {
        if (closed) {
            return;
        }
        Operation<?> upTo = core.last();
        handle.synchronize();
        awaitFinished(upTo, deadline, false);
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
                awaitFinished(core.last(), deadline, interruptible); // its futures too: results may be read once close() returns
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
