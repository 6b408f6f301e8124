package dev.sluice.spi.support;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;

/**
 * 32-bit flags in pinned, device-mapped host memory, for host gates ({@link HostFlagGate}). Each slot holds a
 * counter that only grows: a gate waits on the device for "flag ≥ its target" (CUDA's {@code cuStreamWaitValue32}
 * with {@code CU_STREAM_WAIT_VALUE_GEQ}, HIP's {@code hipStreamWaitValue32} with {@code hipStreamWaitValueGte}; a
 * cyclic comparison, so wrap-around is harmless) and opening it writes the target. A slot is reused only after its
 * gate was opened; since the counter never goes back, an older wait that has not run yet still passes. Slots sit
 * {@value #SPACING} bytes apart so that no two share a cache line; pages of {@value #SLOTS_PER_PAGE} slots are
 * allocated as needed and kept until {@link #destroy()}.
 *
 * <p>For backend authors: thread-safe; {@link #acquire()} calls the driver only when it needs a new page.
 */
public final class HostFlagSlots {

    /** Slots per page of pinned memory. */
    public static final int SLOTS_PER_PAGE = MappedPages.SLOTS_PER_PAGE;
    /** Bytes between two slots: a cache line. */
    public static final int SPACING = MappedPages.SPACING;

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /**
     * A slot taken for one gate: where the host writes ({@code host}), where the device reads ({@code device}), and
     * the value the gate waits for ({@code target}).
     *
     * @param index  the slot's number in this pool
     * @param host   the flag, 4 bytes of host memory
     * @param device the flag's device address
     * @param target the value that opens the gate
     */
    public record Slot(int index, MemorySegment host, long device, int target) {
    }

    private final MappedPages pages;
    private int[] counters = new int[0];
    private int[] free = new int[0];
    private int freeCount;
    private boolean destroyed;

    /** @param memory how the backend allocates mapped pinned memory */
    public HostFlagSlots(PinnedMemory memory) {
        this.pages = new MappedPages(Objects.requireNonNull(memory, "memory"));
    }

    /**
     * Takes a free slot and raises its target.
     *
     * @throws IllegalStateException after {@link #destroy()}
     */
    public synchronized Slot acquire() {
        if (destroyed) {
            throw new IllegalStateException("host flag slots destroyed");
        }
        if (freeCount == 0) {
            grow();
        }
        int i = free[--freeCount];
        int target = ++counters[i];
        return new Slot(i, pages.host(i, 4), pages.device(i), target);
    }

    /**
     * Writes the slot's target (a volatile store, which the device sees in mapped memory) and frees the slot. Also the
     * way to give back a slot whose wait could not be enqueued: nothing then waits on it. Call once per
     * {@link #acquire()}; {@link HostFlagGate} makes sure of that.
     */
    public void open(Slot slot) {
        INT.setVolatile(slot.host(), 0L, slot.target());
        synchronized (this) {
            if (!destroyed) {
                free[freeCount++] = slot.index();
            }
        }
    }

    private void grow() {
        int base = pages.grow();
        counters = Arrays.copyOf(counters, base + SLOTS_PER_PAGE);
        free = Arrays.copyOf(free, base + SLOTS_PER_PAGE);
        for (int k = SLOTS_PER_PAGE - 1; k >= 0; k--) {
            free[freeCount++] = base + k;
        }
    }

    /** How many pages of pinned memory the slots use now (tests, diagnostics). */
    public synchronized int pages() {
        return pages.count();
    }

    /**
     * Opens every gate still closed (so that no stream is left waiting on memory about to be freed) and frees the
     * pages, once. Called when the context closes, after its streams were synchronised; failures are logged.
     */
    public synchronized void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (MemorySegment p : pages.pages()) {
            for (int k = 0; k < SLOTS_PER_PAGE; k++) {
                INT.setVolatile(p, (long) k * SPACING, Integer.MAX_VALUE);
            }
        }
        pages.destroy();
    }
}
