package dev.sluice.hip;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * 32-bit flags in pinned, device-mapped host memory ({@code hipHostMalloc} with {@code hipHostMallocMapped}),
 * for host gates. Each slot holds a counter that only grows: a gate waits on the device for "flag ≥ its
 * target" ({@code hipStreamWaitValue32} with {@code hipStreamWaitValueGte}) and opening it writes the target.
 * A slot is reused only after its gate was opened; the counter never goes back, so an older wait that has
 * not run yet still passes. Slots sit 64 bytes apart so that no two share a cache line.
 */
final class HipGateSlots {

    static final int SLOTS_PER_PAGE = 64;
    static final int SPACING = 64;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final HipContext context;
    private final List<MemorySegment> pages = new ArrayList<>();
    private final List<Long> devicePages = new ArrayList<>();
    private int[] counters = new int[0];
    private int[] free = new int[0];
    private int freeCount;
    private boolean destroyed;

    HipGateSlots(HipContext context) {
        this.context = context;
    }

    /** A slot and the value its gate waits for. */
    record Slot(int index, MemorySegment host, long device, int target) {
    }

    synchronized Slot acquire() {
        if (destroyed) {
            throw new IllegalStateException("gate slots of " + context + " destroyed");
        }
        if (freeCount == 0) {
            grow();
        }
        int i = free[--freeCount];
        int target = ++counters[i];
        int page = i / SLOTS_PER_PAGE;
        long offset = (long) (i % SLOTS_PER_PAGE) * SPACING;
        return new Slot(i, pages.get(page).asSlice(offset, 4), devicePages.get(page) + offset, target);
    }

    /** Writes the slot's target (a volatile store, which the device sees in coherent host memory) and frees it. */
    void open(Slot slot) {
        INT.setVolatile(slot.host(), 0L, slot.target());
        synchronized (this) {
            if (!destroyed) {
                free[freeCount++] = slot.index();
            }
        }
    }

    /** Gives back a slot whose wait could not be enqueued: its target is written so that nothing waits on it. */
    void abandon(Slot slot) {
        open(slot);
    }

    private void grow() {
        long bytes = (long) SLOTS_PER_PAGE * SPACING;
        context.bind();
        long host = context.api.hostMalloc(bytes, HipConstants.hipHostMallocMapped | HipConstants.hipHostMallocPortable);
        MemorySegment page = MemorySegment.ofAddress(host).reinterpret(bytes);
        page.fill((byte) 0);
        long device;
        try {
            device = context.api.hostGetDevicePointer(host);
        } catch (RuntimeException e) {
            context.api.hostFree(host);
            throw e;
        }
        int base = pages.size() * SLOTS_PER_PAGE;
        pages.add(page);
        devicePages.add(device);
        counters = Arrays.copyOf(counters, base + SLOTS_PER_PAGE);
        free = Arrays.copyOf(free, base + SLOTS_PER_PAGE);
        for (int k = SLOTS_PER_PAGE - 1; k >= 0; k--) {
            free[freeCount++] = base + k;
        }
    }

    /** Frees the pages; the context has synchronised, so no stream waits on them any more. */
    synchronized void destroy() {
        destroyed = true;
        for (MemorySegment p : pages) {
            try {
                context.api.hostFree(p.address());
            } catch (RuntimeException e) {
                // closing after a fault
            }
        }
        pages.clear();
        devicePages.clear();
    }
}
