package dev.sluice.engine;

import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.HostMemory;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Pinned or registered host memory a context owns: the native memory, the uses of streams that have not finished with
 * it, whether its owner closed it, and when it was released. Every view of it shares this object.
 */
public final class HostAllocation extends OwnedMemory {

    final HostMemory memory;
    /** For memory mapped from a device buffer: copies the contents back before the memory is freed. */
    private @Nullable Runnable writeBack;
    /**
     * Set once the memory's segment has been handed out: the segment may outlive every buffer, so the leak detector must
     * not free the memory (it is freed by the buffer's close or the context's).
     */
    private volatile boolean segmentHandedOut;
    /** Completes once the memory has been freed or unregistered. */
    private final CompletableFuture<Void> released = new CompletableFuture<>();

    HostAllocation(ContextState context, HostMemory memory) {
        super(context);
        this.memory = memory;
    }

    /** The native memory. */
    public HostMemory memory() {
        return memory;
    }

    /** Sets what copies the memory back to the device buffer it maps, before it is freed. */
    public synchronized void writeBack(@Nullable Runnable action) {
        writeBack = action;
    }

    /** The write-back action, taken (one closer runs it), or null. */
    public synchronized @Nullable Runnable takeWriteBack() {
        Runnable w = writeBack;
        writeBack = null;
        return w;
    }

    /** Whether a write-back is set. */
    public synchronized boolean hasWriteBack() {
        return writeBack != null;
    }

    /** Notes that the memory's segment was handed out (see {@link #segmentHandedOut()}). */
    public void handOutSegment() {
        if (!segmentHandedOut) {
            segmentHandedOut = true;
        }
    }

    /** Whether the memory's segment was handed out, so that only an explicit close may free it. */
    public boolean segmentHandedOut() {
        return segmentHandedOut;
    }

    /** Completes once the memory has been freed or unregistered. */
    public CompletableFuture<Void> released() {
        return released;
    }

    /**
     * Completes once every use of the memory noted so far (each copy enqueued on any view of it, by any stream) has
     * finished on the device or been dropped by its context's close: at once, on the caller, if none is pending; else
     * on the completion thread of the stream that finishes the last of them, or on the thread closing a context that
     * drops one. Uses noted after the call are not waited for. Frees nothing and changes nothing.
     */
    public CompletableFuture<Void> whenIdle() {
        CompletableFuture<Void> idle = new CompletableFuture<>();
        uses.whenAllFinished(() -> idle.complete(null));
        return idle;
    }

    /** Frees (or unregisters) the memory through {@code handle}, then completes {@link #released}, even if that failed. */
    void free(ContextHandle handle) {
        try {
            handle.freeHost(memory);
        } finally {
            released.complete(null);
        }
    }
}
