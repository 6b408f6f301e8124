package dev.sluice.hip;

import dev.sluice.spi.HostGate;
import java.util.concurrent.atomic.AtomicBoolean;

/** A stream held by {@code hipStreamWaitValue32} on a mapped flag until the host writes the flag's target. */
final class HipHostGate implements HostGate {

    private final HipGateSlots slots;
    private final HipGateSlots.Slot slot;
    private final AtomicBoolean opened = new AtomicBoolean();

    HipHostGate(HipGateSlots slots, HipGateSlots.Slot slot) {
        this.slots = slots;
        this.slot = slot;
    }

    @Override
    public void open() {
        if (opened.compareAndSet(false, true)) {
            slots.open(slot);
        }
    }
}
