package dev.sluice;

import dev.sluice.spi.HostMemory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/** The root of a {@link HostBuffer} and its slices. */
final class HostAllocation {

    final DeviceContext context;
    final HostMemory memory;
    final UseTracker uses = new UseTracker();
    final AtomicBoolean closed = new AtomicBoolean();
    /** For buffers made by {@link DeviceBuffer#mapToHost()}: copies the contents back before the memory is freed. */
    @Nullable Runnable writeBack;
    /**
     * Set once {@link HostBuffer#segment()} has handed the memory out: the segment may outlive every buffer, so the leak
     * detector must not free the memory (it is freed by the buffer's close or the context's).
     */
    volatile boolean segmentHandedOut;
    /** Completes once the memory has been freed or unregistered: {@link HostBuffer#whenReleased()}. */
    final CompletableFuture<Void> released = new CompletableFuture<>();

    HostAllocation(DeviceContext context, HostMemory memory) {
        this.context = context;
        this.memory = memory;
    }

    /** Frees (or unregisters) the memory through {@code handle}, then completes {@link #released}, even if that failed. */
    void free(dev.sluice.spi.ContextHandle handle) {
        try {
            handle.freeHost(memory);
        } finally {
            released.complete(null);
        }
    }
}
