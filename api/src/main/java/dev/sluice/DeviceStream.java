package dev.sluice;

import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * An in-order queue of device work (Mojo's {@code DeviceStream}, CUDA's stream). Operations enqueued on
 * one stream run one after another in the order of the calls; operations on different streams may run
 * concurrently, unless ordered by {@link #waitFor} calls.
 *
 * <p>Every {@code enqueue*} and {@code waitFor} method checks its arguments, enqueues, and returns at once
 * with a {@link DeviceFuture}. The same block applies to all of them:
 * <ul>
 * <li><b>Ordering:</b> the operation runs after everything enqueued on this stream before the call, and
 * before everything enqueued after it. Calls from several threads are serialised; each call's position is
 * its future's {@link DeviceFuture#sequence()}.
 * <li><b>Completion thread:</b> the future completes on the context's completion thread, in stream order,
 * once the device has finished the operation (see {@link DeviceFuture}).
 * <li><b>Cancellation:</b> cancelling the future does not stop or undo the operation.
 * <li><b>Resources:</b> buffers and host memory used by the operation stay allocated until it has
 * finished, even if closed before; Java arrays, {@link ByteBuffer}s and {@link MemorySegment}s passed in
 * must not be changed (sources) or read (destinations) until the future completes.
 * <li><b>Errors:</b> bad arguments throw {@link InvalidArgumentException} (or
 * {@link ClosedResourceException}) at the call, with nothing enqueued; the stream stays usable. Device
 * faults complete the future exceptionally with a {@link DeviceException}.
 * </ul>
 */
public final class DeviceStream implements AutoCloseable {

    private final DeviceContext context;
    final HoldingStream handle;
    private final boolean isDefault;
    private final int priority;
    private final ReentrantLock lock = new ReentrantLock();
    private final CompletionEngine.Queue queue;
    private final LaunchArguments launchArguments = new LaunchArguments();
    private final int index;
    /** Null when the context traces nothing: then an enqueue pays two null checks of this final field. */
    private final @Nullable Tracer tracer;
    /** Under the lock, tracing on: the timing point recorded by {@code begin} before the operation. */
    private Tracer.@Nullable Point traceStart;
    /** Under the lock: the label of {@link #label(String)}'s innermost open scope. */
    private @Nullable String label;
    private long sequence;
    private @Nullable DeviceFuture<?> last;
    private volatile boolean closed;
    private boolean capturing;

    /**
     * Completion markers in batches ({@link ContextOptions#withMarkerBatch}): with N > 1, operations share one backend
     * marker, recorded after every N-th operation by the enqueuing thread, at once for an operation enqueued while nothing
     * was pending, or by the completion thread once no operation has joined the batch for
     * {@code sluice.markers.batchIdleNanos} (default 2,000). {@code -Dsluice.markers.batch=N} sets N for contexts whose
     * options leave it at 1 (the test suites run whole with it). Both are read when the stream is created.
     */
    private final int markerBatch;
    private final long batchIdleNanos = Long.getLong("sluice.markers.batchIdleNanos", 2_000L);

    /** Futures that will share one marker, not yet recorded (with {@link #markerBatch} above 1). */
    static final class Batch {
        final DeviceStream stream;
        final ArrayList<DeviceFuture<?>> futures;
        /** Written under the stream's lock; read by the completion thread to see whether the batch still grows. */
        volatile int size;
        /** The completion thread's own: the size it last saw and when. */
        int seenSize;
        long seenAt;

        Batch(DeviceStream stream, int capacity) {
            this.stream = stream;
            this.futures = new ArrayList<>(capacity);
        }
    }

    /** Under the lock: the batch operations join, or null. */
    private @Nullable Batch openBatch;

    DeviceStream(DeviceContext context, StreamHandle handle, boolean isDefault, int priority, int index) {
        this.context = context;
        this.isDefault = isDefault;
        this.priority = priority;
        this.index = index;
        this.handle = new HoldingStream(handle, context.handle, context.options().hostWaits(), toString());
        this.queue = context.engine.newQueue();
        this.tracer = context.tracer;
        int batch = context.options().markerBatch();
        this.markerBatch = batch > 1 ? batch : Math.max(1, Integer.getInteger("sluice.markers.batch", 1));
    }

    public DeviceContext context() {
        return context;
    }

    /** Whether this is the context's default stream (which closes with the context). */
    public boolean isDefault() {
        return isDefault;
    }

    public int priority() {
        return priority;
    }

    // ---------------------------------------------------------------- the enqueue protocol

    /** Locks the stream and checks that it, its context and its device are usable. */
    private void begin() {
        lockForEnqueue();
        try {
            if (closed) {
                throw new ClosedResourceException(toString());
            }
            context.checkUsable();
            if (tracer != null && !capturing) {
                traceStart = tracer.record(handle, traceStart);
            }
        } catch (RuntimeException e) {
            lock.unlock();
            throw e;
        }
    }

    /**
     * Takes the stream's lock; with marker batches, spinning for up to {@link #LOCK_SPIN_NANOS} before parking: the
     * completion thread then holds it for one marker record (about a µs on a GPU), and an enqueue on a Reactor thread
     * must not park for that. Without batches the completion thread never takes it, so there is nothing to spin for;
     * two user threads enqueuing on one stream park for each other as before (after the spin, with batches).
     */
    private void lockForEnqueue() {
        if (lock.tryLock()) {
            return;
        }
        if (markerBatch == 1) {
            lock.lock();
            return;
        }
        long until = System.nanoTime() + LOCK_SPIN_NANOS;
        do {
            Thread.onSpinWait();
            if (lock.tryLock()) {
                return;
            }
        } while (System.nanoTime() - until < 0);
        lock.lock();
    }

    /** How long {@link #lockForEnqueue} spins: 20 µs, many times a marker record. */
    private static final long LOCK_SPIN_NANOS = 20_000;

    /**
     * Records the completion marker of the operation just enqueued and returns its future. Under the lock.
     *
     * @param kind what the operation was, for tracing: a {@link TraceSpan} kind, or the {@link DeviceFunction}
     *             launched; null for markers that end no operation of their own
     */
    private <T> DeviceFuture<T> mark(@Nullable T value, @Nullable Object kind) {
        if (capturing) {
            return DeviceFuture.failed(this, new IllegalStateException(
                    "operation was captured into a graph: it runs, and completes, when the graph is launched"));
        }
        if (tracer != null) {
            return markTraced(tracer, value, kind);
        }
        DeviceFuture<T> f;
        if (markerBatch > 1) {
            // Nothing pending: the caller may be about to wait for this one, so it gets its marker now (the first operation
            // after idle costs a record, and a caller that waits for each result waits no longer than without batches).
            boolean idle = queue.isEmpty();
            Batch b = openBatch;
            if (b == null) {
                b = new Batch(this, markerBatch);
                openBatch = b;
            }
            f = new DeviceFuture<>(this, ++sequence, null, value, b);
            b.futures.add(f);
            int size = b.futures.size();
            b.size = size;
            if (idle || size >= markerBatch) {
                sealLocked();
            }
        } else {
            f = new DeviceFuture<>(this, ++sequence, handle.recordMarker(), value);
        }
        last = f;
        context.engine.track(queue, f);
        return f;
    }

    /**
     * Records the open batch's marker and gives it to the batch's futures; the last one releases it. Under the lock.
     * A marker the backend refuses fails the batch's futures (they complete exceptionally on the completion thread).
     */
    private void sealLocked() {
        Batch b = openBatch;
        if (b == null) {
            return;
        }
        openBatch = null;
        Marker m;
        RuntimeException failure = null;
        try {
            m = handle.recordMarker();
        } catch (RuntimeException e) {
            m = Marker.DONE;
            failure = e;
        }
        List<DeviceFuture<?>> fs = b.futures;
        for (int i = 0; i < fs.size(); i++) {
            DeviceFuture<?> f = fs.get(i);
            if (failure != null) {
                f.presetFailure(failure);
            }
            f.sealWith(m, i == fs.size() - 1);
        }
        fs.clear(); // each future keeps its batch; the batch need not keep the futures
    }

    /**
     * The completion thread's turn at an unsealed batch at the head of this stream's queue: seals it once no operation
     * has joined it for {@code sluice.markers.batchIdleNanos} and the stream's lock is free (an enqueuing thread holding it seals
     * batches itself when they are full). Never blocks.
     */
    void sealIfIdle(Batch b) {
        int size = b.size;
        long now = System.nanoTime();
        if (size != b.seenSize) {
            b.seenSize = size;
            b.seenAt = now;
            if (batchIdleNanos > 0) {
                return;
            }
        }
        if (now - b.seenAt < batchIdleNanos || !lock.tryLock()) {
            return;
        }
        try {
            if (openBatch == b) {
                sealLocked();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Seals the batch of {@code future} if it is still open, so that another stream can wait for its marker. No lock held. */
    static void seal(DeviceFuture<?> future) {
        Batch b = future.batch;
        if (b != null && future.marker() == null) {
            DeviceStream s = b.stream;
            s.lock.lock();
            try {
                if (s.openBatch == b) {
                    s.sealLocked();
                }
            } finally {
                s.lock.unlock();
            }
        }
    }

    /** {@link #mark} with tracing on: the end point goes before the marker, so the marker's completion implies it. */
    private <T> DeviceFuture<T> markTraced(Tracer t, @Nullable T value, @Nullable Object kind) {
        Tracer.Point start = traceStart;
        Tracer.Point end = kind != null && start != null ? t.record(handle, null) : null;
        Marker m = handle.recordMarker();
        DeviceFuture<T> f = new DeviceFuture<>(this, ++sequence, m, value);
        last = f;
        context.engine.track(queue, f);
        if (end != null) {
            traceStart = null;
            t.add(this, kind, label, start, end, f);
        }
        return f;
    }

    private void end() {
        lock.unlock();
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

    private void checkBuffer(String argument, HostBuffer buffer) {
        Checks.notNull(argument, buffer);
        if (buffer.isClosed()) {
            throw new ClosedResourceException(argument + " " + buffer);
        }
        if (buffer.context() != context) {
            throw new InvalidArgumentException(argument, buffer + " belongs to another context than " + this);
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
        lock.lock();
        try {
            LabelScope scope = new LabelScope(this, this.label);
            this.label = label;
            return scope;
        } finally {
            lock.unlock();
        }
    }

    /** The label in effect for operations enqueued now, or null. */
    public @Nullable String currentLabel() {
        lock.lock();
        try {
            return label;
        } finally {
            lock.unlock();
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
            stream.lock.lock();
            try {
                if (!closed) {
                    closed = true;
                    stream.label = previous;
                }
            } finally {
                stream.lock.unlock();
            }
        }
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
            DeviceBuffer buffer = new DeviceBuffer(allocation, type, 0, count, true);
            allocation.ready = mark(buffer, TraceSpan.ALLOC);
            context.track(allocation);
            return buffer;
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
        List<DeviceFuture<?>> others = allocation.uses.pendingUses(this);
        for (DeviceFuture<?> use : others) {
            seal(use);
        }
        begin();
        try {
            for (DeviceFuture<?> use : others) {
                waitMarkerLocked(use);
            }
            handle.free(allocation.memory);
            context.untrack(allocation);
            return mark(null, TraceSpan.FREE);
        } finally {
            end();
        }
    }

    // ---------------------------------------------------------------- copies

    /** Copies all of {@code source} to {@code destination}; both must have the same byte size. */
    public DeviceFuture<Void> enqueueCopy(HostBuffer source, DeviceBuffer destination) {
        checkBuffer("source", source);
        checkBuffer("destination", destination);
        Checks.sameSize("destination", source.byteSize(), destination.byteSize());
        return hostToDevice(source.segment(), source, destination);
    }

    /** Copies all of {@code source} to {@code destination}; both must have the same byte size. */
    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, HostBuffer destination) {
        checkBuffer("source", source);
        checkBuffer("destination", destination);
        Checks.sameSize("destination", source.byteSize(), destination.byteSize());
        return deviceToHost(source, destination.segment(), destination);
    }

    /**
     * Copies all of {@code source} to {@code destination} (same byte size). If the two belong to different
     * contexts it is a peer copy; this stream must belong to one of them, and the other context must not
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
        Checks.sameSize("destination", source.byteSize(), destination.byteSize());
        return deviceToDevice(source, destination, source.byteSize());
    }

    /** Copies {@code count} elements from element {@code sourceOffset} of {@code source} to element {@code destinationOffset} of {@code destination}. */
    public DeviceFuture<Void> enqueueCopy(HostBuffer source, long sourceOffset, DeviceBuffer destination, long destinationOffset,
            long count) {
        checkBuffer("source", source);
        checkBuffer("destination", destination);
        Checks.sameType("destination", source.dtype(), destination.dtype());
        Checks.range("source", sourceOffset, count, source.count());
        Checks.range("destination", destinationOffset, count, destination.count());
        return enqueueCopy(source.slice(sourceOffset, count), destination.slice(destinationOffset, count));
    }

    /** Copies {@code count} elements between element ranges of the two buffers. */
    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, long sourceOffset, HostBuffer destination, long destinationOffset,
            long count) {
        checkBuffer("source", source);
        checkBuffer("destination", destination);
        Checks.sameType("destination", source.dtype(), destination.dtype());
        Checks.range("source", sourceOffset, count, source.count());
        Checks.range("destination", destinationOffset, count, destination.count());
        return enqueueCopy(source.slice(sourceOffset, count), destination.slice(destinationOffset, count));
    }

    /** Copies {@code count} elements between element ranges of the two device buffers (any contexts, see above). */
    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, long sourceOffset, DeviceBuffer destination, long destinationOffset,
            long count) {
        Checks.notNull("source", source);
        Checks.notNull("destination", destination);
        Checks.sameType("destination", source.dtype(), destination.dtype());
        Checks.range("source", sourceOffset, count, source.count());
        Checks.range("destination", destinationOffset, count, destination.count());
        return enqueueCopy(source.slice(sourceOffset, count), destination.slice(destinationOffset, count));
    }

    /** Copies the bytes of {@code source} (pageable or heap memory) to {@code destination}; sizes must match. */
    public DeviceFuture<Void> enqueueCopy(MemorySegment source, DeviceBuffer destination) {
        Checks.notNull("source", source);
        Checks.notConfined("source", source);
        checkBuffer("destination", destination);
        Checks.sameSize("destination", source.byteSize(), destination.byteSize());
        return hostToDevice(source, null, destination);
    }

    /** Copies {@code source} into the bytes of {@code destination}; sizes must match. */
    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, MemorySegment destination) {
        checkBuffer("source", source);
        Checks.notNull("destination", destination);
        if (destination.isReadOnly()) {
            throw new InvalidArgumentException("destination", "segment is read-only");
        }
        Checks.notConfined("destination", destination);
        Checks.sameSize("destination", source.byteSize(), destination.byteSize());
        return deviceToHost(source, destination, null);
    }

    /** Copies the remaining bytes of {@code source} (position to limit; the position is not moved). */
    public DeviceFuture<Void> enqueueCopy(ByteBuffer source, DeviceBuffer destination) {
        Checks.notNull("source", source);
        return enqueueCopy(MemorySegment.ofBuffer(source), destination);
    }

    /** Copies into the remaining bytes of {@code destination} (position to limit; the position is not moved). */
    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, ByteBuffer destination) {
        Checks.notNull("destination", destination);
        if (destination.isReadOnly()) {
            throw new InvalidArgumentException("destination", "buffer is read-only");
        }
        return enqueueCopy(source, MemorySegment.ofBuffer(destination));
    }

    /** Copies a {@code float[]} to an F32 buffer of the same length. */
    public DeviceFuture<Void> enqueueCopy(float[] source, DeviceBuffer destination) {
        return arrayToDevice(MemorySegment.ofArray(Checks.notNull("source", source)), destination, DType.F32);
    }

    /** Copies an F32 buffer to a {@code float[]} of the same length. */
    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, float[] destination) {
        return deviceToArray(source, MemorySegment.ofArray(Checks.notNull("destination", destination)), DType.F32);
    }

    public DeviceFuture<Void> enqueueCopy(double[] source, DeviceBuffer destination) {
        return arrayToDevice(MemorySegment.ofArray(Checks.notNull("source", source)), destination, DType.F64);
    }

    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, double[] destination) {
        return deviceToArray(source, MemorySegment.ofArray(Checks.notNull("destination", destination)), DType.F64);
    }

    /** Copies an {@code int[]} to an I32 or U32 buffer of the same length. */
    public DeviceFuture<Void> enqueueCopy(int[] source, DeviceBuffer destination) {
        return arrayToDevice(MemorySegment.ofArray(Checks.notNull("source", source)), destination, DType.I32, DType.U32);
    }

    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, int[] destination) {
        return deviceToArray(source, MemorySegment.ofArray(Checks.notNull("destination", destination)), DType.I32, DType.U32);
    }

    /** Copies a {@code long[]} to an I64 or U64 buffer of the same length. */
    public DeviceFuture<Void> enqueueCopy(long[] source, DeviceBuffer destination) {
        return arrayToDevice(MemorySegment.ofArray(Checks.notNull("source", source)), destination, DType.I64, DType.U64);
    }

    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, long[] destination) {
        return deviceToArray(source, MemorySegment.ofArray(Checks.notNull("destination", destination)), DType.I64, DType.U64);
    }

    /** Copies a {@code short[]} to an I16, U16, F16 or BF16 buffer (raw bits) of the same length. */
    public DeviceFuture<Void> enqueueCopy(short[] source, DeviceBuffer destination) {
        return arrayToDevice(MemorySegment.ofArray(Checks.notNull("source", source)), destination,
                DType.I16, DType.U16, DType.F16, DType.BF16);
    }

    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, short[] destination) {
        return deviceToArray(source, MemorySegment.ofArray(Checks.notNull("destination", destination)),
                DType.I16, DType.U16, DType.F16, DType.BF16);
    }

    /** Copies a {@code byte[]} to an I8, U8 or BOOL buffer of the same length. */
    public DeviceFuture<Void> enqueueCopy(byte[] source, DeviceBuffer destination) {
        return arrayToDevice(MemorySegment.ofArray(Checks.notNull("source", source)), destination, DType.I8, DType.U8, DType.BOOL);
    }

    public DeviceFuture<Void> enqueueCopy(DeviceBuffer source, byte[] destination) {
        return deviceToArray(source, MemorySegment.ofArray(Checks.notNull("destination", destination)),
                DType.I8, DType.U8, DType.BOOL);
    }

    private DeviceFuture<Void> arrayToDevice(MemorySegment source, DeviceBuffer destination, DType... types) {
        checkBuffer("destination", destination);
        checkArrayType("destination", destination, types);
        Checks.sameSize("destination", source.byteSize(), destination.byteSize());
        return hostToDevice(source, null, destination);
    }

    private DeviceFuture<Void> deviceToArray(DeviceBuffer source, MemorySegment destination, DType... types) {
        checkBuffer("source", source);
        checkArrayType("source", source, types);
        Checks.sameSize("destination", source.byteSize(), destination.byteSize());
        return deviceToHost(source, destination, null);
    }

    private static void checkArrayType(String argument, DeviceBuffer buffer, DType... types) {
        for (DType t : types) {
            if (t == buffer.dtype()) {
                return;
            }
        }
        throw new InvalidArgumentException(argument, "element type " + buffer.dtype() + " of " + buffer
                + " does not match the array's element type (one of " + java.util.Arrays.toString(types) + ")");
    }

    private void checkPeer(String argument, DeviceBuffer buffer) {
        if (buffer.isClosed()) {
            throw new ClosedResourceException(argument + " " + buffer);
        }
        buffer.context().checkUsable();
        if (buffer.context().api() != context.api()) {
            throw new InvalidArgumentException(argument, buffer + " belongs to a " + buffer.context().api().id()
                    + " context; peer copies need two contexts of one backend (copy through host memory instead)");
        }
    }

    private DeviceFuture<Void> hostToDevice(MemorySegment source, @Nullable HostBuffer sourceBuffer, DeviceBuffer destination) {
        begin();
        DeviceFuture<Void> f;
        try {
            handle.copyHostToDevice(source, destination.memory(), destination.byteOffset(), destination.byteSize());
            f = mark(null, TraceSpan.UPLOAD);
            destination.allocation.uses.noteUse(this, f);
            if (sourceBuffer != null) {
                sourceBuffer.allocation.uses.noteUse(this, f);
            }
        } finally {
            end();
        }
        if (sourceBuffer == null) {
            keepReachable(f, source);
        }
        return f;
    }

    private DeviceFuture<Void> deviceToHost(DeviceBuffer source, MemorySegment destination, @Nullable HostBuffer destinationBuffer) {
        begin();
        DeviceFuture<Void> f;
        try {
            handle.copyDeviceToHost(source.memory(), source.byteOffset(), destination, source.byteSize());
            f = mark(null, TraceSpan.DOWNLOAD);
            source.allocation.uses.noteUse(this, f);
            if (destinationBuffer != null) {
                destinationBuffer.allocation.uses.noteUse(this, f);
            }
        } finally {
            end();
        }
        if (destinationBuffer == null) {
            keepReachable(f, destination);
        }
        return f;
    }

    private DeviceFuture<Void> deviceToDevice(DeviceBuffer source, DeviceBuffer destination, long bytes) {
        begin();
        try {
            if (source.context() == destination.context()) {
                handle.copyDeviceToDevice(source.memory(), source.byteOffset(), destination.memory(), destination.byteOffset(), bytes);
            } else {
                handle.copyPeer(source.context().handle, source.memory(), source.byteOffset(),
                        destination.context().handle, destination.memory(), destination.byteOffset(), bytes);
            }
            DeviceFuture<Void> f = mark(null, source.context() == destination.context() ? TraceSpan.DEVICE_TO_DEVICE : TraceSpan.PEER);
            source.allocation.uses.noteUse(this, f);
            destination.allocation.uses.noteUse(this, f);
            return f;
        } finally {
            end();
        }
    }

    /** Java arrays and buffers must outlive the copy that reads or writes them. */
    private static void keepReachable(DeviceFuture<Void> f, MemorySegment segment) {
        if (!f.isDone()) {
            f.whenComplete((v, e) -> Reference.reachabilityFence(segment));
        }
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
            handle.fill(destination.memory(), destination.byteOffset(), destination.count(), t.byteSize(), bits);
            DeviceFuture<Void> f = mark(null, TraceSpan.MEMSET);
            destination.allocation.uses.noteUse(this, f);
            return f;
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
            handle.fill(destination.memory(), destination.byteOffset(), destination.byteSize(), 1, byteValue & 0xFF);
            DeviceFuture<Void> f = mark(null, TraceSpan.MEMSET);
            destination.allocation.uses.noteUse(this, f);
            return f;
        } finally {
            end();
        }
    }

    // ---------------------------------------------------------------- kernels

    /**
     * Launches {@code function} with {@code config} and {@code arguments}, one per declared parameter: a
     * {@link DeviceBuffer} of the declared element type for a pointer, a {@link Number} (or {@link Boolean})
     * that fits the declared type for a scalar.
     *
     * @throws InvalidArgumentException for a count or type mismatch (naming the parameter), or for dims,
     *                                  cluster dims or shared memory over the device's limits
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
        begin();
        try {
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
            DeviceFuture<Void> f = mark(null, function);
            for (int i = 0; i < arguments.length; i++) {
                if (arguments[i] instanceof DeviceBuffer b) {
                    b.allocation.uses.noteUse(this, f);
                }
            }
            return f;
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

    private static String argumentName(KernelParam p, int index) {
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
            return mark(null, TraceSpan.RECORD);
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
            sealLocked(); // this wait may hold the stream (on a held record): earlier work first gets its marker
            handle.waitEvent(event.handle);
            return mark(null, TraceSpan.WAIT);
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
        if (origin != null && origin.context.api() != context.api()) {
            return waitForStage(future);
        }
        if (origin != this) {
            seal(future); // its batch's marker must exist before a device-side wait on it; before taking this lock
        }
        begin();
        try {
            waitMarkerLocked(future);
            return mark(null, TraceSpan.WAIT);
        } finally {
            end();
        }
    }

    /** Device-side wait on the marker of {@code future} unless it is known to be finished. Under the lock. */
    private void waitMarkerLocked(DeviceFuture<?> future) {
        if (future.stream() == this) {
            return; // already ordered by this stream
        }
        if (future.isDone() && !future.isCancelled()) {
            return; // finished: the engine may already have recycled its marker
        }
        if (future.isUnsealed()) {
            throw new IllegalStateException("internal: " + future + " has no marker yet; its batch must be sealed first");
        }
        Marker m = future.marker();
        if (m == null) {
            return; // no device work
        }
        sealLocked(); // this wait may hold the stream (on another stream's held work): earlier work first gets its marker
        handle.waitMarker(m);
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
            refuseDuringCapture("waitFor(CompletionStage)");
            sealLocked(); // earlier work must not wait for the host behind this gate to get its marker
            gate = handle.enqueueHostGate();
            f = mark(null, TraceSpan.WAIT);
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
     */
    public DeviceFuture<Void> enqueueHostFunction(Runnable function) {
        Checks.notNull("function", function);
        DeviceFuture<Void> before;
        HostGate gate;
        DeviceFuture<Void> after;
        begin();
        try {
            refuseDuringCapture("enqueueHostFunction");
            before = mark(null, null);
            sealLocked(); // earlier work must not wait for the host behind this gate to get its marker
            gate = handle.enqueueHostGate();
            after = mark(null, TraceSpan.HOST);
        } finally {
            end();
        }
        before.whenCompleteAsync((v, e) -> {
            if (e == null) {
                try {
                    function.run();
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

    private void refuseDuringCapture(String what) {
        if (capturing) {
            throw new IllegalStateException(what + " cannot be captured into a graph: it needs the host while the stream runs");
        }
    }

    // ---------------------------------------------------------------- graphs

    /**
     * Captures the work {@code body} enqueues on this stream into a graph instead of running it, and returns
     * the graph, to launch many times with {@link DeviceGraph#enqueueLaunch(DeviceStream)}. During capture
     * the enqueue methods return futures already failed with {@link IllegalStateException} (the work has not
     * run), and host gates ({@code waitFor(CompletionStage)}, host functions) are refused. Work enqueued by
     * other threads on this stream during the capture is captured too.
     *
     * @throws UnsupportedOnBackendException if the backend cannot capture
     */
    public DeviceGraph capture(Consumer<DeviceStream> body) {
        Checks.notNull("body", body);
        begin();
        try {
            if (capturing) {
                throw new IllegalStateException(this + " is already capturing");
            }
            sealLocked(); // a marker recorded during capture would be captured into the graph
            handle.beginCapture();
            capturing = true;
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
        lock.lock();
        try {
            capturing = false;
            graph = handle.endCapture();
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            graph.destroy();
            throw failure;
        }
        return new DeviceGraph(context, graph);
    }

    /** Launches {@code graph} here; used by {@link DeviceGraph#enqueueLaunch}. */
    DeviceFuture<Void> launchGraph(DeviceGraph graph) {
        begin();
        try {
            handle.launchGraph(graph.handle);
            return mark(null, TraceSpan.GRAPH);
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
        lock.lock();
        try {
            if (closed) {
                throw new ClosedResourceException(toString());
            }
            context.checkUsable();
            return handle.device.nativeHandle();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- blocking

    /**
     * Blocks until everything enqueued on this stream so far has finished and its futures have completed.
     *
     * @throws DeviceException if the device faulted
     * @throws IllegalStateException if called on the completion thread (it would wait for itself)
     */
    public void synchronize() {
        context.refuseOnCompletionThread("synchronize");
        DeviceFuture<?> upTo;
        lock.lock();
        try {
            if (closed) {
                throw new ClosedResourceException(toString());
            }
            upTo = last;
        } finally {
            lock.unlock();
        }
        context.checkUsable();
        handle.synchronize();
        if (upTo != null) {
            awaitQuietly(upTo);
        }
        context.checkUsable();
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

    public boolean isClosed() {
        return closed;
    }

    /**
     * Waits for the stream's work, then destroys it. The default stream closes only with its context; closing
     * it is a no-op. Idempotent.
     */
    @Override
    public void close() {
        if (isDefault || closed) {
            return;
        }
        closeInternal();
    }

    void closeInternal() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            lock.unlock();
        }
        try {
            if (context.fault() == null) {
                handle.synchronize();
            }
        } finally {
            context.engine.removeQueue(queue);
            handle.destroy();
            context.forget(this);
        }
    }

    @Override
    public String toString() {
        return "DeviceStream[" + context.api().id() + ":" + context.id() + (isDefault ? " default" : " #" + index) + "]";
    }
}
