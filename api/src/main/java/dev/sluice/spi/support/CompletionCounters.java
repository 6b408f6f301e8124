package dev.sluice.spi.support;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Completion counters in pinned, device-mapped host memory: one per stream, into which the device writes the sequence
 * number of each completion marker it passes, so that the host learns completion by reading memory instead of asking
 * the driver. Measured on an H200 with driver 580, a thread polling {@code cuEventQuery} slowed another thread's
 * launches 1.3–1.6×, where a thread spinning on a device-written word did not (docs/decisions/0012-completion-counters.md).
 *
 * <p><b>The protocol.</b> A stream numbers its markers 1, 2, 3, … For marker {@code n} the backend enqueues, after
 * the marker's event on the work stream, a device-side write of {@code n} into the stream's counter, on a second
 * stream that waits for that event (CUDA: {@code cuStreamWaitEvent} + {@code cuStreamWriteValue32}; HIP:
 * {@code hipStreamWaitEvent} + {@code hipStreamWriteValue32}). Writing on the work stream itself would serialise
 * streams (measured: three streams as slow as one); a separate stream per work stream keeps them overlapping. The
 * writes of one counter run in marker order on that stream, so the counter only grows, and marker {@code n} is done
 * once {@link Counter#reached reached(n)}.
 *
 * <p><b>Memory ordering.</b> A stream memory write without the no-barrier flag is preceded, on the device, by a
 * system-scope fence: everything the device wrote before it (a download into pinned memory, a kernel's stores to
 * mapped memory) is visible to the host before the counter value is. The host reads the counter with acquire
 * semantics ({@link VarHandle#getAcquire}), so the host's later reads of that data are not reordered before it; the
 * future that the engine completes next publishes it to the threads waiting for that future. Counters are 32 bits
 * and compared cyclically, so wrapping after 2<sup>32</sup> markers is harmless while fewer than 2<sup>31</sup> markers
 * of one stream are pending at once.
 *
 * <p><b>How many.</b> Each counter in use stands for a marker stream, and streams share the device's hardware queues
 * (CUDA: {@code CUDA_DEVICE_MAX_CONNECTIONS}, 8 by default): a marker stream waiting for an event in a queue that a
 * work stream shares holds that stream's later work behind the wait, and every stream the driver keeps busy at once
 * costs it device memory (the conformance suite's sixteen waiting streams grew the driver's share by 68 MiB with a
 * marker stream each). So a pool hands out at most {@code limit} counters at once ({@link #tryAcquire()} answers null
 * beyond it): the streams that get none poll their markers' events, as before, and try again at their next marker.
 *
 * <p><b>Reuse.</b> {@link #tryAcquire()} hands out a counter set to 0; {@link #release} takes it back once nothing can
 * still write it (the stream that wrote it synchronised, its marker stream included). A counter whose writes may still
 * land must not be released: a stream whose synchronisation failed drops it instead (it then stays counted against the
 * limit), and the page is freed with the rest by {@link #destroy()}.
 *
 * <p>For backend authors: thread-safe; {@link #tryAcquire()} calls the driver only when it needs a new page;
 * {@link Counter#reached} is one memory read, no allocation and no lock.
 */
public final class CompletionCounters {

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** One stream's counter: where the host reads it, and the address the device writes it at. */
    public static final class Counter {

        private final int index;
        private final MemorySegment host;
        private final long device;

        Counter(int index, MemorySegment host, long device) {
            this.index = index;
            this.host = host;
            this.device = device;
        }

        /** The device address to write marker numbers at (a 32-bit word). */
        public long device() {
            return device;
        }

        /** The counter's value now: the low 32 bits of the last marker number the device wrote (an acquire read). */
        public int value() {
            return (int) INT.getAcquire(host, 0L);
        }

        /**
         * Whether the device has written marker number {@code sequence} or a later one: a cyclic comparison of the low
         * 32 bits. One acquire read of host memory.
         */
        public boolean reached(long sequence) {
            return value() - (int) sequence >= 0;
        }

        @Override
        public String toString() {
            return "Counter[" + index + ", value " + Integer.toUnsignedString(value()) + "]";
        }
    }

    private final MappedPages pages;
    private final int limit;
    private int[] free = new int[0];
    private int freeCount;
    private int inUse;
    private boolean destroyed;

    /**
     * @param memory how the backend allocates mapped pinned memory
     * @param limit  the most counters handed out at once, at least 1
     * @throws IllegalArgumentException if {@code limit} is less than 1
     */
    public CompletionCounters(PinnedMemory memory, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        this.pages = new MappedPages(Objects.requireNonNull(memory, "memory"));
        this.limit = limit;
    }

    /**
     * A counter set to 0, for one stream, until {@link #release}; null while {@code limit} counters are in use.
     *
     * @throws IllegalStateException after {@link #destroy()}
     * @throws dev.sluice.SluiceException when the driver refuses a new page of mapped memory
     */
    public synchronized @Nullable Counter tryAcquire() {
        if (destroyed) {
            throw new IllegalStateException("completion counters destroyed");
        }
        if (inUse >= limit) {
            return null;
        }
        if (freeCount == 0) {
            int base = pages.grow();
            free = Arrays.copyOf(free, base + MappedPages.SLOTS_PER_PAGE);
            for (int k = MappedPages.SLOTS_PER_PAGE - 1; k >= 0; k--) {
                free[freeCount++] = base + k;
            }
        }
        int i = free[--freeCount];
        inUse++;
        MemorySegment host = pages.host(i, 4);
        INT.setVolatile(host, 0L, 0);
        return new Counter(i, host, pages.device(i));
    }

    /** What {@link #probe} asks of the backend: one device write into a counter, waited for. */
    @FunctionalInterface
    public interface ProbeWrite {

        /**
         * Enqueues a device write of {@code value} at device address {@code device} (the backend's stream memory write)
         * and waits until it has run.
         *
         * @throws RuntimeException (a {@link dev.sluice.SluiceException} naming the native call) if the driver refuses
         */
        void writeAndWait(long device, int value);
    }

    /**
     * Whether the device writes these counters here, tried once when a context opens: one counter, one write of 1
     * through {@code write}, read back on the host. Some drivers report the stream memory operations' capability
     * attribute as 0 and still perform them (the H200 with driver 580), so the write itself is the test.
     *
     * @return null if the device wrote the counter, else why not, in words (the counter is then not given back)
     */
    public @Nullable String probe(ProbeWrite write) {
        Counter c;
        try {
            c = tryAcquire();
        } catch (RuntimeException e) {
            return "host-mapped memory for the counters was refused (" + e.getMessage() + ")";
        }
        if (c == null) {
            throw new IllegalStateException("internal: probe of a pool whose counters are all taken");
        }
        try {
            write.writeAndWait(c.device(), 1);
        } catch (RuntimeException e) {
            return "the device's write into host-mapped memory was refused (" + e.getMessage() + ")";
        }
        if (c.value() != 1) {
            return "a counter written by the device read " + c.value() + " on the host, not 1";
        }
        release(c);
        return null;
    }

    /** Takes back {@code counter}, which nothing writes any more; once per {@link #tryAcquire()}. */
    public synchronized void release(Counter counter) {
        if (!destroyed) {
            free[freeCount++] = counter.index;
            inUse--;
        }
    }

    /** How many counters are handed out now (tests, diagnostics). */
    public synchronized int inUse() {
        return inUse;
    }

    /** How many pages of pinned memory the counters use now (tests, diagnostics). */
    public synchronized int pages() {
        return pages.count();
    }

    /** Frees the pages, once; called when the context closes, after its streams were synchronised. */
    public synchronized void destroy() {
        if (!destroyed) {
            destroyed = true;
            pages.destroy();
        }
    }
}
