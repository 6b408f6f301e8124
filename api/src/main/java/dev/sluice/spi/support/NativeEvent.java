package dev.sluice.spi.support;

import dev.sluice.ClosedResourceException;
import dev.sluice.spi.EventHandle;
import java.util.Objects;

/**
 * A user's event ({@code DeviceEvent}) of a native backend. Every native call on it, records and waits of streams
 * included, runs inside its {@link Lifetime}, so the native event is destroyed exactly once, never under another call
 * on it, and a call after {@link #destroy()} throws {@link ClosedResourceException} instead of reaching the driver with
 * a destroyed event.
 *
 * <p>For backend authors: the CUDA and HIP backends hand these out as their {@link EventHandle}; streams call
 * {@link #recordOn} and {@link #waitOn}. Every method runs on the calling thread.
 */
public final class NativeEvent implements EventHandle {

    private final NativeEvents events;
    private final long handle;
    private final Lifetime life;

    /**
     * @param events  the native calls of the event's context
     * @param handle  the native event, created with the flags the user asked for; owned from now on
     * @param destroy destroys it (once; the backend may skip the call when its context took its events with it)
     */
    public NativeEvent(NativeEvents events, long handle, Runnable destroy) {
        this.events = Objects.requireNonNull(events, "events");
        this.handle = handle;
        this.life = new Lifetime(this, destroy);
    }

    /**
     * {@code event} as an event of a native backend.
     *
     * @throws IllegalArgumentException naming the event if another backend made it
     */
    public static NativeEvent of(EventHandle event) {
        if (event instanceof NativeEvent e) {
            return e;
        }
        throw new IllegalArgumentException("event " + event + " was not created by this backend");
    }

    @Override
    public boolean query() {
        life.enter();
        try {
            return events.query(handle);
        } finally {
            life.exit();
        }
    }

    /** Blocks in the driver; a concurrent {@link #destroy()} takes effect once it returns. */
    @Override
    public void synchronize() {
        life.enter();
        try {
            events.synchronize(handle);
        } finally {
            life.exit();
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code end} is not an event of a native backend
     */
    @Override
    public float elapsedMillis(EventHandle end) {
        NativeEvent e = of(end);
        life.enter();
        try {
            e.life.enter();
            try {
                return events.elapsedMillis(handle, e.handle);
            } finally {
                e.life.exit();
            }
        } finally {
            life.exit();
        }
    }

    /** Records this event on native stream {@code stream}. */
    public void recordOn(long stream) {
        life.enter();
        try {
            events.record(handle, stream);
        } finally {
            life.exit();
        }
    }

    /** Makes native stream {@code stream} wait on the device for this event's last record. */
    public void waitOn(long stream) {
        life.enter();
        try {
            events.waitOnDevice(stream, handle);
        } finally {
            life.exit();
        }
    }

    /** The native handle (CUDA's {@code CUevent}, HIP's {@code hipEvent_t}); the event keeps it. */
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
        return "NativeEvent[0x" + Long.toHexString(handle) + "]";
    }
}
