package dev.sluice;

import dev.sluice.engine.Allocation;
import dev.sluice.engine.LeakDetector;
import dev.sluice.engine.PublicMemory;
import dev.sluice.engine.Region;
import dev.sluice.spi.DeviceMemory;
import java.lang.ref.Cleaner;
import org.jspecify.annotations.Nullable;

/**
 * Device memory holding {@link #count()} elements of a {@link DType}. Host code cannot read it directly:
 * copy it with a {@link DeviceStream}, or {@link #mapToHost()} it. A buffer may be a slice of a larger one
 * ({@link #slice}); slices share the memory and are valid while the buffer they came from is open.
 *
 * <p><b>Resources:</b> the buffer returned by an allocation owns its memory; {@link #close()} frees it in
 * stream order after every operation already enqueued on it, on any stream, has finished. Slices own
 * nothing and their {@code close()} does nothing. Thread-safe.
 *
 * <p><b>Ordering across streams:</b> unless its context has {@link ContextOptions#autoOrdering()} off, an operation
 * that uses a buffer waits, on the device, for the operations of other streams it would race with on the same bytes:
 * a read for the last write, a write for the last reads and write. Reads after reads never wait, and slices are
 * tracked by their byte range, so disjoint slices used by two streams do not wait for each other. A view made by
 * {@link #unordered()} opts out.
 */
@SuppressWarnings("exports") // the engine names it in refusals as its internal PublicMemory; users see this class
public final class DeviceBuffer implements AutoCloseable, PublicMemory {

    private final DeviceContext context;
    /** The memory this buffer views, as the engine claims and orders it. */
    private final Region region;
    private final DType type;
    private final long count;
    private final boolean owner;
    /**
     * Shared by the buffer that owns the memory and every view of it, and held by nothing inside Sluice: once it is
     * unreachable while the memory is still open, the {@link LeakDetector} frees the memory in stream order. For views
     * of a module variable, the {@link DeviceFunction} that owns it, kept loaded while a view is reachable.
     */
    private final Object liveness;
    /** The owner's registration with the leak detector; cleaned by {@link #close()}. Null for views. */
    private final Cleaner.@Nullable Cleanable cleanable;
    /** The allocation's future, shared with views: set once, right after the owner is made. */
    private @Nullable DeviceFuture<DeviceBuffer> ready;

    /** A buffer that owns newly allocated memory, watched by the leak detector; {@link #ready} is set next. */
    DeviceBuffer(DeviceContext context, Allocation allocation, DType type, long count) {
        this.context = context;
        this.region = new Region(allocation, 0, count * type.byteSize(), true, this);
        this.type = type;
        this.count = count;
        this.owner = true;
        this.liveness = new Object();
        this.cleanable = LeakDetector.watch(liveness, allocation.closedFlag(),
                () -> "DeviceBuffer[" + type + " x " + count + ", " + context + "]",
                () -> {
                    context.core.release(allocation);
                    return null;
                });
    }

    /**
     * A view of memory this buffer does not own and whose owner, {@code keeper} (a {@link DeviceFunction} for its module
     * variable), frees it: the view and its own views keep {@code keeper} reachable.
     */
    DeviceBuffer(DeviceContext context, Allocation allocation, DType type, long count, Object keeper) {
        this(context, allocation, type, 0, count, keeper, true, null);
    }

    /** A view (slice, reinterpretation) of {@code of}'s memory, ordered as {@code of} is. */
    private DeviceBuffer(Allocation allocation, DType type, long byteOffset, long count, DeviceBuffer of) {
        this(of.context, allocation, type, byteOffset, count, of.liveness, of.isOrdered(), of.ready);
    }

    private DeviceBuffer(DeviceContext context, Allocation allocation, DType type, long byteOffset, long count,
            Object liveness, boolean ordered, @Nullable DeviceFuture<DeviceBuffer> ready) {
        this.context = context;
        this.region = new Region(allocation, byteOffset, count * type.byteSize(), ordered, this);
        this.type = type;
        this.count = count;
        this.owner = false;
        this.liveness = liveness;
        this.cleanable = null;
        this.ready = ready;
    }

    /** Sets the allocation's future; once, by whoever made the buffer, before anyone else sees it. */
    DeviceFuture<DeviceBuffer> ready(DeviceFuture<DeviceBuffer> future) {
        this.ready = future;
        return future;
    }

    /** The memory this buffer views, for the engine. */
    Region region() {
        return region;
    }

    /** The allocation this buffer views (shared by every view of it). */
    Allocation allocation() {
        return region.allocation();
    }

    /** The context whose device holds this memory; a buffer is used only on that context's streams. */
    public DeviceContext context() {
        return context;
    }

    /** The element type, fixed for this buffer; {@link #reinterpret} gives a view with another. */
    public DType dtype() {
        return type;
    }

