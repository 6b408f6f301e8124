package dev.sluice.spi.support;

import dev.sluice.spi.HostGate;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A host gate on a {@link HostFlagSlots} slot: the backend has enqueued a device-side wait for the slot's target,
 * and {@link #open()} writes it. No host thread blocks while the stream waits.
 *
 * <p>For backend authors: create it right after enqueueing the wait; if enqueueing fails, open the slot instead.
 */
public final class HostFlagGate implements HostGate {

    private final HostFlagSlots slots;
    private final HostFlagSlots.Slot slot;
    private final AtomicBoolean opened = new AtomicBoolean();

    /**
     * @param slots the pool {@code slot} came from
     * @param slot  the slot whose target the stream waits for
     */
    public HostFlagGate(HostFlagSlots slots, HostFlagSlots.Slot slot) {
        this.slots = Objects.requireNonNull(slots, "slots");
        this.slot = Objects.requireNonNull(slot, "slot");
    }

    /** Writes the flag's target once and gives the slot back; later calls do nothing. Any thread. */
    @Override
    public void open() {
        if (opened.compareAndSet(false, true)) {
            slots.open(slot);
        }
    }

    @Override
    public String toString() {
        return "HostFlagGate[slot " + slot.index() + ", target " + slot.target() + (opened.get() ? ", open]" : "]");
    }
}
