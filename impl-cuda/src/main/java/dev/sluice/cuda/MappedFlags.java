package dev.sluice.cuda;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Layer 2: 32-bit flags in pinned, device-mapped host memory ({@code cuMemHostAlloc} with PORTABLE and
 * DEVICEMAP), for host gates. Each slot holds a counter that only grows: a gate on a slot waits on the
 * device for "counter ≥ its target" ({@code CU_STREAM_WAIT_VALUE_GEQ}, a cyclic comparison, so wrap-around
 * is harmless) and opening it writes the target. A slot is reused only after its gate was opened; since the
 * counter never goes back, an old wait that has not run yet still passes.
 */
final class MappedFlags {

    static final int SLOTS_PER_PAGE = 1024;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final List<MemorySegment> pages = new ArrayList<>();
    private final List<Long> devicePages = new ArrayList<>();
    private int[] counters = new int[0];
    private int[] free = new int[0];
    private int freeCount;
    private boolean destroyed;

    /** A slot and the value its gate waits for. */
    record Slot(int index, MemorySegment host, long device, int target) {
    }

    /** Takes a slot; the context must be bound (a new page may be allocated). */
    synchronized Slot acquire() {
        if (destroyed) {
            throw new IllegalStateException("flag pool destroyed");
        }
        if (freeCount == 0) {
            grow();
        }
        int i = free[--freeCount];
        int target = ++counters[i];
        MemorySegment page = pages.get(i / SLOTS_PER_PAGE);
        long offset = (long) (i % SLOTS_PER_PAGE) * 4;
        return new Slot(i, page.asSlice(offset, 4), devicePages.get(i / SLOTS_PER_PAGE) + offset, target);
    }

    /** Writes the slot's target (a volatile store, visible to the device) and frees the slot. */
    void open(Slot slot) {
        INT.setVolatile(slot.host(), 0L, slot.target());
        synchronized (this) {
            if (!destroyed) {
                free[freeCount++] = slot.index();
            }
        }
    }

    private void grow() {
        long bytes = SLOTS_PER_PAGE * 4L;
        long host = Cu.memHostAlloc(bytes, 1 | 2); // PORTABLE | DEVICEMAP
        MemorySegment page = MemorySegment.ofAddress(host).reinterpret(bytes);
        page.fill((byte) 0);
        long device = Cu.memHostGetDevicePointer(host);
        int base = pages.size() * SLOTS_PER_PAGE;
        pages.add(page);
        devicePages.add(device);
        counters = Arrays.copyOf(counters, base + SLOTS_PER_PAGE);
        free = Arrays.copyOf(free, base + SLOTS_PER_PAGE);
        for (int k = SLOTS_PER_PAGE - 1; k >= 0; k--) {
            free[freeCount++] = base + k;
        }
    }

    /**
     * Opens every gate still closed (so no stream is left waiting on memory about to be freed) and frees the
     * pages. Called after the context's streams were synchronised and destroyed; the context must be bound.
     */
    synchronized void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (MemorySegment p : pages) {
            for (int k = 0; k < SLOTS_PER_PAGE; k++) {
                INT.setVolatile(p, k * 4L, Integer.MAX_VALUE);
            }
        }
        for (MemorySegment p : pages) {
            Cu.memFreeHost(p.address());
        }
        pages.clear();
        devicePages.clear();
    }
}
