package dev.sluice.hip;

import dev.sluice.spi.support.Lifetime;
import dev.sluice.ClosedResourceException;
import dev.sluice.spi.EventHandle;

/**
 * A user's event ({@code DeviceEvent}), created with the flags asked for. Every runtime call on it, records and
 * waits of streams included, runs inside its {@link Lifetime}, so {@code hipEventDestroy} runs exactly once, never
 * under another call on it, and a call after {@link #destroy()} throws {@link ClosedResourceException} instead of
 * reaching the runtime with a destroyed event.
 */
final class HipEvent implements EventHandle {

    private final HipContext context;
    final long handle;
    private final Lifetime life;

    HipEvent(HipContext context, long handle) {
        this.context = context;
        this.handle = handle;
        this.life = new Lifetime(this, () -> context.api.eventDestroy(handle));
    }

    /** Marks a runtime call on this event; pair with {@link #exit()}. */
    void enter() {
        life.enter();
    }

    void exit() {
        life.exit();
    }

    @Override
    public boolean query() {
        life.enter();
        try {
            int r = context.api.eventQuery(handle);
            if (r == HipConstants.hipSuccess) {
                return true;
            }
            if (r == HipConstants.hipErrorNotReady) {
                return false;
            }
            context.noteStatus(r);
            throw HipErrors.exception(context.api, "hipEventQuery", r, -1);
        } finally {
            life.exit();
        }
    }

    /** Blocks in {@code hipEventSynchronize}; a concurrent {@link #destroy()} takes effect once it returns. */
    @Override
    public void synchronize() {
        life.enter();
        try {
            context.api.eventSynchronize(handle);
        } finally {
            life.exit();
        }
    }

    @Override
    public float elapsedMillis(EventHandle end) {
        HipEvent e = (HipEvent) end;
        life.enter();
        try {
            e.life.enter();
            try {
                return context.api.eventElapsedTime(handle, e.handle);
            } finally {
                e.life.exit();
            }
        } finally {
            life.exit();
        }
    }

    @Override
    public long nativeHandle() {
        if (life.isClosed()) {
            throw new ClosedResourceException(toString());
        }
        return handle;
    }

    /** Idempotent and safe from any thread: destroys the event once, after the calls using it have returned. */
    @Override
    public void destroy() {
        life.close();
    }

    @Override
    public String toString() {
        return "HipEvent[0x" + Long.toHexString(handle) + "]";
    }
}
