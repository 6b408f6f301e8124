package dev.sluice.spi.support;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Pinned buffers through which copies between the device and host memory the driver cannot use directly (Java
 * arrays, pageable memory) are staged in stream order. The chunk policy: a copy is cut into pieces of at most
 * {@link #largest()} bytes, one buffer per piece; buffer sizes are powers of two from {@link #smallest()} to
 * {@link #largest()}, a piece taking the smallest that holds it; at most {@link #maxBuffers()} buffers exist at once,
 * and every buffer is kept (for reuse) until {@link #destroy()}, since freeing pinned memory may synchronise the
 * device. When a buffer may be reused is the backend's business: it gives a buffer back ({@link #release}) once the
 * copy through it has finished.
 *
 * <p>Not {@link dev.sluice.HostBufferPool}, the pool of pinned {@link dev.sluice.HostBuffer}s that pipelines, the
 * Flink function, the Arrow allocator factory and programs share: this one works below the API, for copies already
 * inside a backend's enqueue path. Its buffers are raw driver allocations ({@link PinnedMemory}) that no
 * {@code HostBuffer}, use tracking or leak detector wraps, owned by the backend's context until {@link #destroy()}, and
 * given back on the backend's own signal (an event after the DMA), since a {@code HostBuffer}'s
 * {@link dev.sluice.HostBuffer#whenIdle()} would wait for the very operation the staging is part of.
 *
 * <p>For backend authors: thread-safe; {@link #tryAcquire} calls the driver only to allocate a new buffer.
 */
public final class StagingPool {

    private static final Logger LOG = System.getLogger(StagingPool.class.getName());

    /**
     * One pinned buffer.
     *
     * @param segment   the buffer's memory
     * @param sizeClass its size class: its size is {@code smallest << sizeClass}
     */
    public record Buffer(MemorySegment segment, int sizeClass) {

        /** The buffer's host address. */
        public long address() {
            return segment.address();
        }

        /** The buffer's size in bytes. */
        public long capacity() {
            return segment.byteSize();
        }
    }

    private final PinnedMemory memory;
    private final long smallest;
    private final long largest;
    private final int maxBuffers;
    private final List<ArrayDeque<Buffer>> free = new ArrayList<>();
    private final List<Buffer> all = new ArrayList<>();
    /** Buffers being allocated outside the lock, counted against {@link #maxBuffers}. */
    private int allocating;
    private boolean destroyed;

    /**
     * @param memory     how the backend allocates pinned memory (not mapped)
     * @param smallest   the smallest buffer, a power of two
     * @param largest    the largest buffer and so the longest piece of a copy, a power of two, at least {@code smallest}
     * @param maxBuffers how many buffers may exist at once, at least 1
     * @throws IllegalArgumentException naming the argument, its value and the bound it breaks
     */
    public StagingPool(PinnedMemory memory, long smallest, long largest, int maxBuffers) {
        this.memory = Objects.requireNonNull(memory, "memory");
        if (smallest < 1 || Long.bitCount(smallest) != 1) {
            throw new IllegalArgumentException("smallest " + smallest + " must be a power of two of at least 1");
        }
        if (largest < smallest || Long.bitCount(largest) != 1) {
            throw new IllegalArgumentException("largest " + largest + " must be a power of two of at least smallest (" + smallest + ")");
        }
        if (maxBuffers < 1) {
            throw new IllegalArgumentException("maxBuffers " + maxBuffers + " must be at least 1");
        }
        this.smallest = smallest;
        this.largest = largest;
        this.maxBuffers = maxBuffers;
        int classes = Long.numberOfTrailingZeros(largest) - Long.numberOfTrailingZeros(smallest) + 1;
        for (int i = 0; i < classes; i++) {
            free.add(new ArrayDeque<>());
        }
    }

    /** The smallest buffer's size. */
    public long smallest() {
        return smallest;
    }

    /** The largest buffer's size: the longest piece a copy is cut into. */
    public long largest() {
        return largest;
    }

    /** How many buffers may exist at once. */
    public int maxBuffers() {
        return maxBuffers;
    }

    /** The size class of a piece of {@code bytes} (at most {@link #largest()}): the smallest that holds it. */
    public int sizeClass(long bytes) {
        long piece = Math.min(Math.max(bytes, 1), largest);
        int c = 0;
        while ((smallest << c) < piece) {
            c++;
        }
        return c;
    }

    /**
     * A free buffer for the next piece of a copy with {@code remaining} bytes left: of at least
     * {@code min(remaining, largest())} bytes. Allocates one if none of the size is free and fewer than
     * {@link #maxBuffers()} exist.
     *
     * @return the buffer, or null when all {@link #maxBuffers()} exist and none of the size is free (the caller waits
     *         for a release)
     * @throws IllegalStateException after {@link #destroy()}
     */
    public @Nullable Buffer tryAcquire(long remaining) {
        int c = sizeClass(remaining);
        synchronized (this) {
            if (destroyed) {
                throw new IllegalStateException("staging buffers destroyed");
            }
            Buffer b = free.get(c).poll();
            if (b != null || all.size() + allocating >= maxBuffers) {
                return b;
            }
            allocating++;
        }
        // Allocated outside the lock: a driver may synchronise the device here, and the completion thread must be
        // able to give buffers back meanwhile.
        long size = smallest << c;
        long host;
        try {
            host = memory.allocate(size, false);
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                allocating--;
            }
            throw e;
        }
        synchronized (this) {
            allocating--;
            if (!destroyed) {
                Buffer b = new Buffer(MemorySegment.ofAddress(host).reinterpret(size), c);
                all.add(b);
                return b;
            }
        }
        memory.free(host); // destroyed while allocating: nobody else would free it
        throw new IllegalStateException("staging buffers destroyed");
    }

    /**
     * {@link #tryAcquire}, for a pool that must not wait: never null.
     *
     * @throws IllegalStateException naming the limit when all {@link #maxBuffers()} buffers exist and none of the size
     *                               is free, or after {@link #destroy()}
     */
    public Buffer acquire(long remaining) {
        Buffer b = tryAcquire(remaining);
        if (b == null) {
            throw new IllegalStateException("all " + maxBuffers + " staging buffers are in use; a piece of "
                    + Math.min(remaining, largest) + " bytes must wait for one");
        }
        return b;
    }

    /** Gives back a buffer whose copy has finished; dropped after {@link #destroy()}. */
    public synchronized void release(Buffer b) {
        if (!destroyed) {
            free.get(b.sizeClass()).push(b);
        }
    }

    /** How many bytes of pinned memory the buffers take (tests, diagnostics). */
    public synchronized long pinnedBytes() {
        long n = 0;
        for (Buffer b : all) {
            n += b.capacity();
        }
        return n;
    }

    /** Frees every buffer, given back or not, once; the context's copies have finished. Failures are logged. */
    public synchronized void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (Buffer b : all) {
            try {
                memory.free(b.address());
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "freeing a staging buffer failed", e);
            }
        }
        all.clear();
        free.forEach(ArrayDeque::clear);
    }
}
