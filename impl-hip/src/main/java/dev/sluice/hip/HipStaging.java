package dev.sluice.hip;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Pinned buffers ({@code hipHostMalloc}) through which copies from and to Java heap arrays are staged in
 * stream order: the runtime cannot read the Java heap, and an asynchronous copy from pageable memory would
 * not be ordered with the host's later writes. Sizes are powers of two from 64 KiB to {@link #CHUNK}; a copy
 * larger than a chunk goes through several.
 *
 * <p>A buffer comes back when the copy through it has finished: the stream hands its return to the next
 * completion marker, which runs it on the completion thread. Acquiring never waits for the device (an
 * enqueue that waited could deadlock behind a stream gated on host work): when no buffer of the size is
 * free, another is allocated. The pool keeps what it allocated until the context closes, so it grows to
 * the largest amount of heap-copy data in flight at once; buffers are never freed on the completion thread,
 * where {@code hipHostFree}'s implicit device synchronisation could deadlock.
 */
final class HipStaging {

    static final long CHUNK = 8L << 20;
    static final long SMALLEST = 64L << 10;
    private static final int CLASSES = Long.numberOfTrailingZeros(CHUNK) - Long.numberOfTrailingZeros(SMALLEST) + 1;

    /** One pinned buffer. */
    record Buffer(MemorySegment segment, int sizeClass) {
        long address() {
            return segment.address();
        }

        long capacity() {
            return segment.byteSize();
        }
    }

    private final HipContext context;
    private final List<ArrayDeque<Buffer>> free = new ArrayList<>();
    private final List<Buffer> all = new ArrayList<>();
    private boolean destroyed;

    HipStaging(HipContext context) {
        this.context = context;
        for (int i = 0; i < CLASSES; i++) {
            free.add(new ArrayDeque<>());
        }
    }

    /** A buffer of at least {@code min(bytes, CHUNK)} bytes. */
    Buffer acquire(long bytes) {
        int c = sizeClass(Math.min(bytes, CHUNK));
        synchronized (this) {
            if (destroyed) {
                throw new IllegalStateException("staging buffers of " + context + " destroyed");
            }
            Buffer b = free.get(c).poll();
            if (b != null) {
                return b;
            }
        }
        long size = SMALLEST << c;
        context.bind();
        long p = context.api.hostMalloc(size, HipConstants.hipHostMallocDefault);
        Buffer b = new Buffer(MemorySegment.ofAddress(p).reinterpret(size), c);
        synchronized (this) {
            all.add(b);
        }
        return b;
    }

    synchronized void release(Buffer b) {
        if (!destroyed) {
            free.get(b.sizeClass()).push(b);
        }
    }

    static int sizeClass(long bytes) {
        int c = 0;
        while ((SMALLEST << c) < bytes) {
            c++;
        }
        return c;
    }

    synchronized long pinnedBytes() {
        long n = 0;
        for (Buffer b : all) {
            n += b.capacity();
        }
        return n;
    }

    synchronized void destroy() {
        destroyed = true;
        for (Buffer b : all) {
            try {
                context.api.hostFree(b.address());
            } catch (RuntimeException e) {
                // closing after a fault
            }
        }
        all.clear();
        free.forEach(ArrayDeque::clear);
    }
}
