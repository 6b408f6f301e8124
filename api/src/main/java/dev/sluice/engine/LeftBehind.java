package dev.sluice.engine;

import dev.sluice.spi.ContextHandle;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * What a context's close keeps when, at its deadline, streams of other contexts still have work pending on its memory
 * (a peer copy into or out of one of its buffers, a copy to or from its shared pinned memory), held on the host behind a
 * stage that has not completed or waiting behind slow work: that memory, and the native context it belongs to (whose
 * destruction would free it), stay allocated until each such operation has finished on the device or has been dropped
 * with its own context's close. Then the memory is freed, and once nothing is kept any more the native context is
 * closed, on a thread of its own. A deadline ends the close's wait; it never frees memory that pending work will touch.
 *
 * <p>Kept memory is not reachable from the closed context's API: its buffers are closed. A program that keeps another
 * context's work held for ever keeps this memory for as long.
 */
final class LeftBehind {

    private static final System.Logger LOG = System.getLogger(LeftBehind.class.getName());

    private final String context;
    private final ContextHandle handle;
    /** What is kept, plus one for {@link #seal}: the native context closes when it reaches 0. */
    private final AtomicInteger kept = new AtomicInteger(1);

    LeftBehind(String context, ContextHandle handle) {
        this.context = context;
        this.handle = handle;
    }

    /**
     * Keeps the memory that {@code memory} names (in messages) until every one of {@code uses} (operations of other
     * contexts' streams) has finished or been dropped, then runs {@code free}, if not null (memory whose free was already
     * enqueued needs none: the native close frees it). Before {@link #seal}.
     */
    void keep(String memory, List<Operation<?>> uses, @Nullable Runnable free) {
        kept.incrementAndGet();
        LOG.log(System.Logger.Level.WARNING, context + " closed while " + uses.size() + " operation(s) of other contexts"
                + " still used " + memory + "; kept allocated, with its native context, until they finish or are dropped");
        UseTracker.whenFinishedOrDropped(uses, () -> release(memory, free));
    }

    /** Every kept piece has been registered: the native context closes once the last is released (now, if none). */
    void seal() {
        if (kept.decrementAndGet() == 0) {
            closeNative();
        }
    }

    private void release(String memory, @Nullable Runnable free) {
        // Off the thread that saw the work end: another context's completion thread or closing thread, which must not
        // wait for this context's driver calls.
        Thread.ofPlatform().daemon().name("sluice-release-" + context).start(() -> {
            if (free != null) {
                try {
                    free.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "freeing " + memory + " of closed " + context + " failed", e);
                }
            }
            LOG.log(System.Logger.Level.DEBUG, "released " + memory + " of closed " + context);
            if (kept.decrementAndGet() == 0) {
                closeNative();
            }
        });
    }

    private void closeNative() {
        try {
            handle.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the native context of " + context + " failed", e);
        }
    }
}
