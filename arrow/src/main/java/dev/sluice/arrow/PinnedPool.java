package dev.sluice.arrow;

import dev.sluice.HostBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The pinned buffers of a {@link PinnedAllocationFactory} that Arrow has released, kept for the next allocation of their
 * size class instead of being freed: pinning memory costs milliseconds per buffer on a GPU ({@code cuMemHostAlloc}),
 * reusing it nothing.
 *
 * <p>A released buffer is <em>waiting</em> until {@link HostBuffer#whenIdle()} completes (every copy enqueued on it
 * has finished on the device), then <em>reusable</em>: only then may {@link #take} hand it out, so no copy still in
 * flight reads or writes memory that a new owner fills. Both count against the byte {@linkplain #limit() limit}; to
 * make room for a newly released buffer the oldest reusable ones, of any size class, are freed, and where that is not
 * enough the new one is freed instead. {@link #take} hands out the newest buffer of a class (the one most likely still
 * in the caches). All methods are short and thread-safe; buffers are freed outside the pool's monitor.
 */
final class PinnedPool {

    /** The smallest size class: the unit in which the operating system locks memory, so smaller ones save nothing. */
    static final long PAGE = 4096;

    private final long limit;
    /** Reusable buffers per size class (their byte size), oldest first. */
    private final Map<Long, ArrayDeque<HostBuffer>> reusable = new HashMap<>();
    /** Every reusable buffer, oldest first: the first of each class is the first of its deque in {@link #reusable}. */
    private final LinkedHashSet<HostBuffer> byAge = new LinkedHashSet<>();
    /** Bytes of reusable and waiting buffers. */
    private long heldBytes;
    private long reusableBytes;
    private long reuses;
    private boolean closed;

    PinnedPool(long limit) {
        this.limit = limit;
    }

    /**
     * The size class of an allocation of {@code size} bytes, the byte size of the buffer allocated for it: at least a
     * {@linkplain #PAGE page}, else {@code size} rounded up to a multiple of an eighth of its highest power of two (so
     * 1 MiB, 1.125 MiB, 1.25 MiB ... 2 MiB). Powers of two, which Arrow's default rounding asks for below 16 MiB, are
     * their own class; above, where Arrow asks for exact sizes, a buffer is at most 12.5% larger than asked, and batches
     * whose sizes differ by a few percent (variable-width columns) still share a class. Pure powers of two would pin up
     * to twice the size asked there; fixed steps of 64 KiB would rarely reuse a buffer for such batches.
     */
    static long sizeClass(long size) {
        if (size <= PAGE) {
            return PAGE;
        }
        if (size > 1L << 61) {
            return size; // no allocation of that size succeeds; do not overflow
        }
        long step = Math.max(PAGE, Long.highestOneBit(size) >>> 3);
        return (size + step - 1) & -step;
    }

    /** The most bytes the pool keeps. */
    long limit() {
        return limit;
    }

    /** A reusable buffer of {@code sizeClass} bytes, now the caller's; null if the pool has none. */
    @Nullable HostBuffer take(long sizeClass) {
        HostBuffer found = null;
        synchronized (this) {
            ArrayDeque<HostBuffer> deque = reusable.get(sizeClass);
            while (found == null && deque != null && !deque.isEmpty()) {
                HostBuffer b = deque.pollLast();
                byAge.remove(b);
                heldBytes -= sizeClass;
                reusableBytes -= sizeClass;
                if (!b.isClosed()) { // else its context closed and freed it: dropped
                    found = b;
                    reuses++;
                }
            }
        }
        return found;
    }

    /**
     * Takes back {@code buffer}, which Arrow released: kept, to become reusable once idle, if it fits the limit (after
     * freeing the oldest reusable buffers if need be), else freed once its copies have finished.
     */
    void offer(HostBuffer buffer) {
        long bytes = buffer.byteSize();
        List<HostBuffer> evicted = List.of();
        boolean kept;
        synchronized (this) {
            kept = !closed && !buffer.isClosed() && heldBytes - reusableBytes + bytes <= limit;
            if (kept) {
                evicted = evict(heldBytes + bytes - limit);
                heldBytes += bytes;
            }
        }
        evicted.forEach(HostBuffer::close);
        if (kept) {
            buffer.whenIdle().thenRun(() -> ready(buffer)); // at once, here, if no copy is pending
        } else {
            buffer.close(); // freed once its copies have finished
        }
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

    /** {@code buffer}'s copies have finished: reusable now, or freed if the pool closed meanwhile. */
    private void ready(HostBuffer buffer) {
        long bytes = buffer.byteSize();
        synchronized (this) {
            if (!closed && !buffer.isClosed()) {
                reusable.computeIfAbsent(bytes, k -> new ArrayDeque<>()).addLast(buffer);
                byAge.add(buffer);
                reusableBytes += bytes;
                return;
            }
            heldBytes -= bytes;
        }
        buffer.close();
    }

    /** Frees every reusable buffer (for an allocation that found no pinned memory left); the pool stays open. */
    void clear() {
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

    /** Frees every reusable buffer, and each waiting one once idle; buffers offered later are freed, not kept. */
    void close() {
        synchronized (this) {
            closed = true;
        }
        clear();
    }

    /** Bytes of the buffers the pool holds, reusable or waiting for their copies. */
    synchronized long heldBytes() {
        return heldBytes;
    }

    /** Bytes of the buffers {@link #take} may hand out now. */
    synchronized long reusableBytes() {
        return reusableBytes;
    }

    /** How many allocations a reusable buffer served. */
    synchronized long reuses() {
        return reuses;
    }
}
