package dev.sluice.cuda;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The host memory Sluice pinned (allocated or registered, always PORTABLE, so pinned for every context), so
 * that a copy can tell in one map look-up whether its host side can go straight to the DMA engines or must be
 * staged. Process-wide: a segment of one context's host buffer may be copied on another context's stream.
 */
final class PinnedRanges {

    private static final ConcurrentSkipListMap<Long, Long> RANGES = new ConcurrentSkipListMap<>();

    private PinnedRanges() {
    }

    static void add(long address, long bytes) {
        RANGES.put(address, address + bytes);
    }

    static void remove(long address) {
        RANGES.remove(address);
    }

    /** Whether all of {@code segment} lies in one pinned range. */
    static boolean contains(MemorySegment segment) {
        if (!segment.isNative()) {
            return false;
        }
        long a = segment.address();
        Map.Entry<Long, Long> e = RANGES.floorEntry(a);
        return e != null && a + segment.byteSize() <= e.getValue();
    }
}
