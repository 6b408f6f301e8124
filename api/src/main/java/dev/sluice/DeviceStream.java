package dev.sluice;

import dev.sluice.observe.Tracer;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * An in-order queue of device work (Mojo's {@code DeviceStream}, CUDA's stream). Operations enqueued on
 * one stream run one after another in the order of the calls; operations on different streams may run
 * concurrently, unless ordered by {@link #waitFor} calls or by the memory they share: an operation that would race
 * with unfinished work of another stream on the same bytes of a {@link DeviceBuffer} waits for it on the device
 * first ({@link ContextOptions#autoOrdering()}, on by default).
 *
 * <p>Every {@code enqueue*} and {@code waitFor} method checks its arguments, enqueues, and returns at once
 * with a {@link DeviceFuture}. The same block applies to all of them:
 * <ul>
 * <li><b>Ordering:</b> the operation runs after everything enqueued on this stream before the call, and
 * before everything enqueued after it. Calls from several threads are serialised; each call's position is
 * its future's {@link DeviceFuture#sequence()}. With automatic ordering, it also runs after the operations of other
 * streams, enqueued before the call, that it would race with on a device buffer (a read after their write, a write
 * after their read or write); the wait is on the device.
 * <li><b>Completion thread:</b> the future completes on the context's completion thread, in stream order,
 * after the device has finished the operation: at once for an operation enqueued on an idle stream, and otherwise
 * at the latest when the last operation of its marker group has (see {@link DeviceFuture}, "When it completes").
 * <li><b>Cancellation:</b> cancelling the future does not stop or undo the operation, and frees nothing early:
 * memory it uses stays allocated until the device has finished it.
 * <li><b>Resources:</b> buffers and host memory used by the operation stay allocated until it has
 * finished, even if closed before; Java arrays, {@link ByteBuffer}s and {@link MemorySegment}s passed in
 * must not be changed (sources) or read (destinations) until the future completes.
 * <li><b>Errors:</b> bad arguments throw {@link InvalidArgumentException} (or
 * {@link ClosedResourceException}) at the call, with nothing enqueued; the stream stays usable. Device
 * faults complete the future exceptionally with a {@link DeviceException}.
 * </ul>
 *
 * <p><b>Closing:</b> {@link #close()} waits for the stream's work, then destroys it; the context's close destroys the
 * streams still open. Unlike buffers, events and functions, a stream that became unreachable while open is not released
 * by the leak detector: its context refers to it until it is closed (its completion queue keeps its last future), so
 * close the streams you create, or create them for the context's life.
 */
public final class DeviceStream implements AutoCloseable {

    private final DeviceContext context;
    final HoldingStream handle;
    private final boolean isDefault;
    private final int priority;
    /** The enqueue lock, sequence, marker policy and completion queue. */
    final StreamCore core;
    private final LaunchArguments launchArguments = new LaunchArguments();
    private final int index;
    /** Null when the context traces nothing: then an enqueue pays two null checks of this final field. */
    private final @Nullable Tracer tracer;
    /** Under the lock, tracing on: the timing point recorded by {@code begin} before the operation. */
    private Tracer.@Nullable Point traceStart;
    /** Under the lock: the bytes of the copy being marked, for {@link DeviceListener}s; set by each copy before its mark. */
    private long copyBytes;
    /** Under the lock: the label of {@link #label(String)}'s innermost open scope. */
    private @Nullable String label;
    private volatile boolean closed;
    private boolean capturing;
    /** Whether operations order themselves after racing ones of other streams ({@link ContextOptions#autoOrdering()}). */
    private final boolean ordering;
    /** Under the lock: what the enqueue in progress must wait for; reused. */
    private final UseTracker.Hazards hazards = new UseTracker.Hazards();
    /** Under the lock: the claims of the enqueue in progress, given back together if it fails ({@link #failed}). */
    private final UseTracker.Claims claims = new UseTracker.Claims();
    /** Under the lock: what the observation hook hands the core for the future of the operation being marked. */
    private final Observers.Observation observation = new Observers.Observation();
    /** Under the lock: the device-side waits automatic ordering inserted. */
    private long automaticWaits;

    DeviceStream(DeviceContext context, StreamHandle handle, boolean isDefault, int priority, int index) {
        this.context = context;
        this.isDefault = isDefault;
        this.priority = priority;
        this.index = index;
        this.handle = new HoldingStream(handle, context.handle, context.options().hostWaits(), toString(), context.heldRecords);
        this.core = context.engine.newStream(this.handle, context.options().markerBatch());
        this.tracer = context.tracer;
        this.ordering = context.options().autoOrdering();
    }

    /** The context this stream belongs to; its buffers, events and functions are the only ones this stream takes. */
    public DeviceContext context() {
        return context;
    }

    /** Whether this is the context's default stream (which closes with the context). */
    public boolean isDefault() {
        return isDefault;
    }

    /**
     * The priority the stream was created with; lower numbers run first, as in CUDA, within the context's
     * {@link DeviceContext#streamPriorityRange()}. 0 for the default stream.
     */
    public int priority() {
        return priority;
    }

    // ---------------------------------------------------------------- the enqueue protocol

    /** Locks the stream and checks that it, its context and its device are usable. */
    private void begin() {
        core.lock();
        try {
            if (closed) {
                throw new ClosedResourceException(toString());
            }
            context.checkUsable();
            hazards.clear(); // left over if an earlier enqueue failed between its claims and its waits
            if (tracer != null && !capturing) {
                traceStart = tracer.record(handle, traceStart);
            }
        } catch (RuntimeException e) {
            core.unlock();
            throw e;
        }
    }

    /**
     * Records the completion marker of the operation just enqueued and returns its future. Under the lock.
     *
     * @param kind what the operation was, for tracing: a {@link TraceSpan} kind, or the {@link DeviceFunction}
     *             launched; null for markers that end no operation of their own
     */
    private <T> DeviceFuture<T> mark(@Nullable T value, @Nullable Object kind) {
        return mark(value, kind, null);
    }

    /** {@link #mark(Object, Object)}, keeping {@code keepAlive} reachable until the device has finished the operation. */
    private <T> DeviceFuture<T> mark(@Nullable T value, @Nullable Object kind, @Nullable Object keepAlive) {
        DeviceFuture<T> f;
        if (capturing) {
            f = DeviceFuture.failed(this, new IllegalStateException(
                    "operation was captured into a graph: it runs, and completes, when the graph is launched"));
        } else {
            // The observation hook: one volatile read while nobody listens and no recording wants operation events.
            Observers o = context.observing;
            Observers.Observation observed = null;
            if (o != null && kind != null) {
                o.enqueued(this, kind, isCopy(kind) ? copyBytes : 0, label, observation);
                observed = observation;
            }
            f = tracer != null ? markTraced(tracer, value, kind, keepAlive, observed) : core.mark(this, value, keepAlive, observed);
        }
        claims.clear(); // the operation is the stream's now: its uses are noted next, each ending its claim
        return f;
    }

    /** Whether {@code kind} is a copy's: the copies pass these very constants to {@code mark}, so identity suffices. */
    private static boolean isCopy(Object kind) {
        return kind == TraceSpan.UPLOAD || kind == TraceSpan.DOWNLOAD || kind == TraceSpan.DEVICE_TO_DEVICE
                || kind == TraceSpan.PEER || kind == TraceSpan.PEER_STAGED;
    }

    /** {@link #mark} with tracing on: the end point goes before the marker, so the marker's completion implies it. */
    private <T> DeviceFuture<T> markTraced(Tracer t, @Nullable T value, @Nullable Object kind, @Nullable Object keepAlive,
            Observers.@Nullable Observation observed) {
        Tracer.Point start = traceStart;
        Tracer.Point end = kind != null && start != null ? t.record(handle, null) : null;
        DeviceFuture<T> f = core.markAlone(this, value, observed);
        f.keepAlive = keepAlive;
        if (end != null) {
            traceStart = null;
            String name = kind instanceof DeviceFunction fn ? TraceSpan.KERNEL + " " + fn.kernel().name()
                    : String.valueOf(kind);
            t.add(traceIndex(), traceName(), name, label, start, end, f);
        }
        return f;
    }

    private void end() {
        core.unlock();
    }

    /**
     * An enqueue that failed under the lock: gives back the claims it made before its marker (so a close() does not wait
     * for a use that never came), and a sticky error that the driver returned to its call faults the context as a
     * marker's would (its listeners hear of it, its pending futures fail, later calls are refused), on its completion
     * thread, at once.
     */
    private RuntimeException failed(RuntimeException e) {
        claims.unclaimAll();
        if (e instanceof DeviceException d && d.isSticky()) {
            context.engine.report(d);
        }
        return e;
    }

    private void checkBuffer(String argument, DeviceBuffer buffer) {
        Checks.notNull(argument, buffer);
        if (buffer.isClosed()) {
            throw new ClosedResourceException(argument + " " + buffer);
        }
        if (buffer.context() != context) {
            throw new InvalidArgumentException(argument, buffer + " belongs to another context than " + this);
        }
    }

    /** A host buffer of this context, or of another whose pinned memory serves this one too ({@link DeviceContext#sharesPinnedMemoryWith}). */
    private void checkBuffer(String argument, HostBuffer buffer) {
        Checks.notNull(argument, buffer);
        if (buffer.isClosed()) {
            throw new ClosedResourceException(argument + " " + buffer);
        }
        if (buffer.context() != context && !context.sharesPinnedMemory(buffer.context())) {
            throw new InvalidArgumentException(argument, buffer + " belongs to " + buffer.context() + ", whose pinned memory "
                    + this + " cannot use (DeviceContext.sharesPinnedMemoryWith is false): copy through a host buffer of "
                    + context);
        }
    }

    // ---------------------------------------------------------------- labels

    /**
     * Labels every operation enqueued on this stream, by any thread, until the returned scope is closed:
     * with tracing on, the label goes with each operation's {@link TraceSpan}, its Chrome trace event and
     * its JFR event. Scopes nest; closing one restores the label in effect when it was opened, so close
     * them in the reverse order of opening (try-with-resources does). With tracing off the label is kept
     * and ignored.
     *
     * <pre>{@code
     * try (var l = stream.label("chunk " + c)) {
     *     stream.enqueueCopy(host, device);
     *     stream.enqueueLaunch(kernel, config, device);
     * }
     * }</pre>
     */
    public LabelScope label(String label) {
        Checks.notNull("label", label);
        core.lock();
        try {
            LabelScope scope = new LabelScope(this, this.label);
            this.label = label;
            return scope;
        } finally {
            core.unlock();
        }
    }

    /** The label in effect for operations enqueued now, or null. */
    public @Nullable String currentLabel() {
        core.lock();
        try {
            return label;
        } finally {
            core.unlock();
        }
    }

    /** An open {@link #label(String)}; {@link #close()} restores the label before it. */
    public static final class LabelScope implements AutoCloseable {
        private final DeviceStream stream;
        private final @Nullable String previous;
        private boolean closed;

        private LabelScope(DeviceStream stream, @Nullable String previous) {
            this.stream = stream;
            this.previous = previous;
        }

        /** Restores the label that was in effect when this scope opened. Idempotent. */
        @Override
        public void close() {
            stream.core.lock();
            try {
                if (!closed) {
                    closed = true;
                    stream.label = previous;
                }
            } finally {
                stream.core.unlock();
            }
        }
    }

    /**
     * This stream's name in traces, Flight Recorder events and metrics: {@code "default"} for the context's default
     * stream, {@code "stream N"} for its N-th created stream. Unique within the context.
     */
    public String name() {
        return traceName();
    }

    /** This stream's name in traces. */
    String traceName() {
        return isDefault ? "default" : "stream " + index;
    }

    int traceIndex() {
        return index;
    }

    // ---------------------------------------------------------------- memory

    /**
     * Allocates {@code count} elements of {@code type} in stream order (CUDA's {@code cuMemAllocAsync} where
     * the device has memory pools) and returns the buffer at once: work enqueued after this call on this
     * stream may use it; other streams must first wait for {@link DeviceBuffer#ready()}. The contents are
     * undefined until written. Closing the buffer frees it in this stream's order.
     *
     * @throws DeviceOutOfMemoryException if the allocation cannot be made (some backends report it only
     *                                    through {@code ready()})
     */
    public DeviceBuffer enqueueAllocate(DType type, long count) {
        Checks.notNull("type", type);
        Checks.positive("count", count);
        long bytes = context.checkAllocationSize("count", type, count);
        begin();
        try {
            DeviceMemory memory = handle.allocate(bytes);
            Allocation allocation = new Allocation(context, memory, this);
            DeviceBuffer buffer = new DeviceBuffer(allocation, type, count);
            DeviceFuture<DeviceBuffer> ready = mark(buffer, TraceSpan.ALLOC);
            buffer.ready(ready);
            if (ordering && !capturing) {
                // Other streams' first uses wait for the memory to exist, as if the allocation wrote it
                allocation.uses.noteWrite(core, ready, 0, bytes);
            }
            context.track(allocation);
            context.observers.allocated(bytes);
            return buffer;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Frees {@code buffer} in this stream's order; the same as {@link DeviceBuffer#close()} but on this stream. */
    public DeviceFuture<Void> enqueueFree(DeviceBuffer buffer) {
        checkBuffer("buffer", buffer);
        if (!buffer.isOwner()) {
            throw new InvalidArgumentException("buffer", buffer + " owns no memory (a slice, a reinterpretation or a module"
                    + " variable); free the buffer it came from");
        }
        if (!buffer.allocation.closed.compareAndSet(false, true)) {
            throw new ClosedResourceException("buffer " + buffer);
        }
        return freeInOrder(buffer.allocation);
    }

    /** Frees an allocation after all its uses; called by the context for {@link DeviceBuffer#close()}. */
    DeviceFuture<Void> freeInOrder(Allocation allocation) {
        List<DeviceFuture<?>> others = allocation.uses.pendingUses(core);
        for (DeviceFuture<?> use : others) {
            use.seal(); // a device-side wait needs the use's marker; sealed before this stream's lock is taken
        }
        context.retire(allocation, others); // the context's close must not free it under another context's pending use
        begin();
        try {
            for (DeviceFuture<?> use : others) {
                waitMarkerLocked(use);
            }
            handle.free(allocation.memory);
            context.untrack(allocation);
            context.observers.freed(allocation.memory.byteSize());
            return mark(null, TraceSpan.FREE);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    // ---------------------------------------------------------------- copies

    /**
     * Copies all of {@code source} to {@code destination}. The host side is a {@link HostBuffer} (pinned: the device
     * reads it directly), a Java array (of an element type matching the buffer's: see {@link HostData}) or untyped bytes
     * (a {@link ByteBuffer} or {@link MemorySegment}, staged through pinned memory); make one with
     * {@link HostData#of(float[])} and its siblings, a range of an array with {@link HostData#of(float[], int, int)}, of a
     * host buffer with {@link HostBuffer#slice}, of the device buffer with {@link DeviceBuffer#slice}. The two sides must
     * have the same byte size; a host buffer must also have the device buffer's element type (see
     * {@link DeviceBuffer#reinterpret} to copy bytes between element types).
     *
     * <p>Ordering, completion thread, cancellation and errors as in the class comment. <b>Resources:</b> a host buffer
     * stays allocated, and an array, buffer or segment reachable, until the device has read it; do not change it until
     * the future has completed.
     *
     * @throws InvalidArgumentException naming {@code source} or {@code destination}: null, a device buffer of another
     *                                  context, a host buffer of a context whose pinned memory this one cannot use (see
     *                                  {@link DeviceContext#sharesPinnedMemoryWith}), of another element type, of another
     *                                  size, or a segment of a confined or closed arena
     * @throws ClosedResourceException  if either buffer is closed
     */
    public DeviceFuture<Void> enqueueCopy(HostData source, DeviceBuffer destination) {
        if (source instanceof HostBuffer host) {
            checkBuffer("source", host);
            checkBuffer("destination", destination);
            sameElementType(host.dtype(), destination.dtype());
            Checks.sameSize("destination", host.byteSize(), destination.byteSize());
            return hostToDevice(host.copySegment(), host, destination, null);
        }
        HostSegment memory = (HostSegment) Checks.notNull("source", source);
        if (memory.isUntyped()) {
            Checks.notConfined("source", memory.segment);
        }
        checkBuffer("destination", destination);
        memory.checkElementType("destination", destination);
        Checks.sameSize("destination", memory.byteSize(), destination.byteSize());
        return hostToDevice(memory.segment, null, destination, null);
    }

    /**
     * Copies all of {@code source} into {@code destination}: the reverse of {@link #enqueueCopy(HostData, DeviceBuffer)},
     * with the same checks, and a read-only {@code ByteBuffer} or segment refused as the destination. Host code may read
     * the destination once the future has completed.
     *
     * @throws InvalidArgumentException naming {@code source} or {@code destination}, as for the other direction, or for a
     *                                  read-only destination
     * @throws ClosedResourceException  if either buffer is closed
     */
    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, HostData destination) {
        if (destination instanceof HostBuffer host) {
            checkBuffer("source", source);
            checkBuffer("destination", host);
            sameElementType(source.dtype(), host.dtype());
            Checks.sameSize("destination", source.byteSize(), host.byteSize());
            return deviceToHost(source, host.copySegment(), host, null);
        }
        HostSegment memory = (HostSegment) Checks.notNull("destination", destination);
        checkBuffer("source", source);
        memory.checkWritable();
        if (memory.isUntyped()) {
            Checks.notConfined("destination", memory.segment);
        }
        memory.checkElementType("source", source);
        Checks.sameSize("destination", source.byteSize(), memory.byteSize());
        return deviceToHost(source, memory.segment, null, null);
    }

    /**
     * Copies all of {@code source} to {@code destination} (same element type and count; {@link DeviceBuffer#reinterpret}
     * one of them to copy bytes between element types, {@link DeviceBuffer#slice} either for a range). If the two belong
     * to different contexts it is a peer copy; this stream must belong to one of them, and the other context must not
     * be closed. Peer copies between GPUs go directly over NVLink or PCIe where
     * {@link DeviceContext#enablePeerAccess} was called, and through host memory otherwise.
     */
    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, DeviceBuffer destination) {
        Checks.notNull("source", source);
        Checks.notNull("destination", destination);
        if (source.context() != context && destination.context() != context) {
            throw new InvalidArgumentException("source", "neither " + source + " nor " + destination + " belongs to "
                    + this + "'s context");
        }
        if (source.context() == context) {
            checkBuffer("source", source);
        } else {
            checkPeer("source", source);
        }
        if (destination.context() == context) {
            checkBuffer("destination", destination);
        } else {
            checkPeer("destination", destination);
        }
        sameElementType(source.dtype(), destination.dtype());
        Checks.sameSize("destination", source.byteSize(), destination.byteSize());
        return deviceToDevice(source, destination, source.byteSize(), null);
    }

    // ---------------------------------------------------------------- pitched 2-D copies

    /**
     * Copies a rectangle of {@code height} rows of {@code width} elements from {@code source}, whose rows start
     * {@code sourcePitch} elements apart, to {@code destination}, whose rows start {@code destinationPitch} elements apart:
     * one operation and one future for the whole rectangle (CUDA's {@code cuMemcpy2DAsync}). The rectangle starts at the
     * first element of each side, so a tile at an origin is a range starting there; for the 64 &times; 48 tile at row 100,
     * column 200 of a 1920-wide {@code float[]} image:
     * <pre>{@code
     * int origin = 100 * 1920 + 200;
     * stream.enqueueCopy2D(HostData.of(image, origin, image.length - origin), 1920, tile, 64, 64, 48);
     * }</pre>
     * Counts are in elements of the device buffer's type, also for untyped host bytes (a {@code ByteBuffer} or
     * {@code MemorySegment}). Each side must hold the rectangle's extent, {@code (height - 1) * pitch + width} elements,
     * and may be longer; the elements between the rows, and after the extent, are left as they are. Element types are
     * checked as for {@link #enqueueCopy(HostData, DeviceBuffer)}.
     *
     * <p>Ordering, completion thread, cancellation and errors as in the class comment; for automatic ordering the copy
     * writes the destination's bytes from the first to the last of the rectangle, the rows' gaps included (conservative:
     * another stream's use of a gap waits as for an overlap). <b>Resources:</b> as for
     * {@link #enqueueCopy(HostData, DeviceBuffer)}: the source stays reachable, or allocated, until the device has read it.
     *
     * @param source           host memory holding the rectangle from its first element
     * @param sourcePitch      elements from the start of one source row to the start of the next; at least {@code width}
     * @param destination      device buffer receiving the rectangle from its first element
     * @param destinationPitch elements from the start of one destination row to the next; at least {@code width}
     * @param width            elements per row, positive
     * @param height           rows, positive
     * @throws InvalidArgumentException naming the argument: null, of another context (a host buffer: of one whose pinned
     *                                  memory this stream's cannot use), of another element type, a size or
     *                                  pitch that is not positive, a pitch less than {@code width}, an extent that
     *                                  overflows a {@code long} of bytes or passes the end of its side, or a segment of a
     *                                  confined or closed arena
     * @throws ClosedResourceException  if either buffer is closed
     */
    public DeviceFuture<Void> enqueueCopy2D(HostData source, long sourcePitch, DeviceBuffer destination, long destinationPitch,
            long width, long height) {
        Checks.notNull("source", source);
        checkBuffer("destination", destination);
        MemorySegment memory = checkedHostSide(source, destination, true);
        HostBuffer host = source instanceof HostBuffer h ? h : null;
        int e = destination.dtype().byteSize();
        PitchedCopy shape = PitchedCopy.of(e, sourcePitch, destinationPitch, width, height);
        shape.fits("source", shape.sourceSpan(), memory.byteSize(), shape.sourcePitch(), e, source);
        shape.fits("destination", shape.destinationSpan(), destination.byteSize(), shape.destinationPitch(), e, destination);
        return hostToDevice(memory, host, destination.slice(0, shape.destinationSpan() / e), shape);
    }

    /**
     * The memory of {@code host}, the host side of a 2-D copy with {@code device}, once checked: an open
     * {@link HostBuffer} of a context sharing pinned memory with this one, of the device buffer's element type, or host memory of a matching element type
     * (writable if it is the destination; of a shared arena if untyped). {@code toDevice}: whether {@code host} is the
     * source.
     */
    private MemorySegment checkedHostSide(HostData host, DeviceBuffer device, boolean toDevice) {
        String hostArgument = toDevice ? "source" : "destination";
        String deviceArgument = toDevice ? "destination" : "source";
        if (host instanceof HostBuffer h) {
            checkBuffer(hostArgument, h);
            if (toDevice) {
                sameElementType(h.dtype(), device.dtype());
            } else {
                sameElementType(device.dtype(), h.dtype());
            }
            return h.copySegment();
        }
        HostSegment m = (HostSegment) host;
        if (!toDevice) {
            m.checkWritable();
        }
        if (m.isUntyped()) {
            Checks.notConfined(hostArgument, m.segment);
        }
        m.checkElementType(deviceArgument, device);
        return m.segment;
    }

    /**
     * Copies a rectangle from {@code source} into {@code destination}: the reverse of
     * {@link #enqueueCopy2D(HostData, long, DeviceBuffer, long, long, long)}, with the same checks and contract, and a
     * read-only {@code ByteBuffer} or segment refused as the destination. Host code may read the destination once the
     * future has completed; the elements between the rows keep their contents.
     */
    public DeviceFuture<Void> enqueueCopy2D(DeviceBuffer source, long sourcePitch, HostData destination, long destinationPitch,
            long width, long height) {
        checkBuffer("source", source);
        Checks.notNull("destination", destination);
        MemorySegment memory = checkedHostSide(destination, source, false);
        HostBuffer host = destination instanceof HostBuffer h ? h : null;
        int e = source.dtype().byteSize();
        PitchedCopy shape = PitchedCopy.of(e, sourcePitch, destinationPitch, width, height);
        shape.fits("source", shape.sourceSpan(), source.byteSize(), shape.sourcePitch(), e, source);
        shape.fits("destination", shape.destinationSpan(), memory.byteSize(), shape.destinationPitch(), e, destination);
        return deviceToHost(source.slice(0, shape.sourceSpan() / e), memory, host, shape);
    }

    /**
     * Copies a rectangle between two device buffers of this stream's context (same element type), as
     * {@link #enqueueCopy2D(HostData, long, DeviceBuffer, long, long, long)} does from host memory. For automatic ordering
     * it reads the source's extent and writes the destination's. Rectangles in one allocation may interleave (their
     * extents may overlap) but must not share an element: the result would then be undefined, as for CUDA's, and it is
     * not checked. Peer 2-D copies are not offered: copy through a contiguous buffer of the other context.
     *
     * @throws InvalidArgumentException as for the other directions, or if a buffer belongs to another context
     */
    public DeviceFuture<Void> enqueueCopy2D(DeviceBuffer source, long sourcePitch, DeviceBuffer destination,
            long destinationPitch, long width, long height) {
        checkBuffer("source", source);
        checkBuffer("destination", destination);
        sameElementType(source.dtype(), destination.dtype());
        int e = source.dtype().byteSize();
        PitchedCopy shape = PitchedCopy.of(e, sourcePitch, destinationPitch, width, height);
        shape.fits("source", shape.sourceSpan(), source.byteSize(), shape.sourcePitch(), e, source);
        shape.fits("destination", shape.destinationSpan(), destination.byteSize(), shape.destinationPitch(), e, destination);
        return deviceToDevice(source.slice(0, shape.sourceSpan() / e), destination.slice(0, shape.destinationSpan() / e),
                shape.bytes(), shape);
    }

    /** Typed copies do not reinterpret: F32 into I32 would be bits, not values. */
    private static void sameElementType(DType source, DType destination) {
        if (source != destination) {
            throw new InvalidArgumentException("destination", "element type " + destination + " does not match the source's "
                    + source + "; a copy does not convert, so reinterpret() one of the buffers to copy its bytes");
        }
    }

    private void checkPeer(String argument, DeviceBuffer buffer) {
        if (buffer.isClosed()) {
            throw new ClosedResourceException(argument + " " + buffer);
        }
        buffer.context().checkUsable();
        if (!buffer.context().backendName().equals(context.backendName())) {
            throw new InvalidArgumentException(argument, buffer + " belongs to a " + buffer.context().backendName()
                    + " context; peer copies need two contexts of one backend (copy through host memory instead)");
        }
    }

    /** @param shape a 2-D copy's rectangle, {@code destination} spanning it; null for a copy of all of {@code destination} */
    private DeviceFuture<Void> hostToDevice(MemorySegment source, @Nullable HostBuffer sourceBuffer, DeviceBuffer destination,
            @Nullable PitchedCopy shape) {
        begin();
        try {
            claim("destination", destination, true);
            claim("source", sourceBuffer);
            orderAfterHazards();
            if (shape == null) {
                handle.copyHostToDevice(source, destination.memory(), destination.byteOffset(), destination.byteSize());
                copyBytes = destination.byteSize();
            } else {
                handle.copyHostToDevice2D(source, shape.sourcePitch(), destination.memory(), destination.byteOffset(),
                        shape.destinationPitch(), shape.widthBytes(), shape.height());
                copyBytes = shape.bytes();
            }
            DeviceFuture<Void> f = mark(null, TraceSpan.UPLOAD, sourceBuffer == null ? source : null); // Java memory must outlive the copy
            used(destination, f, true);
            if (sourceBuffer != null) {
                used(sourceBuffer, f);
            }
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /**
     * Under the lock, before the backend call: claims a buffer's memory for this enqueue, refused if another thread closed
     * it since the argument check (a free waits for claimed enqueues to note their use, so close() never frees under one).
     * With automatic ordering, also collects the accesses of other streams this one, a write if {@code writes}, would race
     * with ({@link #orderAfterHazards} waits for them).
     */
    private void claim(String argument, DeviceBuffer buffer, boolean writes) {
        if (!claimAccess(buffer, writes)) {
            throw new ClosedResourceException(argument + " " + buffer);
        }
    }

    /** {@link #claim(String, DeviceBuffer, boolean)} without the exception: false if the memory was closed. */
    private boolean claimAccess(DeviceBuffer buffer, boolean writes) {
        Allocation a = buffer.allocation;
        boolean open;
        if (ordering && buffer.ordered && !capturing) {
            long start = buffer.byteOffset();
            open = a.uses.claimOrdered(a.closed, core, start, start + buffer.byteSize(), writes, hazards);
        } else {
            open = a.uses.claimIfOpen(a.closed);
        }
        if (open) {
            claims.add(a.uses);
        }
        return open;
    }

    private void claim(String argument, @Nullable HostBuffer buffer) {
        if (buffer != null) {
            buffer.allocation.uses.claim(buffer.allocation.closed, argument, buffer);
            claims.add(buffer.allocation.uses);
        }
    }

    /**
     * Under the lock, after the claims and before the backend call: a device-side wait before the operation on each
     * operation of another stream that its claims found it would race with (at most one per stream: the latest). No host
     * thread waits for the device. Sealing that operation's marker group takes the other stream's lock; if a thread holds
     * it (maybe waiting for this stream's lock, to order itself after this stream), this stream's lock is let go while
     * waiting for it: an enqueue of another thread may then take its place first, as if it had been called first.
     *
     * @throws ClosedResourceException if this stream was closed while its lock was let go
     */
    private void orderAfterHazards() {
        UseTracker.Hazards h = hazards;
        if (h.size() == 0) {
            return;
        }
        try {
            for (int i = 0; i < h.size(); i++) {
                DeviceFuture<?> use = h.get(i);
                if (!use.trySeal()) {
                    // While the lock is let go another enqueue on this stream may run, with the stream's hazard and
                    // claim lists: this enqueue takes what is left of its own along, and puts its claims back after.
                    if (h == hazards) {
                        h = hazards.detach(i);
                        i = 0;
                    }
                    UseTracker.Claims mine = claims.detach();
                    core.unlock();
                    try {
                        use.seal();
                    } finally {
                        core.lock();
                        claims.attach(mine);
                    }
                    if (closed) {
                        throw new ClosedResourceException(toString());
                    }
                    context.checkUsable();
                    if (capturing) {
                        return; // another thread began a capture meanwhile: captured work waits at the graph's launch
                    }
                }
                if (waitMarkerLocked(use)) {
                    automaticWaits++;
                }
            }
        } finally {
            h.clear();
        }
    }

    /**
     * How many device-side waits automatic ordering has inserted before operations on this stream so far: one per other
     * stream whose unfinished work an operation would have raced with (see {@link ContextOptions#autoOrdering()}). None
     * for reads after reads, for operations on one stream, or with ordering off. For tests and diagnostics; any thread.
     */
    public long automaticWaits() {
        core.lock();
        try {
            return automaticWaits;
        } finally {
            core.unlock();
        }
    }

    /** Memory a graph's captured work uses: a replay claims it and notes its use, as an enqueue does. */
    record CapturedUse(UseTracker uses, java.util.concurrent.atomic.AtomicBoolean closed, Object what, boolean ordered) {
    }

    /** Under the lock, while capturing: the memory the captured work uses, for the graph's replays. */
    private java.util.@Nullable Map<UseTracker, CapturedUse> captured;
    /** Under the lock, while capturing: the captured host functions and host waits; null until the first. */
    private @Nullable GraphHostSteps capturedSteps;
    /** Under the lock, while capturing: the events and functions the captured work names. */
    private java.util.@Nullable Set<Object> capturedHandles;

    /**
     * Notes {@code f} as the last use of {@code buffer} by this stream, ending its claim; with automatic ordering, as its
     * last access (a write if {@code writes}) of the buffer's byte range. Under the lock.
     */
    private void used(DeviceBuffer buffer, DeviceFuture<?> f, boolean writes) {
        Allocation a = buffer.allocation;
        if (ordering && buffer.ordered && !capturing) {
            long start = buffer.byteOffset();
            a.uses.noteOrdered(core, f, start, start + buffer.byteSize(), writes);
        } else {
            a.uses.noteUse(core, f);
        }
        if (captured != null) {
            captured.putIfAbsent(a.uses, new CapturedUse(a.uses, a.closed, buffer, ordering && buffer.ordered));
        }
    }

    private void used(HostBuffer buffer, DeviceFuture<?> f) {
        buffer.allocation.uses.noteUse(core, f);
        if (captured != null) {
            captured.putIfAbsent(buffer.allocation.uses, new CapturedUse(buffer.allocation.uses, buffer.allocation.closed,
                    buffer, false));
        }
    }

    /** @param shape a 2-D copy's rectangle, {@code source} spanning it; null for a copy of all of {@code source} */
    private DeviceFuture<Void> deviceToHost(DeviceBuffer source, MemorySegment destination, @Nullable HostBuffer destinationBuffer,
            @Nullable PitchedCopy shape) {
        begin();
        try {
            claim("source", source, false);
            claim("destination", destinationBuffer);
            orderAfterHazards();
            if (shape == null) {
                handle.copyDeviceToHost(source.memory(), source.byteOffset(), destination, source.byteSize());
                copyBytes = source.byteSize();
            } else {
                handle.copyDeviceToHost2D(source.memory(), source.byteOffset(), shape.sourcePitch(), destination,
                        shape.destinationPitch(), shape.widthBytes(), shape.height());
                copyBytes = shape.bytes();
            }
            DeviceFuture<Void> f = mark(null, TraceSpan.DOWNLOAD, destinationBuffer == null ? destination : null); // Java memory must outlive the copy
            used(source, f, false);
            if (destinationBuffer != null) {
                used(destinationBuffer, f);
            }
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** @param shape a 2-D copy's rectangle, both buffers spanning it, of one context; null for a copy of {@code bytes} */
    private DeviceFuture<Void> deviceToDevice(DeviceBuffer source, DeviceBuffer destination, long bytes,
            @Nullable PitchedCopy shape) {
        begin();
        try {
            claim("source", source, false);
            claim("destination", destination, true);
            orderAfterHazards(); // on this stream, whichever context the other buffer and its users belong to
            DeviceFuture<Void> f = shape == null ? copyDeviceToDevice(source, destination, bytes)
                    : copyDeviceToDevice2D(source, destination, shape);
            used(source, f, false);
            used(destination, f, true);
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** The backend call and marker of {@link #deviceToDevice}. Under the lock. */
    private DeviceFuture<Void> copyDeviceToDevice(DeviceBuffer source, DeviceBuffer destination, long bytes) {
        if (source.context() == destination.context()) {
            handle.copyDeviceToDevice(source.memory(), source.byteOffset(), destination.memory(), destination.byteOffset(), bytes);
        } else {
            handle.copyPeer(source.context().handle, source.memory(), source.byteOffset(),
                    destination.context().handle, destination.memory(), destination.byteOffset(), bytes);
        }
        copyBytes = bytes;
        return mark(null, source.context() == destination.context() ? TraceSpan.DEVICE_TO_DEVICE
                : source.context().peerAccessEnabled(destination.context()) ? TraceSpan.PEER : TraceSpan.PEER_STAGED);
    }

    /** The backend call and marker of a 2-D {@link #deviceToDevice}, within one context. Under the lock. */
    private DeviceFuture<Void> copyDeviceToDevice2D(DeviceBuffer source, DeviceBuffer destination, PitchedCopy shape) {
        handle.copyDeviceToDevice2D(source.memory(), source.byteOffset(), shape.sourcePitch(), destination.memory(),
                destination.byteOffset(), shape.destinationPitch(), shape.widthBytes(), shape.height());
        copyBytes = shape.bytes();
        return mark(null, TraceSpan.DEVICE_TO_DEVICE);
    }

    // ---------------------------------------------------------------- memset

    /**
     * Sets every element of {@code destination} to {@code value}, converted to the buffer's element type
     * (integers must fit it; F16 and BF16 are rounded to nearest even).
     */
    public DeviceFuture<Void> enqueueFill(DeviceBuffer destination, Number value) {
        checkBuffer("destination", destination);
        Checks.notNull("value", value);
        DType t = destination.dtype();
        long bits = t.bits("value", value);
        begin();
        try {
            claim("destination", destination, true);
            orderAfterHazards();
            handle.fill(destination.memory(), destination.byteOffset(), destination.count(), t.byteSize(), bits);
            DeviceFuture<Void> f = mark(null, TraceSpan.MEMSET);
            used(destination, f, true);
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Sets every byte of {@code destination} to {@code byteValue} (0 to 255, or -128 to 127). */
    public DeviceFuture<Void> enqueueMemset(DeviceBuffer destination, int byteValue) {
        checkBuffer("destination", destination);
        if (byteValue < -128 || byteValue > 255) {
            throw new InvalidArgumentException("byteValue", "value " + byteValue + " does not fit a byte");
        }
        begin();
        try {
            claim("destination", destination, true);
            orderAfterHazards();
            handle.fill(destination.memory(), destination.byteOffset(), destination.byteSize(), 1, byteValue & 0xFF);
            DeviceFuture<Void> f = mark(null, TraceSpan.MEMSET);
            used(destination, f, true);
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    // ---------------------------------------------------------------- kernels

    /**
     * Launches {@code function} with {@code config} and {@code arguments}, one per declared parameter: a
     * {@link DeviceBuffer} of the declared element type for a pointer, a {@link Number} (or {@link Boolean})
     * that fits the declared type for a scalar. A pointer parameter's {@link KernelParam.Access} says whether the kernel
     * reads, writes or does both to its buffer, for automatic ordering (see {@link ContextOptions#autoOrdering()}).
     *
     * @throws InvalidArgumentException for a count or type mismatch (naming the parameter), for an element count the
     *                                  kernel declares ({@link Kernel.Builder#elementCount}) that is negative or exceeds
     *                                  one of its buffers (naming the count), or for dims, cluster dims or shared memory
     *                                  over the device's limits
     */
    public DeviceFuture<Void> enqueueLaunch(DeviceFunction function, LaunchConfig config, Object... arguments) {
        Checks.notNull("function", function);
        Checks.notNull("config", config);
        Checks.notNull("arguments", arguments);
        function.checkUsableOn(context);
        context.limits().check(config, context);
        List<KernelParam> params = function.kernel().params();
        if (arguments.length != params.size()) {
            throw new InvalidArgumentException("arguments", function.kernel().name() + " takes " + params.size()
                    + " arguments " + params + " but " + arguments.length + " were given");
        }
        for (int i = 0; i < arguments.length; i++) {
            checkArgument(params.get(i), i, arguments[i]);
        }
        function.kernel().checkElementCounts(arguments);
        begin();
        try {
            for (int i = 0; i < arguments.length; i++) {
                KernelParam p = params.get(i);
                if (p.isPointer()) {
                    DeviceBuffer b = (DeviceBuffer) arguments[i];
                    if (!claimAccess(b, p.access().writes())) {
                        throw new ClosedResourceException(argumentName(p, i) + " " + b);
                    }
                }
            }
            orderAfterHazards(); // before the arguments are set: it may let the lock go, and they are the stream's
            LaunchArguments a = launchArguments;
            a.reset(params);
            for (int i = 0; i < arguments.length; i++) {
                KernelParam p = params.get(i);
                if (p.isPointer()) {
                    DeviceBuffer b = (DeviceBuffer) arguments[i];
                    a.setPointer(i, b.memory(), b.byteOffset());
                } else {
                    Object v = arguments[i];
                    a.setBits(i, v instanceof Boolean bool ? (bool ? 1 : 0) : p.type().bits(p.name(), (Number) v));
                }
            }
            handle.launch(function.handle, config, a);
            keptByGraph(function);
            DeviceFuture<Void> f = mark(null, function, function); // not unloaded by the leak detector before it ran
            for (int i = 0; i < arguments.length; i++) {
                if (arguments[i] instanceof DeviceBuffer b) {
                    used(b, f, params.get(i).access().writes());
                }
            }
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /** Checks one launch argument; builds no message unless it fails (this runs on every launch). */
    private void checkArgument(KernelParam p, int index, @Nullable Object value) {
        if (value == null) {
            throw new InvalidArgumentException(argumentName(p, index), "must not be null");
        }
        if (p.isPointer()) {
            if (!(value instanceof DeviceBuffer b)) {
                throw new InvalidArgumentException(argumentName(p, index), "expects a DeviceBuffer of " + p.type() + " but got "
                        + value.getClass().getSimpleName() + " " + value);
            }
            if (b.isClosed() || b.context() != context || b.dtype() != p.type()) {
                String name = argumentName(p, index);
                checkBuffer(name, b);
                Checks.sameType(name, p.type(), b.dtype());
            }
        } else if (value instanceof Boolean) {
            if (p.type().isFloatingPoint()) {
                throw new InvalidArgumentException(argumentName(p, index), "expects a " + p.type() + " but got a boolean");
            }
        } else if (value instanceof Number n) {
            try {
                p.type().bits("", n);
            } catch (InvalidArgumentException e) {
                p.type().bits(argumentName(p, index), n);
            }
        } else {
            throw new InvalidArgumentException(argumentName(p, index), "expects a number of type " + p.type() + " but got "
                    + value.getClass().getSimpleName() + " " + value);
        }
    }

    static String argumentName(KernelParam p, int index) {
        return "arguments[" + index + "] (" + p + ")";
    }

    // ---------------------------------------------------------------- events, waits, host work

    /**
     * Records {@code event} here (Mojo's {@code record_event}): the event completes when everything enqueued
     * on this stream before the call has finished. The future completes at the same point.
     */
    public DeviceFuture<Void> enqueueRecord(DeviceEvent event) {
        Checks.notNull("event", event);
        event.checkUsableOn(context);
        begin();
        try {
            handle.record(event.handle);
            event.recorded = true;
            keptByGraph(event);
            return mark(null, TraceSpan.RECORD, event); // not destroyed by the leak detector before the record ran
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /**
     * Makes work enqueued after this call wait, on the device, until the work captured by the last record
     * of {@code event} has finished (Mojo's {@code enqueue_wait_for}). No host thread waits. An event never
     * recorded is already complete.
     */
    public DeviceFuture<Void> waitFor(DeviceEvent event) {
        Checks.notNull("event", event);
        event.checkUsableOn(context);
        begin();
        try {
            core.sealLocked(); // this wait may hold the stream (on a held record): earlier work first gets its marker
            handle.waitEvent(event.handle);
            keptByGraph(event);
            return mark(null, TraceSpan.WAIT, event); // not destroyed by the leak detector before the wait ran
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /**
     * Makes work enqueued after this call wait until the operation of {@code future} has finished. For a
     * future of this backend (any stream, any context of it) the wait happens on the device, on that
     * operation's completion marker: no host round trip, no host thread blocked. Futures of another backend
     * are waited for like any {@link CompletionStage}.
     *
     * <p>A cancelled future still orders: its operation keeps running, and this stream waits for it.
     */
    public DeviceFuture<Void> waitFor(DeviceFuture<?> future) {
        Checks.notNull("future", future);
        DeviceStream origin = future.stream();
        if (origin != null && !origin.context.backendName().equals(context.backendName())) {
            return waitForStage(future);
        }
        if (origin != this) {
            future.seal(); // its group's marker must exist before a device-side wait on it; before taking this lock
        }
        begin();
        try {
            waitMarkerLocked(future);
            return mark(null, TraceSpan.WAIT);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /**
     * Device-side wait on the marker of {@code future} unless the device has finished it, by its stream's completed
     * sequence (not by the future's state: a cancelled future's operation may still run). Under the lock. Returns whether
     * it enqueued a wait.
     */
    private boolean waitMarkerLocked(DeviceFuture<?> future) {
        if (future.stream() == this || future.deviceFinished()) {
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

    /**
     * Makes work enqueued after this call wait until {@code stage} completes, without blocking any host
     * thread. With {@link HostWaits#HOLD_ON_HOST} (the default) the work enqueued after it is held, in order, on
     * the host and submitted to the device by the thread that completes the stage (from within its completion);
     * with {@link HostWaits#GATE_ON_DEVICE} the stream waits on the device for a flag that the host sets (CUDA:
     * {@code cuStreamWaitValue32} on host-mapped memory). Either way the futures of held work, and waits of other
     * streams on it, complete only after the stage. If the stage completes exceptionally the stream continues and
     * the returned future completes exceptionally with that exception; a stage that never completes holds the
     * stream forever (closing the context releases it, failing the wait with {@link ClosedResourceException}). A
     * {@link DeviceFuture} of this backend is waited for on the device (see {@link #waitFor(DeviceFuture)}).
     *
     * <p>During {@link #capture}, the wait becomes a host step of the graph instead, which blocks the backend's thread
     * (CUDA and HIP: the driver's callback thread) on each replay until the stage completes (see {@link DeviceGraph},
     * "Host steps").
     */
    public DeviceFuture<Void> waitFor(CompletionStage<?> stage) {
        Checks.notNull("stage", stage);
        if (stage instanceof DeviceFuture<?> df) {
            return waitFor(df);
        }
        return waitForStage(stage);
    }

    private DeviceFuture<Void> waitForStage(CompletionStage<?> stage) {
        HostGate gate;
        DeviceFuture<Void> f;
        begin();
        try {
            if (capturing) {
                handle.captureHostStep(capturedHostSteps().hostWait(stage));
                return mark(null, TraceSpan.WAIT);
            }
            core.sealLocked(); // earlier work must not wait for the host behind this gate to get its marker
            gate = handle.enqueueHostGate();
            f = mark(null, TraceSpan.WAIT);
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

    /**
     * Makes work enqueued after this call wait, on the device, for everything enqueued on {@code other}
     * before this call. {@code other} may belong to another context of the same backend.
     */
    public DeviceFuture<Void> waitFor(DeviceStream other) {
        Checks.notNull("other", other);
        if (other == this) {
            return enqueueMarker();
        }
        return waitFor(other.marker(null));
    }

    /**
     * A future that completes when everything enqueued on this stream so far has finished (Numba's
     * {@code async_done}). Enqueues only a completion marker.
     */
    public DeviceFuture<Void> enqueueMarker() {
        return marker(TraceSpan.MARKER);
    }

    /** A marker; traced as {@code kind}, or not at all when null (markers the library enqueues itself). */
    private DeviceFuture<Void> marker(@Nullable String kind) {
        begin();
        try {
            return mark(null, kind);
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    /**
     * Runs {@code function} on a host thread in stream order: after everything enqueued before it has
     * finished, and before anything enqueued after it starts. No host thread blocks while waiting: the
     * stream is held as in {@link #waitFor(CompletionStage)}, and the function runs on the context's host
     * executor (virtual threads) once the preceding work's marker completes. If the function throws, the
     * returned future completes exceptionally with its exception and the stream continues. A device fault
     * before it means it never runs.
     *
     * <p>During {@link #capture}, the function becomes a host step of the graph instead: it runs once per replay, on
     * the backend's thread rather than the host executor, and what it throws fails the replay's future (see
     * {@link DeviceGraph}, "Host steps").
     */
    public DeviceFuture<Void> enqueueHostFunction(Runnable function) {
        Checks.notNull("function", function);
        DeviceFuture<Void> before;
        HostGate gate;
        DeviceFuture<Void> after;
        begin();
        try {
            if (capturing) {
                handle.captureHostStep(capturedHostSteps().hostFunction(function));
                return mark(null, TraceSpan.HOST);
            }
            before = mark(null, null);
            core.sealLocked(); // earlier work must not wait for the host behind this gate to get its marker
            gate = handle.enqueueHostGate();
            after = mark(null, TraceSpan.HOST);
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
                    after.presetFailure(t);
                }
            } else {
                after.presetFailure(e);
            }
            gate.open();
        }, context.hostExecutor());
        return after;
    }

    /**
     * Under the lock: while capturing, notes {@code handle} (an event or function the captured work names) for the graph
     * to keep reachable, so the leak detector does not release it under a replay.
     */
    private void keptByGraph(Object handle) {
        if (capturedHandles != null) {
            capturedHandles.add(handle);
        }
    }

    /** Under the lock, while capturing: the host steps of the graph being captured, created with the first one. */
    private GraphHostSteps capturedHostSteps() {
        GraphHostSteps steps = capturedSteps;
        if (steps == null) {
            steps = new GraphHostSteps(context);
            capturedSteps = steps;
        }
        return steps;
    }

    // ---------------------------------------------------------------- graphs

    /**
     * Captures the work {@code body} enqueues on this stream into a graph instead of running it, and returns
     * the graph, to launch many times with {@link DeviceGraph#enqueueLaunch(DeviceStream)}. During capture
     * the enqueue methods return futures already failed with {@link IllegalStateException} (the work has not
     * run). Host functions and waits for a {@link CompletionStage} are captured as host steps of the graph, run once
     * per replay on the backend's thread (see {@link DeviceGraph}, "Host steps"). Work enqueued by other threads on
     * this stream during the capture is captured too.
     *
     * @throws UnsupportedOnBackendException if the backend cannot capture; thrown by the enqueue call in
     *                                       {@code body} for an operation the backend cannot capture (host steps on a
     *                                       HIP runtime without {@code hipLaunchHostFunc}, say), with nothing enqueued
     */
    public DeviceGraph capture(Consumer<DeviceStream> body) {
        Checks.notNull("body", body);
        begin();
        try {
            if (capturing) {
                throw new IllegalStateException(this + " is already capturing");
            }
            core.sealLocked(); // a marker recorded during capture would be captured into the graph
            handle.beginCapture();
            capturing = true;
            captured = new java.util.LinkedHashMap<>();
            capturedSteps = null;
            capturedHandles = new java.util.HashSet<>();
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
        RuntimeException failure = null;
        try {
            body.accept(this);
        } catch (RuntimeException e) {
            failure = e;
        }
        dev.sluice.spi.GraphHandle graph;
        List<CapturedUse> uses;
        List<Object> handles;
        GraphHostSteps steps;
        core.lock();
        try {
            capturing = false;
            uses = List.copyOf(captured.values());
            captured = null;
            handles = List.copyOf(capturedHandles);
            capturedHandles = null;
            steps = capturedSteps;
            capturedSteps = null;
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
        return new DeviceGraph(context, graph, uses, handles, steps);
    }

    /**
     * Launches {@code graph} here, after {@code after} (a sealed future of another stream) if not null; used by
     * {@link DeviceGraph#enqueueLaunch}.
     */
    DeviceFuture<Void> launchGraph(DeviceGraph graph, @Nullable DeviceFuture<?> after) {
        begin();
        try {
            if (capturing && graph.hostSteps != null) {
                // Its steps find their replay by launch order; a launch captured into another graph never runs as one.
                throw new IllegalStateException(graph + " has host steps and cannot be launched while " + this
                        + " is capturing");
            }
            // A replay uses the captured memory as the captured operations did: claimed (refused if it was closed since),
            // and noted as used, so a close() waits for the replay instead of freeing memory under it.
            List<CapturedUse> uses = graph.uses;
            for (CapturedUse u : uses) {
                // A replay may read and write all it captured: ordered as a write of the whole allocation.
                boolean open = u.ordered() && ordering
                        ? u.uses().claimOrdered(u.closed(), core, 0, Long.MAX_VALUE, true, hazards)
                        : u.uses().claimIfOpen(u.closed());
                if (!open) {
                    throw new ClosedResourceException(u.what() + ", which " + graph + " uses (close the graph before the"
                            + " memory its work captured)");
                }
                claims.add(u.uses());
            }
            if (after != null) {
                waitMarkerLocked(after);
            }
            orderAfterHazards();
            GraphHostSteps steps = graph.hostSteps;
            DeviceFuture<Void> f;
            if (steps == null) {
                handle.launchGraph(graph.handle);
                // The events and functions it names live until the replay has finished, the graph closed or not.
                f = mark(null, TraceSpan.GRAPH, graph.handles.isEmpty() ? null : graph.handles);
            } else {
                // The replay is the future's keep-alive: its steps' failures fail the future (DeviceFuture.finish).
                GraphHostSteps.Replay replay = new GraphHostSteps.Replay();
                replay.handles = graph.handles;
                handle.launchGraph(steps.launching(graph.handle, replay));
                f = mark(null, TraceSpan.GRAPH, replay);
            }
            for (CapturedUse u : uses) {
                if (u.ordered() && ordering) {
                    u.uses().noteOrdered(core, f, 0, Long.MAX_VALUE, true);
                } else {
                    u.uses().noteUse(core, f);
                }
            }
            return f;
        } catch (RuntimeException e) {
            throw failed(e);
        } finally {
            end();
        }
    }

    // ---------------------------------------------------------------- interoperation

    /**
     * The backend's own stream (CUDA: the {@code CUstream}; HIP: the {@code hipStream_t}) as a native address, to hand
     * to another library on the same device (cuBLAS or cuFFT through JCuda, say), like Mojo's {@code as_raw} and
     * Numba's {@code stream.handle}. Sluice keeps owning it: never destroy it, and stop using it once this stream is
     * closed.
     *
     * <p>Ordering: work that another library enqueues on the handle runs in this stream's order, after what Sluice
     * has submitted before and before what it submits after, and {@link #enqueueMarker()} called after that work
     * completes once it has finished. One exception: while this stream waits for the host (a
     * {@link #waitFor(java.util.concurrent.CompletionStage)} or host function still pending, under the default
     * {@link HostWaits#HOLD_ON_HOST}), Sluice holds later operations on the host and submits them when the wait ends,
     * so they reach the device after whatever was enqueued on the handle in the meantime; enqueue there only when no
     * such wait is pending (after {@link #synchronize()}, for instance).
     *
     * @throws UnsupportedOnBackendException on the CPU simulator, which has no driver stream
     * @throws ClosedResourceException       if this stream is closed
     */
    public long nativeHandle() {
        core.lock();
        try {
            if (closed) {
                throw new ClosedResourceException(toString());
            }
            context.checkUsable();
            return handle.device.nativeHandle();
        } finally {
            core.unlock();
        }
    }

    // ---------------------------------------------------------------- blocking

    /**
     * Blocks until everything enqueued on this stream so far has finished and its futures have completed.
     *
     * <p>{@link Thread#interrupt()} ends the wait with a {@link SluiceException} caused by the
     * {@link InterruptedException}, the flag set again, except during the driver's own wait for the stream, which
     * cannot be cut short; the work goes on in stream order.
     *
     * @throws DeviceException if the device faulted
     * @throws IllegalStateException if called on a completion thread, or in a host function of this context (either
     *                               would wait for itself)
     * @throws SluiceException if interrupted
     */
    public void synchronize() {
        context.refuseBlocking("DeviceStream.synchronize");
        if (closed) {
            throw new ClosedResourceException(toString());
        }
        DeviceFuture<?> upTo = core.last();
        context.checkUsable();
        handle.synchronize();
        awaitFinished(upTo);
        context.checkUsable();
    }

    /**
     * Waits until the device has finished {@code upTo} (by the completed sequence, so a cancelled future does not cut the
     * wait short) and its future has completed, or the context stopped. Keeps an interrupt for the caller.
     */
    private void awaitFinished(@Nullable DeviceFuture<?> upTo) {
        awaitFinished(upTo, Long.MAX_VALUE, true);
    }

    /**
     * {@link #awaitFinished(DeviceFuture)} giving up at {@code deadline} ({@link System#nanoTime()}); {@code interruptible}:
     * an interrupt ends it with a {@link SluiceException}.
     */
    private void awaitFinished(@Nullable DeviceFuture<?> upTo, long deadline, boolean interruptible) {
        if (upTo != null && core.awaitCompleted(upTo.sequence(), context, deadline, interruptible)) {
            awaitQuietly(upTo); // completed by now, or about to be: its sequence has passed
        }
    }

    /**
     * For the context's close: drops the work held on the host behind a wait that has not ended, its futures failing
     * with {@code cause}. The open marker group is sealed first, so that its marker is one of the held ones.
     */
    void dropHeld(RuntimeException cause) {
        core.lock();
        try {
            core.sealLocked();
            handle.dropHeld(cause);
        } finally {
            core.unlock();
        }
    }

    /** For the context's close: waits for the work on the device, then for its futures until {@code deadline}. */
    void drain(long deadline) {
        if (closed) {
            return;
        }
        DeviceFuture<?> upTo = core.last();
        handle.synchronize();
        awaitFinished(upTo, deadline, false);
    }

    static void awaitQuietly(java.util.concurrent.Future<?> f) {
        boolean interrupted = false;
        while (true) {
            try {
                f.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | java.util.concurrent.CancellationException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The blocking facade over this stream: each operation enqueued and waited for. */
    public SyncStream sync() {
        return new SyncStream(this);
    }

    /** Whether {@link #close()} has begun; a closed stream refuses every new operation. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Waits for the stream's work and for its futures to complete (so results copied to the host may be read once
     * it returns, as with Numba's {@code auto_synchronize()}), then destroys it. The default stream closes only with
     * its context; closing it is a no-op. Idempotent and safe from any thread, except the completion thread, where it
     * would wait for itself.
     *
     * <p>{@link Thread#interrupt()} ends the wait (work held behind a stage that never completes would make it wait for
     * ever) with a {@link SluiceException} caused by the {@link InterruptedException}, the flag set again; the stream is
     * destroyed all the same: work held on the host is dropped, its futures failing with
     * {@link ClosedResourceException}, and work already on the device finishes, its futures completing as usual.
     *
     * @throws IllegalStateException if called on a completion thread or in a host function of this context
     * @throws SluiceException       if interrupted while waiting
     */
    @Override
    public void close() {
        if (isDefault || closed) {
            return;
        }
        context.refuseBlocking("DeviceStream.close");
        closeInternal(true, Long.MAX_VALUE, true);
    }

    /**
     * Refuses further enqueues (waiting for one in flight, which holds the lock), waits for the work and, until
     * {@code deadline}, for its futures; then, if {@code destroy}, destroys the backend's stream (the default stream's
     * belongs to the context). Also called by the context's close.
     */
    void closeInternal(boolean destroy, long deadline, boolean interruptible) {
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
            context.engine.remove(core);
            if (destroy) {
                handle.destroy();
            }
            context.forget(this);
        }
    }

    @Override
    public String toString() {
        return "DeviceStream[" + context.backendName() + ":" + context.id() + (isDefault ? " default" : " #" + index) + "]";
    }
}
