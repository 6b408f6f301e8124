package dev.sluice.cpu;

import dev.sluice.ClosedResourceException;
import dev.sluice.EventFlag;
import dev.sluice.spi.EventHandle;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A simulated event: each record makes a new point, reached (with a timestamp) when the stream gets there. Destroyed
 * once ({@link #destroy()} is idempotent and thread-safe); a new record, query or wait after that throws
 * {@link ClosedResourceException}, as a GPU backend's would.
 */
final class CpuEvent implements EventHandle {

    /** The operation that reaches one recorded point. */
    final class Record implements CpuStream.Op {
        final CompletableFuture<Long> point = new CompletableFuture<>();

        @Override
        public void run() {
            point.complete(System.nanoTime());
        }
    }

    private final Set<EventFlag> flags;
    private volatile @Nullable CompletableFuture<Long> last;
    private final AtomicBoolean destroyed = new AtomicBoolean();

    CpuEvent(Set<EventFlag> flags) {
        this.flags = flags;
    }

    /** A record operation; the event's last point becomes it at once, as cuEventRecord does at the call. */
    Record newRecord() {
        checkNotDestroyed();
        Record r = new Record();
        last = r.point;
        return r;
    }

    @Nullable CompletableFuture<Long> lastPoint() {
        return last;
    }

    @Override
    public boolean query() {
        checkNotDestroyed();
        CompletableFuture<Long> p = last;
        return p == null || p.isDone();
    }

    @Override
    public void synchronize() {
        checkNotDestroyed();
        CompletableFuture<Long> p = last;
        if (p != null) {
            p.join();
        }
    }

    @Override
    public float elapsedMillis(EventHandle end) {
        CompletableFuture<Long> a = last;
        CompletableFuture<Long> b = ((CpuEvent) end).last;
        if (a == null || b == null || !flags.contains(EventFlag.TIMING)) {
            throw new IllegalStateException("events not recorded with timing");
        }
        return (b.join() - a.join()) / 1_000_000f;
    }

    /** Idempotent and safe from any thread; points already recorded are still reached. */
    @Override
    public void destroy() {
        destroyed.set(true);
    }

    private void checkNotDestroyed() {
        if (destroyed.get()) {
            throw new ClosedResourceException(toString());
        }
    }

    @Override
    public String toString() {
        return "CpuEvent" + flags;
    }
}
