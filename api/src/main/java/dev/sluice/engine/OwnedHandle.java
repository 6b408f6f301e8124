package dev.sluice.engine;

import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A backend object that a context owns for a public handle ({@link DeviceEvent}'s event, {@link DeviceFunction}'s
 * loaded kernel), registered with the context in the handle's place, as an {@link Allocation} is for a
 * {@link DeviceBuffer}: so the handle can become unreachable while open, and the {@link LeakDetector} release it.
 * Closed once, by whichever claims {@link #closed} first: the handle's {@code close()}, the leak detector, or the
 * context's close; released once, by that closer or, where the leak detector left it, by the context's close.
 * Thread-safe.
 */
public final class OwnedHandle implements ContextOwned {

    /** The public handle's closed state: set by its close(), the leak detector or the context's close. */
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Whether the backend object was released; apart from {@link #closed}, which the leak detector may set alone. */
    private final AtomicBoolean released = new AtomicBoolean();
    private final ContextState context;
    private final Runnable release;
    /**
     * Why the leak detector leaves it to the context's close, once something of it was given to the user that may still
     * be in use without keeping it reachable (the backend's own handle, {@link DeviceEvent#nativeHandle()}; a module
     * variable, {@link DeviceFunction#global}, which enqueued copies may still use); null until then.
     */
    private volatile @Nullable String handedOut;

    /** {@code release} destroys the backend object; it must not refer to the public handle. */
    OwnedHandle(ContextState context, Runnable release) {
        this.context = context;
        this.release = release;
    }

    /** Whether it was closed (by its owner, the leak detector or the context's close). */
    public boolean isClosed() {
        return closed.get();
    }

    /** The closed flag, for the leak detector. */
    public AtomicBoolean closedFlag() {
        return closed;
    }

    /** Notes that something of it was given to the user, {@code why} it may still be in use. */
    public void handOut(String why) {
        handedOut = why;
    }

    /** Releases it unless that was done already (closed); true for the one call that did. */
    public boolean close() {
        if (!closed.compareAndSet(false, true)) {
            return false;
        }
        release();
        return true;
    }

    /** The leak detector's release, {@link #closed} already claimed: null once released, else why it was not. */
    public @Nullable String releaseLeaked() {
        String why = handedOut;
        if (why != null) {
            return why;
        }
        release();
        return null;
    }

    /** For the context's close: closes it and releases it unless that was done, also where the leak detector left it. */
    void closeWithContext() {
        closed.set(true);
        release();
    }

    private void release() {
        context.handshake().beginRelease(); // before the claim: the context's close then waits for this release to reach the backend
        try {
            if (released.compareAndSet(false, true)) {
                try {
                    release.run();
                } finally {
                    context.forget(this);
                }
            }
        } finally {
            context.handshake().endRelease();
        }
    }
}
