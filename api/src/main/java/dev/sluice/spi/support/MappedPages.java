package dev.sluice.spi.support;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Pages of pinned, device-mapped host memory cut into slots a cache line apart, for the small words host and device
 * share: the host gates' flags ({@link HostFlagSlots}) and the streams' completion counters
 * ({@link CompletionCounters}). A page is zeroed when allocated and kept until {@link #destroy()}; slot {@code i} lies in
 * page {@code i / SLOTS_PER_PAGE}. Not thread-safe: each owner calls it under its own lock.
 */
final class MappedPages {

    /** Slots per page of pinned memory. */
    static final int SLOTS_PER_PAGE = 64;
    /** Bytes between two slots: a cache line, so that no two slots share one. */
    static final int SPACING = 64;

    private static final Logger LOG = System.getLogger(MappedPages.class.getName());

    private final PinnedMemory memory;
    private final List<MemorySegment> pages = new ArrayList<>();
    private final List<Long> devicePages = new ArrayList<>();

    MappedPages(PinnedMemory memory) {
        this.memory = memory;
    }

    /** Allocates one more page, zeroed; returns the number of its first slot. */
    int grow() {
        long bytes = (long) SLOTS_PER_PAGE * SPACING;
        long host = memory.allocate(bytes, true);
        long device;
        try {
            device = memory.devicePointer(host);
        } catch (RuntimeException e) {
            memory.free(host);
            throw e;
        }
        MemorySegment page = MemorySegment.ofAddress(host).reinterpret(bytes);
        page.fill((byte) 0);
        int base = pages.size() * SLOTS_PER_PAGE;
        pages.add(page);
        devicePages.add(device);
        return base;
    }

    /** Slot {@code index}'s host memory, {@code bytes} long. */
    MemorySegment host(int index, long bytes) {
        return pages.get(index / SLOTS_PER_PAGE).asSlice(offset(index), bytes);
    }

    /** Slot {@code index}'s device address. */
    long device(int index) {
        return devicePages.get(index / SLOTS_PER_PAGE) + offset(index);
    }

    private static long offset(int index) {
        return (long) (index % SLOTS_PER_PAGE) * SPACING;
    }

    /** How many pages are allocated. */
    int count() {
        return pages.size();
    }

    /** The pages, for a last write before they are freed. */
    List<MemorySegment> pages() {
        return pages;
    }

    /** Frees every page; failures are logged. */
    void destroy() {
        for (MemorySegment p : pages) {
            try {
                memory.free(p.address());
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "freeing a page of mapped host memory failed", e);
            }
        }
        pages.clear();
        devicePages.clear();
    }
}
