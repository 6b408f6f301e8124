package dev.sluice.arrow;

import dev.sluice.HostBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.ArrowBuf;

/**
 * An Arrow vector of any allocator pinned in place ({@link dev.sluice.DeviceContext#registerHost}): its
 * {@link #data()} are pinned {@link HostBuffer}s over the vector's own buffers, copied by DMA with no staging copy.
 * Made by {@link ArrowColumns#registerHost}.
 *
 * <p><b>Resources:</b> the registration holds a reference to each of the vector's buffers, so the vector may be closed
 * before it: Arrow frees the memory only once the registration is closed too. {@link #close()} unregisters the memory
 * once every copy already enqueued on it has finished, and then releases those references. Close it before the
 * context. A vector of a {@link PinnedAllocationFactory} allocator is pinned already: its registration registers
 * nothing and holds no reference.
 */
public final class RegisteredColumn implements AutoCloseable {

    private final ColumnData data;
    private final List<HostBuffer> registered;
    private final List<ArrowBuf> retained;
    private final AtomicBoolean closed = new AtomicBoolean();

    RegisteredColumn(ColumnData data, List<HostBuffer> registered, List<ArrowBuf> retained) {
        this.data = data;
        this.registered = registered;
        this.retained = retained;
    }

    /** The vector's memory as pinned host data, valid until {@link #close()}. */
    public ColumnData data() {
        return data;
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Unregisters the memory once every copy already enqueued on it has finished, then releases the registration's
     * references to the vector's buffers (Arrow frees them then if the vector was closed). Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (registered.isEmpty()) {
            ArrowColumns.release(retained);
            return;
        }
        AtomicInteger left = new AtomicInteger(registered.size());
        for (HostBuffer b : registered) {
            b.close();
            b.whenReleased().whenComplete((v, e) -> {
                if (left.decrementAndGet() == 0) {
                    ArrowColumns.release(retained);
                }
            });
        }
    }

    @Override
    public String toString() {
        return "RegisteredColumn[" + data.type() + " x " + data.valueCount() + (closed.get() ? ", closed" : "") + "]";
    }
}