    /** Number of elements. */
    public long count() {
        return count;
    }

    /** Size in bytes: {@link #count()} times the element type's {@link DType#byteSize()}. */
    public long byteSize() {
        return count * type.byteSize();
    }

    /** Offset of this buffer's first byte in the allocation it belongs to (0 unless it is a slice). */
    public long byteOffset() {
        return region.byteOffset();
    }

    /**
     * The device address of the first element on backends that have one (CUDA, HIP), for passing to other
     * native libraries; 0 on the CPU backend.
     */
    public long address() {
        long base = region.memory().address();
        return base == 0 ? 0 : base + region.byteOffset();
    }

    /** Whether this buffer owns its memory (the one an allocation returned), rather than being a view of it. */
    boolean isOwner() {
        return owner;
    }

    DeviceMemory memory() {
        return region.memory();
    }

    /**
     * A view of {@code count} elements starting at element {@code offset} of this buffer, sharing its memory.
     *
     * @throws InvalidArgumentException if the range is not inside this buffer
     */
    public DeviceBuffer slice(long offset, long count) {
        checkOpen();
        Checks.range("buffer", offset, count, this.count);
        return new DeviceBuffer(allocation(), type, byteOffset() + offset * type.byteSize(), count, this);
    }

    /**
     * The same memory seen as elements of {@code newType}. Copies take it at any offset; a kernel launch refuses it as
     * an argument unless its {@link #byteOffset()} is a multiple of the new element size, as a device loads elements only
     * there.
     *
     * @throws InvalidArgumentException if the byte size is not a multiple of the new element size
     */
    public DeviceBuffer reinterpret(DType newType) {
        checkOpen();
        Checks.notNull("newType", newType);
        if (byteSize() % newType.byteSize() != 0) {
            throw new InvalidArgumentException("newType", byteSize() + " bytes are not a whole number of " + newType
                    + " elements of " + newType.byteSize() + " bytes");
        }
        return new DeviceBuffer(allocation(), newType, byteOffset(), byteSize() / newType.byteSize(), this);
    }

    /**
     * A view of this buffer's memory that opts out of automatic ordering across streams: operations through it neither
     * wait for other streams' operations on the memory nor make later operations wait for them, as if the context had
     * {@link ContextOptions#autoOrdering()} off; order them yourself with {@link DeviceStream#waitFor} (for a buffer
     * that a kernel on another stream keeps writing on purpose, say, or to save the bookkeeping on a hot path). Slices
     * and reinterpretations of the view are unordered too. Frees still wait for every use, through any view.
     *
     * @throws ClosedResourceException if the memory has been freed
     */
    public DeviceBuffer unordered() {
        checkOpen();
        return new DeviceBuffer(context, allocation(), type, byteOffset(), count, liveness, false, ready);
    }

    /** Whether operations through this buffer take part in automatic ordering (false for {@link #unordered()} views). */
    public boolean isOrdered() {
        return region.ordered();
    }

    /**
     * Completes with this buffer once its memory exists on the device. Synchronous allocations return an
     * already completed future; stream-ordered ones complete in their stream's order.
     */
    public DeviceFuture<DeviceBuffer> ready() {
        DeviceFuture<DeviceBuffer> r = ready;
        if (r == null) { // memory that needs no allocation (module variables)
            r = DeviceFuture.completed(this);
            ready = r;
        }
        return r;
    }

    /**
     * Copies the buffer to host memory and returns it as a {@link HostBuffer}; closing that host buffer
     * copies its contents back to this buffer and waits until they are there (Mojo's {@code map_to_host}).
     * Blocks the caller: it waits for work already enqueued on the context's default stream before reading.
     * Use it for tests and initialisation, not on hot paths.
     */
    public HostBuffer mapToHost() {
        checkOpen();
        return context().mapToHost(this);
    }

    /** Whether the memory has been freed (this buffer's or, for a slice, its parent's). */
    public boolean isClosed() {
        return allocation().isClosed();
    }

    void checkOpen() {
        if (allocation().isClosed()) {
            throw new ClosedResourceException(this.toString());
        }
        context.checkUsable();
    }

    /**
     * Frees the memory in stream order (on the stream it was allocated in, the default stream for
     * synchronous allocations), after every operation already enqueued on this buffer from any stream.
     * Idempotent; a no-op on slices. Returns at once.
     */
    @Override
    public void close() {
        if (owner && allocation().close()) {
            context.core.release(allocation());
            if (cleanable != null) {
                cleanable.clean(); // unregisters from the leak detector; its action sees the buffer closed
            }
        }
    }

    @Override
    public String toString() {
        return "DeviceBuffer[" + type + " x " + count + (owner ? "" : " at byte " + byteOffset()) + (isOrdered() ? "" : " unordered")
                + ", "
                + context.backendName() + ":" + context.id() + "]";
    }
}
