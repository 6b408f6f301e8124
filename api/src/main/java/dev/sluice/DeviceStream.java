package dev.sluice;

import dev.sluice.engine.PublicStream;
import dev.sluice.engine.ReplayedWork;
import dev.sluice.engine.StreamEnqueuer;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
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
@SuppressWarnings("exports") // the engine holds it as its internal PublicStream; users see AutoCloseable and this class
public final class DeviceStream implements AutoCloseable, PublicStream {

    private final DeviceContext context;
    /** The enqueue protocol, ordering and completion of this stream's operations. */
    final StreamEnqueuer engine;
    private final boolean isDefault;
    private final int priority;
    private final int index;
    /** Claimed by the close that tells the listeners ({@link DeviceListener#streamClosed}), so they are told once. */
    private final AtomicBoolean closeReported = new AtomicBoolean();

    DeviceStream(DeviceContext context, StreamHandle handle, boolean isDefault, int priority, int index) {
        this.context = context;
        this.isDefault = isDefault;
        this.priority = priority;
        this.index = index;
        this.engine = isDefault ? context.core.openDefaultStream(this) : context.core.openStream(handle, index, this);
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

    // ---------------------------------------------------------------- futures

    /**
     * The future of an operation about to be enqueued, which the engine fills in: observed when a listener or a recording
     * wants operations (one volatile read while none does).
     */
    <T> DeviceFuture<T> future(@Nullable T value) {
        Observers o = context.observing;
        return o == null ? new DeviceFuture<>(value) : new DeviceFuture.Observed<>(value, o);
    }

    private DeviceFuture<Void> future() {
        return future(null);
    }

    void checkBuffer(String argument, DeviceBuffer buffer) {
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
        return new LabelScope(engine, engine.swapLabel(label));
    }

    /** The label in effect for operations enqueued now, or null. */
    public @Nullable String currentLabel() {
        return engine.label();
    }

    /** An open {@link #label(String)}; {@link #close()} restores the label before it. */
    public static final class LabelScope implements AutoCloseable {
        private final StreamEnqueuer stream;
        private final @Nullable String previous;
        private final AtomicBoolean closed = new AtomicBoolean();

        private LabelScope(StreamEnqueuer stream, @Nullable String previous) {
            this.stream = stream;
            this.previous = previous;
        }

        /** Restores the label that was in effect when this scope opened. Idempotent. */
        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                stream.swapLabel(previous);
            }
    }
    }

    /**
     * This stream's name in traces, Flight Recorder events and metrics: {@code "default"} for the context's default
     * stream, {@code "stream N"} for its N-th created stream. Unique within the context.
     */
    public String name() {
        return engine.name();
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
        return engine.memory().allocate(bytes, a -> new DeviceBuffer(context, a, type, count), b -> b.ready(future(b)));
    }

    /** Frees {@code buffer} in this stream's order; the same as {@link DeviceBuffer#close()} but on this stream. */
    public DeviceFuture<Void> enqueueFree(DeviceBuffer buffer) {
        checkBuffer("buffer", buffer);
        if (!buffer.isOwner()) {
            throw new InvalidArgumentException("buffer", buffer + " owns no memory (a slice, a reinterpretation or a module"
                    + " variable); free the buffer it came from");
        }
        if (!buffer.allocation().close()) {
            throw new ClosedResourceException("buffer " + buffer);
        }
        return engine.memory().free(future(), buffer.allocation());
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
            return engine.copyToDevice(future(), host.copySegment(), host.allocation, host, destination.region(), null);
        }
        HostSegment memory = (HostSegment) Checks.notNull("source", source);
        if (memory.isUntyped()) {
            Checks.notConfined("source", memory.segment);
        }
        checkBuffer("destination", destination);
        memory.checkElementType("destination", destination);
        Checks.sameSize("destination", memory.byteSize(), destination.byteSize());
        return engine.copyToDevice(future(), memory.segment, null, null, destination.region(), null);
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
            return engine.copyToHost(future(), source.region(), host.copySegment(), host.allocation, host, null);
        }
        HostSegment memory = (HostSegment) Checks.notNull("destination", destination);
        checkBuffer("source", source);
        memory.checkWritable();
        if (memory.isUntyped()) {
            Checks.notConfined("destination", memory.segment);
        }
        memory.checkElementType("source", source);
        Checks.sameSize("destination", source.byteSize(), memory.byteSize());
        return engine.copyToHost(future(), source.region(), memory.segment, null, null, null);
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
        return engine.copyOnDevice(future(), source.region(), destination.region(), source.byteSize(), null);
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
        return engine.copyToDevice(future(), memory, host == null ? null : host.allocation, host,
                destination.slice(0, shape.destinationSpan() / e).region(), shape.pitched());
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
        return engine.copyToHost(future(), source.slice(0, shape.sourceSpan() / e).region(), memory,
                host == null ? null : host.allocation, host, shape.pitched());
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
        return engine.copyOnDevice(future(), source.slice(0, shape.sourceSpan() / e).region(),
                destination.slice(0, shape.destinationSpan() / e).region(), shape.bytes(), shape.pitched());
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

    /**
     * How many device-side waits automatic ordering has inserted before operations on this stream so far: one per other
     * stream whose unfinished work an operation would have raced with (see {@link ContextOptions#autoOrdering()}). None
     * for reads after reads, for operations on one stream, or with ordering off. For tests and diagnostics; any thread.
     */
    public long automaticWaits() {
        return engine.automaticWaits();
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
        return engine.fill(future(), destination.region(), destination.count(), t.byteSize(), bits);
    }

    /** Sets every byte of {@code destination} to {@code byteValue} (0 to 255, or -128 to 127). */
    public DeviceFuture<Void> enqueueMemset(DeviceBuffer destination, int byteValue) {
        checkBuffer("destination", destination);
        if (byteValue < -128 || byteValue > 255) {
            throw new InvalidArgumentException("byteValue", "value " + byteValue + " does not fit a byte");
        }
        return engine.fill(future(), destination.region(), destination.byteSize(), 1, byteValue & 0xFF);
    }

    // ---------------------------------------------------------------- kernels

    /**
     * Launches {@code function} with {@code config} and {@code arguments}, one per declared parameter: a
     * {@link DeviceBuffer} of the declared element type for a pointer, a {@link Number} (or {@link Boolean})
     * that fits the declared type for a scalar. A pointer parameter's {@link KernelParam.Access} says whether the kernel
     * reads, writes or does both to its buffer, for automatic ordering (see {@link ContextOptions#autoOrdering()}).
     *
     * @throws InvalidArgumentException for a count or type mismatch (naming the parameter), a buffer whose elements are
     *                                  not aligned to their size (a {@link DeviceBuffer#reinterpret reinterpretation} of a
     *                                  byte slice at an odd offset, say), for an element count the
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
        Kernel kernel = function.kernel();
        List<KernelParam> params = kernel.params();
        if (arguments.length != params.size()) {
            throw new InvalidArgumentException("arguments", kernel.name() + " takes " + params.size()
                    + " arguments " + params + " but " + arguments.length + " were given");
        }
        Object[] values = LaunchArguments.checked(this, kernel, arguments);
        return engine.launch(future(), function.handle, function, function.traceKind(), params, config, values);
    }

    // ---------------------------------------------------------------- events, waits, host work

    /**
     * Records {@code event} here (Mojo's {@code record_event}): the event completes when everything enqueued
     * on this stream before the call has finished. The future completes at the same point.
     */
    public DeviceFuture<Void> enqueueRecord(DeviceEvent event) {
        Checks.notNull("event", event);
        event.checkUsableOn(context);
        DeviceFuture<Void> f = engine.waits().record(future(), event.handle, event);
        event.recorded = true;
        return f;
    }

    /**
     * Makes work enqueued after this call wait, on the device, until the work captured by the last record
     * of {@code event} has finished (Mojo's {@code enqueue_wait_for}). No host thread waits. An event never
     * recorded is already complete.
     */
    public DeviceFuture<Void> waitFor(DeviceEvent event) {
        Checks.notNull("event", event);
        event.checkUsableOn(context);
        return engine.waits().waitEvent(future(), event.handle, event);
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
            return engine.waits().waitForStage(future(), future);
        }
        return engine.waits().waitFor(future(), future);
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
        return engine.waits().waitForStage(future(), stage);
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
        return waitFor(other.engine.waits().marker(new DeviceFuture<Void>(null), null));
    }

    /**
     * A future that completes when everything enqueued on this stream so far has finished (Numba's
     * {@code async_done}). Enqueues only a completion marker.
     */
    public DeviceFuture<Void> enqueueMarker() {
        return engine.waits().marker(future(), OperationKind.MARKER);
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
        return engine.waits().hostFunction(future(), function);
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
        engine.beginCapture();
        RuntimeException failure = null;
        try {
            body.accept(this);
        } catch (RuntimeException e) {
            failure = e;
        } catch (Throwable t) { // an Error, or a checked exception a Kotlin body throws undeclared: the capture ends too
            try {
                engine.endCapture(new IllegalStateException("the capture's body threw " + t, t));
            } catch (IllegalStateException ended) {
                // the capture ended and its graph was destroyed; what the body threw leaves below
            }
            throw t;
        }
        return new DeviceGraph(context, engine.endCapture(failure));
    }

    /**
     * Repeated work on this stream: each {@link RepeatedWork#enqueue} call records what its body enqueues and launches
     * it as one graph, updated in place while the work keeps its shape (see {@link RepeatedWork}). Close it when done;
     * it holds a native graph.
     *
     * @throws ClosedResourceException if this stream or its context is closed
     */
    public RepeatedWork repeatedWork() {
        return new RepeatedWork(this, new ReplayedWork(engine));
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
        return engine.nativeHandle();
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
        engine.waits().synchronize();
    }

    /** The blocking facade over this stream: each operation enqueued and waited for. */
    public SyncStream sync() {
        return new SyncStream(this);
    }

    /** Whether {@link #close()} has begun; a closed stream refuses every new operation. */
    public boolean isClosed() {
        return engine.isClosed();
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
        if (isDefault || engine.isClosed()) {
            return;
        }
        context.core.refuseBlocking("DeviceStream.close");
        try {
            engine.close(true, Long.MAX_VALUE, true);
        } finally {
            Observers o = context.observing;
            if (o != null && closeReported.compareAndSet(false, true)) {
                o.streamClosed(this); // per-stream state of listeners (a metrics binder's meters) goes with the stream
            }
        }
    }

    @Override
    public String toString() {
        return "DeviceStream[" + context.backendName() + ":" + context.id() + (isDefault ? " default" : " #" + index) + "]";
    }
}
