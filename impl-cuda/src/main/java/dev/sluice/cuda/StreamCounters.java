package dev.sluice.cuda;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Layer 2: 64-bit completion counters in pinned, device-mapped host memory, one per stream. After each
 * operation the stream writes the operation's sequence number into its counter ({@code cuStreamWriteValue64},
 * which by default fences the operation's memory writes first); the completion thread sees an operation done
 * by reading host memory, with no driver call and so no contention with the threads that enqueue. A counter
 * only grows: a stream created on a recycled slot continues from the slot's last value.
 */
final class StreamCounters {

    static final int SLOTS_PER_PAGE = 512;

    /** A stream's counter: host view and device address. */
    record Counter(int index, MemorySegment host, long device) {
        long value() {
            return (long) ValueLayout.JAVA_LONG.varHandle().getAcquire(host, 0L);
        }
    }

    private final List<MemorySegment> pages = new ArrayList<>();
    private final List<Counter> free = new ArrayList<>();
    private int count;
    private boolean destroyed;

    /** The context must be bound (a new page may be allocated). */
    synchronized Counter acquire() {
        if (destroyed) {
            throw new IllegalStateException("counters destroyed");
        }
        if (free.isEmpty()) {
            long bytes = SLOTS_PER_PAGE * 8L;
            long host = Cu.memHostAlloc(bytes, 1 | 2); // PORTABLE | DEVICEMAP
            MemorySegment page = MemorySegment.ofAddress(host).reinterpret(bytes);
            page.fill((byte) 0);
            long device = Cu.memHostGetDevicePointer(host);
            pages.add(page);
            for (int k = SLOTS_PER_PAGE - 1; k >= 0; k--) {
                free.add(new Counter(count + k, page.asSlice(k * 8L, 8), device + k * 8L));
            }
            count += SLOTS_PER_PAGE;
        }
        return free.removeLast();
    }

    synchronized void release(Counter c) {
        if (!destroyed) {
            free.add(c);
        }
    }

    /** Frees the pages; the context's streams are gone. */
    synchronized void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (MemorySegment p : pages) {
            Cu.memFreeHost(p.address());
        }
        pages.clear();
        free.clear();
    }
}
