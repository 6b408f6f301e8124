package dev.sluice;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Pinned host buffers of one {@link DeviceContext}, reused instead of freed: pinning memory costs milliseconds per
 * buffer on a GPU ({@code cuMemHostAlloc}), reusing it nothing. The staging buffers of the reactive pipeline's and the
 * Flink function's lanes and the memory of the Arrow allocator factory come from pools of this class; so may a user's.
 *
 * <pre>{@code
 * try (HostBufferPool pool = HostBufferPool.of(ctx, 64L << 20)) {
 *     HostBuffer in = pool.take(DType.F32, n);      // newly pinned, or reused once its last copies finished
 *     in.segment().copyFrom(MemorySegment.ofArray(batch));
 *     stream.enqueueCopy(in, deviceBuffer);
 *     pool.give(in);                                // reusable once that copy has finished, not before
 * }
 * }</pre>
 *
 * <p><b>Size policy.</b> A request of {@code count} elements is served by a buffer of its size class
 * ({@link #sizeClass}): at least a page (4 KiB), else the byte size rounded up to a multiple of an eighth of its highest
 * power of two (1 MiB, 1.125 MiB, 1.25 MiB ... 2 MiB), so at most 12.5% more than asked, and requests a few percent
 * apart share a class. {@link #take} hands out a view of exactly {@code count} elements of it. The pool keeps at most
 * {@link #limit()} bytes of buffers given back (reusable or still waiting for their copies); to make room it frees the
 * oldest reusable buffers first, of any class, and a buffer that does not fit even so is freed instead of kept. Buffers
 * taken and not given back are the taker's and do not count. A pool of limit 0 keeps nothing and pins exact sizes.
 *
 * <ul>
 * <li><b>Ordering:</b> a buffer given back becomes reusable once every copy enqueued on its memory before
 * {@link #give} has finished on the device ({@link HostBuffer#whenIdle()}), on any stream of any context; only then may
 * {@link #take} hand it out again, so no copy still in flight reads or writes memory that its next taker fills. Enqueue
 * nothing on a buffer after giving it back. Of a class, {@link #take} hands out the buffer given back last (most likely
 * still in the caches).
 * <li><b>Thread-safety:</b> every method is safe from any thread, short, and never waits for the device: buffers are
 * pinned and freed outside the pool's monitor, and a freed buffer's memory goes once its copies have finished
 * ({@link HostBuffer#close()}). A buffer becomes reusable on the thread that completes its {@code whenIdle()} stage (the
 * giver's, or a completion thread); that step is a few field writes.
 * <li><b>Ownership:</b> a buffer {@link #take} returns is the taker's until {@link #give}: a view whose
 * {@code close()} does nothing (the pool owns the memory). A buffer taken and never given back is freed by the
 * context's close, or reported by the leak detector once the pool and the buffer are unreachable.
 * <li><b>Close:</b> {@link #close()} frees the reusable buffers, and each one still waiting for its copies once they
 * have finished; afterwards {@link #take} still pins new memory (reusing none) and {@link #give} frees what it is given,
 * so components that outlive the pool keep working. Idempotent and thread-safe. Closing the context frees every buffer
 * of the pool, taken or not.
 * </ul>
 */
public final class HostBufferPool implements AutoCloseable {

    /** The smallest size class: the unit in which the operating system locks memory, so smaller ones save nothing. */
    public static final long PAGE = 4096;

    /** A limit for pools that are not told one: 256 MiB, sixteen batches of 16 MiB, a few pipelines' worth in flight. */
    public static final long DEFAULT_LIMIT_BYTES = 256L << 20;

    private final DeviceContext context;
    private final long limit;
    /** Buffers taken, by the view handed out, to the buffer that owns the memory. */
    private final Map<HostBuffer, HostBuffer> taken = new IdentityHashMap<>();
    /** Reusable buffers per size class (their byte size), oldest first. */
    private final Map<Long, ArrayDeque<HostBuffer>> reusable = new HashMap<>();
    /** Every reusable buffer, oldest first: the first of each class is the first of its deque in {@link #reusable}. */
    private final LinkedHashSet<HostBuffer> byAge = new LinkedHashSet<>();
    /** Bytes of reusable and waiting buffers. */
    private long heldBytes;
    private long reusableBytes;
    private long allocations;
    private long reuses;
    private boolean closed;

    private HostBufferPool(DeviceContext context, long limit) {
        this.context = context;
        this.limit = limit;
    }

    /**
     * A pool of {@code context}'s pinned memory keeping at most {@code limitBytes} of buffers given back.
     *
     * @throws InvalidArgumentException naming {@code context} if it is null or closed, {@code limitBytes} if negative
     */
    public static HostBufferPool of(DeviceContext context, long limitBytes) {
        Checks.notNull("context", context);
        if (context.isClosed()) {
            throw new InvalidArgumentException("context", context + " is closed");
        }
        if (limitBytes < 0) {
            throw new InvalidArgumentException("limitBytes", "value " + limitBytes + " is negative; 0 keeps nothing");
        }
        return new HostBufferPool(context, limitBytes);
    }

    /**
     * The size class of a request of {@code bytes}: the byte size of the buffer that serves it (see the class
     * description). Powers of two are their own class.
     *
     * @throws InvalidArgumentException naming {@code bytes} if it is not positive
     */
    public static long sizeClass(long bytes) {
        if (bytes < 1) {
            throw new InvalidArgumentException("bytes", "value " + bytes + " must be at least 1");
        }
        if (bytes <= PAGE) {
            return PAGE;
        }
        if (bytes > 1L << 61) {
            return bytes; // no allocation of that size succeeds; do not overflow
        }
        long step = Math.max(PAGE, Long.highestOneBit(bytes) >>> 3);
        return (bytes + step - 1) & -step;
    }

    /** The context whose pinned memory the pool holds. */
    public DeviceContext context() {
        return context;
    }

    /** The most bytes of buffers given back that the pool keeps. */
    public long limit() {
        return limit;
    }

    /**
     * A buffer of exactly {@code count} elements of {@code type}, the taker's until {@link #give}: a reusable one of its
     * size class, holding what its last user left, else newly pinned, zero-filled memory. Where the context has no pinned
     * memory left, the pool frees its reusable buffers and tries once more.
     *
     * @throws InvalidArgumentException    naming {@code type} if null, {@code count} if not positive or its bytes
     *                                     overflow
     * @throws DeviceOutOfMemoryException  where no pinned memory is left even then
     * @throws ClosedResourceException     if the context is closed
     */
    public HostBuffer take(DType type, long count) {
        Checks.notNull("type", type);
        if (count < 1 || count > Long.MAX_VALUE / type.byteSize()) {
            throw new InvalidArgumentException("count", "value " + count + " must be 1 to "
                    + Long.MAX_VALUE / type.byteSize() + " elements of " + type);
        }
        long bytes = count * type.byteSize();
        long capacity = limit == 0 ? bytes : sizeClass(bytes);
        HostBuffer owner = reusableOf(capacity);
        if (owner == null) {
            owner = allocate(capacity);
        }
        HostBuffer view = owner.asType(type).slice(0, count);
        synchronized (this) {
            taken.put(view, owner);
        }
        return view;
    }

    /**
     * Gives back {@code buffer}, which {@link #take} returned: kept, to become reusable once every copy enqueued on it
     * has finished, if it fits the limit (after freeing the oldest reusable buffers if need be); else freed once those
     * copies have finished. The caller must not use it afterwards.
     *
     * @throws InvalidArgumentException naming {@code buffer} if null, not taken from this pool, or given back already
     */
    public void give(HostBuffer buffer) {
        Checks.notNull("buffer", buffer);
        HostBuffer owner;
        List<HostBuffer> evicted = List.of();
        boolean kept;
        synchronized (this) {
            owner = taken.remove(buffer);
            if (owner == null) {
                throw new InvalidArgumentException("buffer", buffer + " was not taken from this pool, or was given back"
                        + " already");
            }
            long bytes = owner.byteSize();
            kept = !closed && !owner.isClosed() && heldBytes - reusableBytes + bytes <= limit;
            if (kept) {
                evicted = evict(heldBytes + bytes - limit);
                heldBytes += bytes;
            }
        }
        evicted.forEach(HostBuffer::close);
        if (kept) {
            HostBuffer o = owner;
            owner.whenIdle().thenRun(() -> ready(o)); // at once, here, if no copy is pending
        } else {
            owner.close(); // freed once its copies have finished
        }
    }

    private @Nullable HostBuffer reusableOf(long capacity) {
        HostBuffer found = null;
        synchronized (this) {
            ArrayDeque<HostBuffer> deque = reusable.get(capacity);
            while (found == null && deque != null && !deque.isEmpty()) {
                HostBuffer b = deque.pollLast();
                byAge.remove(b);
                heldBytes -= capacity;
                reusableBytes -= capacity;
                if (!b.isClosed()) { // else its context closed and freed it: dropped
                    found = b;
                    reuses++;
                }
            }
        }
        return found;
    }

    private HostBuffer allocate(long bytes) {
        HostBuffer b;
        try {
            b = context.allocateHost(DType.U8, bytes);
        } catch (DeviceOutOfMemoryException e) {
            clear(); // buffers of other size classes may hold what is missing
            b = context.allocateHost(DType.U8, bytes);
        }
        synchronized (this) {
            allocations++;
        }
        return b;
    }

    /** Removes the oldest reusable buffers until at least {@code bytes} are removed (none if not positive). */
    private List<HostBuffer> evict(long bytes) {
        List<HostBuffer> out = new ArrayList<>();
        for (long freed = 0; freed < bytes; ) {
            HostBuffer oldest = byAge.removeFirst();
            long size = oldest.byteSize();
            reusable.get(size).pollFirst(); // the oldest of its class
            heldBytes -= size;
            reusableBytes -= size;
            freed += size;
            out.add(oldest);
        }
        return out;
    }

    /** {@code owner}'s copies have finished: reusable now, or freed if the pool closed meanwhile. */
    private void ready(HostBuffer owner) {
        long bytes = owner.byteSize();
        synchronized (this) {
            if (!closed && !owner.isClosed()) {
                reusable.computeIfAbsent(bytes, k -> new ArrayDeque<>()).addLast(owner);
                byAge.add(owner);
                reusableBytes += bytes;
                return;
            }
            heldBytes -= bytes;
        }
        owner.close();
    }

    /** Frees every reusable buffer now (those waiting for their copies stay); the pool stays open. */
    public void clear() {
        List<HostBuffer> out;
        synchronized (this) {
            out = new ArrayList<>(byAge);
            byAge.clear();
            reusable.clear();
            heldBytes -= reusableBytes;
            reusableBytes = 0;
        }
        out.forEach(HostBuffer::close);
    }

    /** Bytes of the buffers the pool keeps, reusable or waiting for their copies: at most {@link #limit()}. */
    public synchronized long heldBytes() {
        return heldBytes;
    }

    /** Bytes of the buffers {@link #take} may hand out now. */
    public synchronized long reusableBytes() {
        return reusableBytes;
    }

    /** How many buffers are taken and not given back. */
    public synchronized int takenBuffers() {
        return taken.size();
    }

    /** How many times {@link #take} pinned new memory: for a steady load it stops growing once the pool is warm. */
    public synchronized long allocations() {
        return allocations;
    }

    /** How many times {@link #take} served a request with a reusable buffer, pinning nothing. */
    public synchronized long reuses() {
        return reuses;
    }

    /**
     * Frees the reusable buffers, and each one waiting for its copies once they have finished; afterwards buffers given
     * back are freed and {@link #take} pins new memory. Buffers taken stay the takers'. Idempotent, thread-safe, never
     * waits.
     */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        clear();
    }

    /** Whether {@link #close()} was called. */
    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "HostBufferPool[" + context + ", " + heldBytes() + " of " + limit + " bytes held, " + takenBuffers()
                + " taken]";
    }
}
