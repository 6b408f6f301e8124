package dev.sluice;

import dev.sluice.engine.HostAllocation;
import dev.sluice.engine.LeakDetector;
import dev.sluice.engine.PublicMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.StringJoiner;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Page-locked (pinned) host memory holding {@link #count()} elements of a {@link DType}: the fast path
 * for copies between host and device, and directly readable and writable by host code through
 * {@link #segment()} and the typed accessors. Made by {@link DeviceContext#allocateHost},
 * {@link DeviceContext#registerHost} (existing memory pinned in place) or {@link DeviceBuffer#mapToHost()}.
 *
 * <p>A host buffer serves the streams of its context and of every context that
 * {@linkplain DeviceContext#sharesPinnedMemoryWith shares pinned memory} with it: one set of pinned buffers feeds
 * several GPUs. A host buffer is the {@link HostData} of copies itself: {@code stream.enqueueCopy(hostBuffer, deviceBuffer)}
 * copies all of it, {@code stream.enqueueCopy(hostBuffer.slice(offset, count), deviceBuffer)} a range. Host code must
 * not touch the range of a copy until the copy's future has completed.
 *
 * <p><b>Resources:</b> {@link #close()} frees (or unregisters) the memory once every copy already
 * enqueued on it has finished; a buffer from {@code mapToHost} first copies its contents back to the
 * device buffer and waits for that. Slices own nothing; their {@code close()} does nothing. Closing the context frees
 * the memory it still owns.
 *
 * <p>Memory whose buffer and slices all became unreachable while open is freed by the leak detector (property
 * {@code sluice.leakDetection}) after every copy enqueued on it, and reported as a leak; a buffer from
 * {@code mapToHost} is then not copied back (at a moment the garbage collector picks, the copy could overwrite newer
 * device data). Memory whose {@link #segment()} was ever taken is reported but left allocated until its context
 * closes: the segment may outlive the buffer, and nothing can tell whether it is still used (registered memory, which
 * the caller owns, is unregistered all the same).
 */
@SuppressWarnings("exports") // the engine names it in refusals as its internal PublicMemory; users see this class
public final class HostBuffer implements HostData, AutoCloseable, PublicMemory {

    private final DeviceContext context;
    /** The memory, shared with every view of it. */
    final HostAllocation allocation;
    private final DType type;
    private final MemorySegment segment;
    private final long count;
    private final boolean owner;
    /**
     * Shared by the buffer that owns the memory and its slices, and held by nothing inside Sluice: once it is
     * unreachable while the memory is still open, the {@link LeakDetector} frees the memory.
     */
    private final Object liveness;
    /** The owner's registration with the leak detector; cleaned by {@link #close()}. Null for slices. */
    private final Cleaner.@Nullable Cleanable cleanable;

    /** A buffer that owns newly allocated or registered memory, watched by the leak detector. */
    HostBuffer(DeviceContext context, HostAllocation allocation, DType type, long count) {
        this.context = context;
        this.allocation = allocation;
        this.type = type;
        this.segment = allocation.memory().segment();
        this.count = count;
        this.owner = true;
        this.liveness = new Object();
        this.cleanable = LeakDetector.watch(liveness, allocation.closedFlag(),
                () -> "HostBuffer[" + type + " x " + count + (allocation.memory().registered() ? ", registered" : "") + ", "
                        + context + "]",
                () -> releaseLeaked(context, allocation));
    }

    /** A view of {@code segment}, part of {@code allocation}'s memory, kept open while {@code liveness} is reachable. */
    private HostBuffer(DeviceContext context, HostAllocation allocation, DType type, MemorySegment segment, long count,
            Object liveness) {
        this.context = context;
        this.allocation = allocation;
        this.type = type;
        this.segment = segment;
        this.count = count;
        this.owner = false;
        this.liveness = liveness;
        this.cleanable = null;
    }

    /**
     * A view of all of {@code allocation}'s memory for Sluice's own copies (the copy back of a mapped buffer), which
     * keeps no user's buffer reachable.
     */
    static HostBuffer internalView(DeviceContext context, HostAllocation allocation, DType type, long count) {
        return new HostBuffer(context, allocation, type, allocation.memory().segment(), count, allocation);
    }

    /**
     * The leak detector's release: frees the memory after its copies, as {@link #close()} does, but without the copy back
     * of a mapped buffer, and not where the segment was handed out (null once freed, else why not).
     */
    private static @Nullable String releaseLeaked(DeviceContext context, HostAllocation allocation) {
        allocation.writeBack(null); // also lets go of the device buffer it would copy to
        if (allocation.segmentHandedOut() && !allocation.memory().registered()) {
            return "its segment() was handed out and may still be in use";
        }
        context.core.release(allocation);
        return null;
    }

    /**
     * The context that pinned this memory and owns it (closing that context frees it, once the copies enqueued on it
     * have finished). Its streams copy to and from it at full speed, and so do those of every context that
     * {@linkplain DeviceContext#sharesPinnedMemoryWith shares pinned memory} with it (on CUDA, HIP and the CPU
     * simulator, every context of the backend).
     */
    public DeviceContext context() {
        return context;
    }

    /** The element type, which decides the typed accessors that may be used. */
    public DType dtype() {
        return type;
    }

    /** Number of elements. */
    public long count() {
        return count;
    }

    /** Size in bytes: {@link #count()} times the element type's {@link DType#byteSize()}. */
    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    /** Whether the memory was registered in place rather than allocated by Sluice. */
    public boolean isRegistered() {
        return allocation.memory().registered();
    }

    /**
     * The memory itself. Valid until the buffer is closed; accessing it after that throws. Taking it makes the
     * leak detector leave the memory to the context's close if the buffer leaks (see the class comment).
     */
    public MemorySegment segment() {
        checkOpen();
        allocation.handOutSegment();
        return segment;
    }

    /** The memory, for a copy Sluice enqueues (and tracks): unlike {@link #segment()}, not handed out. */
    MemorySegment copySegment() {
        return segment;
    }

    /** A view of {@code count} elements from element {@code offset}, sharing this buffer's memory. */
    public HostBuffer slice(long offset, long count) {
        checkOpen();
        Checks.range("buffer", offset, count, this.count);
        long bytes = type.byteSize();
        return new HostBuffer(context, allocation, type, segment.asSlice(offset * bytes, count * bytes), count, liveness);
    }

    /**
     * A view of the same bytes as elements of {@code type}, sharing this buffer's memory and lifetime like a slice
     * (its {@code close()} does nothing): for memory that holds another type's elements than the one it was made with,
     * such as the byte buffers of an Arrow vector that hold {@code float}s. Its typed accessors, like copies, work at
     * any address, so a view of a byte slice at an odd offset reads and writes its elements as well.
     *
     * @throws InvalidArgumentException naming {@code type} if it is null or this buffer's byte size is not a whole
     *                                  number of its elements
     * @throws ClosedResourceException  once the buffer is closed
     */
    public HostBuffer asType(DType type) {
        Checks.notNull("type", type);
        checkOpen();
        long bytes = segment.byteSize();
        if (bytes % type.byteSize() != 0) {
            throw new InvalidArgumentException("type", bytes + " bytes of " + this.type + " x " + count
                    + " are not a whole number of " + type + " elements (" + type.byteSize() + " bytes each)");
        }
        return new HostBuffer(context, allocation, type, segment, bytes / type.byteSize(), liveness);
    }

    /**
     * A stage that completes once the memory has been freed, or for {@linkplain #isRegistered() registered} memory
     * unregistered: after {@link #close()} (of the buffer a slice or view belongs to) and every copy enqueued on it has
     * finished, or after the context's close. The owner of registered memory may free that memory then, and not before.
     * It completes on whichever thread frees the memory: the one that closed the buffer (when no copy was pending), a
     * completion thread (after the last copy), the thread closing the context, the leak detector's thread, or one that
     * releases memory a timed-out close kept for another context's work. Dependent stages must be short and must not
     * block; move other work to an executor ({@code thenRunAsync}).
     */
    public CompletionStage<Void> whenReleased() {
        return allocation.released().minimalCompletionStage();
    }

    /**
     * A stage that completes once every copy enqueued on this buffer's memory up to this call (through this buffer, a
     * slice or a view of it, on any stream of any context) has finished on the device, or was dropped by the close of
     * its context. A copy that the body of {@link RepeatedWork#enqueue} has recorded counts from the moment it is
     * recorded: the stage waits for the body to return and the copy to run (or, if the body throws, to be dropped). Then neither the device nor Sluice touches the memory any more, so that its owner may reuse it for
     * other data, as a pool of pinned buffers does, without closing it. It is the moment {@link #close()} waits for
     * before it frees the memory, without the free.
     *
     * <ul>
     * <li><b>Ordering:</b> copies enqueued after the call are not waited for; call again for those. Whether each copy
     * succeeded or failed does not matter: only that the device is done with the memory.
     * <li><b>Completion thread:</b> the calling thread, before this method returns, where no copy is pending;
     * otherwise the completion thread of the context whose stream finishes the last pending copy, or the thread closing
     * a context that drops one. Dependent stages must be short and must not block; move other work to an executor
     * ({@code thenRunAsync}).
     * <li><b>Cancellation:</b> the stage cannot be completed or cancelled by the caller (cancelling its
     * {@code toCompletableFuture()} copy changes nothing else); cancelling a copy's future does not make the memory
     * idle any sooner: the device's progress decides.
     * <li><b>Resources:</b> the buffer stays open and its owner's: this method frees, closes and takes nothing. On a
     * closed buffer it completes as for an open one, by which time the memory may have been freed.
     * </ul>
     */
    public CompletionStage<Void> whenIdle() {
        return allocation.whenIdle().minimalCompletionStage();
    }

    /**
     * Element {@code index} of an F32 buffer. Like every accessor it reads host memory at once: do not call it on
     * the range of a copy whose future has not completed.
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public float getFloat(long index) {
        try {
            return segment.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, check(index, DType.F32));
        } finally {
            Reference.reachabilityFence(this); // not freed by the leak detector during the access
        }
    }

    /**
     * Sets element {@code index} of an F32 buffer.
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public void setFloat(long index, float value) {
        try {
            segment.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, check(index, DType.F32), value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Element {@code index} of an F64 buffer.
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public double getDouble(long index) {
        try {
            return segment.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, check(index, DType.F64));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Sets element {@code index} of an F64 buffer.
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public void setDouble(long index, double value) {
        try {
            segment.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, check(index, DType.F64), value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Element {@code index} of an I32 or U32 buffer (U32 values above 2^31-1 read as negative ints). */
    public int getInt(long index) {
        try {
            return segment.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, check(index, DType.I32, DType.U32));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Sets element {@code index} of an I32 or U32 buffer (for U32, pass the value's low 32 bits).
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public void setInt(long index, int value) {
        try {
            segment.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, check(index, DType.I32, DType.U32), value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Element {@code index} of an I64 or U64 buffer (U64 values above 2^63-1 read as negative longs).
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public long getLong(long index) {
        try {
            return segment.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, check(index, DType.I64, DType.U64));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Sets element {@code index} of an I64 or U64 buffer.
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public void setLong(long index, long value) {
        try {
            segment.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, check(index, DType.I64, DType.U64), value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Element {@code index} of a 16-bit buffer (I16, U16, or the raw bits of F16 and BF16). */
    public short getShort(long index) {
        try {
            return segment.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, check(index, DType.I16, DType.U16, DType.F16, DType.BF16));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Sets element {@code index} of a 16-bit buffer (I16, U16, or raw F16 and BF16 bits, for example from
     * {@link Float#floatToFloat16}).
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public void setShort(long index, short value) {
        try {
            segment.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, check(index, DType.I16, DType.U16, DType.F16, DType.BF16), value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Element {@code index} of an 8-bit buffer (I8, U8, BOOL). */
    public byte getByte(long index) {
        try {
            return segment.get(ValueLayout.JAVA_BYTE, check(index, DType.I8, DType.U8, DType.BOOL));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Sets element {@code index} of an 8-bit buffer (I8, U8, BOOL; a BOOL element must be 0 or 1).
     *
     * @throws InvalidArgumentException naming {@code index} for a buffer of another type or an index outside
     *                                  0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public void setByte(long index, byte value) {
        try {
            segment.set(ValueLayout.JAVA_BYTE, check(index, DType.I8, DType.U8, DType.BOOL), value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Element {@code index} as a double, whatever the element type (F16 and BF16 converted, unsigned types widened).
     *
     * @throws InvalidArgumentException naming {@code index} for an index outside 0..{@code count() - 1}
     * @throws ClosedResourceException  once the buffer is closed
     */
    public double getAsDouble(long index) {
        long off = checkIndex(index) * type.byteSize();
        try {
            return element(off);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private double element(long off) {
        return switch (type) {
            case BOOL, U8 -> Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, off));
            case I8 -> segment.get(ValueLayout.JAVA_BYTE, off);
            case I16 -> segment.get(ValueLayout.JAVA_SHORT_UNALIGNED, off);
            case U16 -> Short.toUnsignedInt(segment.get(ValueLayout.JAVA_SHORT_UNALIGNED, off));
            case F16 -> Float.float16ToFloat(segment.get(ValueLayout.JAVA_SHORT_UNALIGNED, off));
            case BF16 -> Float.intBitsToFloat(Short.toUnsignedInt(segment.get(ValueLayout.JAVA_SHORT_UNALIGNED, off)) << 16);
            case I32 -> segment.get(ValueLayout.JAVA_INT_UNALIGNED, off);
            case U32 -> Integer.toUnsignedLong(segment.get(ValueLayout.JAVA_INT_UNALIGNED, off));
            case F32 -> segment.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off);
            case I64 -> segment.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            case U64 -> unsignedToDouble(segment.get(ValueLayout.JAVA_LONG_UNALIGNED, off));
            case F64 -> segment.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, off);
        };
    }

    private static double unsignedToDouble(long v) {
        // Halve (keeping the low bit for rounding) so the value fits a signed long, then double it back.
        return v >= 0 ? v : ((v >>> 1) | (v & 1)) * 2.0;
    }

    private long check(long index, DType... accepted) {
        checkOpen();
        boolean ok = false;
        for (DType t : accepted) {
            ok |= t == type;
        }
        if (!ok) {
            throw new InvalidArgumentException("index", "accessor for " + Arrays.toString(accepted)
                    + " used on a " + type + " buffer");
        }
        return inRange(index);
    }

    /** {@code index}, checked against the elements; the buffer must be open. */
    private long checkIndex(long index) {
        checkOpen();
        return inRange(index);
    }

    private long inRange(long index) {
        if (index < 0 || index >= count) {
            throw new InvalidArgumentException("index", "value " + index + " is outside a buffer of " + count + " elements");
        }
        return index;
    }

    void checkOpen() {
        if (allocation.isClosed()) {
            throw new ClosedResourceException(toString());
        }
    }

    /** Whether the memory has been freed (this buffer's or, for a slice, its parent's). */
    public boolean isClosed() {
        return allocation.isClosed();
    }

    /**
     * Frees the memory once every copy already enqueued on it has finished. For a buffer from
     * {@link DeviceBuffer#mapToHost()}, first copies the contents back to the device buffer and blocks until
     * they are there. Idempotent and safe from any thread; a no-op on slices.
     *
     * @throws IllegalStateException for a buffer from {@code mapToHost()}, on a completion thread or in a host function
     *                               of its context, where the blocking copy back would wedge the context
     */
    @Override
    public void close() {
        if (!owner || allocation.isClosed()) {
            return;
        }
        if (allocation.hasWriteBack()) {
            context.core.refuseBlocking("closing a HostBuffer made by mapToHost()");
        }
        Runnable writeBack = allocation.takeWriteBack(); // one closer copies a mapped buffer back
        if (writeBack != null) {
            try {
                writeBack.run();
            } finally {
                release();
            }
        } else {
            release();
        }
    }

    private void release() {
        if (allocation.close()) {
            context.core.release(allocation);
            if (cleanable != null) {
                cleanable.clean(); // unregisters from the leak detector; its action sees the buffer closed
            }
        }
    }

    /** Mojo's format: {@code HostBuffer([0.0, 1.0, 2.0])}, at most 1000 elements. */
    @Override
    public String toString() {
        if (allocation.isClosed()) {
            return "HostBuffer[" + type + " x " + count + ", closed]";
        }
        StringJoiner j = new StringJoiner(", ", "HostBuffer([", "])");
        long shown = Math.min(count, 1000);
        for (long i = 0; i < shown; i++) {
            double d = getAsDouble(i);
            j.add(type.isFloatingPoint() ? (type == DType.F64 ? Double.toString(d) : Float.toString((float) d))
                    : Long.toString((long) d));
        }
        if (shown < count) {
            j.add("... " + (count - shown) + " more");
        }
        return j.toString();
    }
}
