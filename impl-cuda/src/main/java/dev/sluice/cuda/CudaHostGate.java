package dev.sluice.cuda;

import dev.sluice.spi.HostGate;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A host gate: the stream waits on the device ({@code cuStreamWaitValue32}, GEQ) for a host-mapped flag that
 * {@link #open()} writes. No host thread blocks while the stream waits.
 */
final class CudaHostGate implements HostGate {

    private final MappedFlags flags;
    private final MappedFlags.Slot slot;
    private final AtomicBoolean opened = new AtomicBoolean();

    CudaHostGate(MappedFlags flags, MappedFlags.Slot slot) {
        this.flags = flags;
        this.slot = slot;
    }

    @Override
    public void open() {
        if (opened.compareAndSet(false, true)) {
            flags.open(slot);
        }
    }
}
