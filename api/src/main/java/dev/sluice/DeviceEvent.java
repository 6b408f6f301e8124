package dev.sluice;

import dev.sluice.spi.EventHandle;
import java.time.Duration;
import java.util.Set;

/**
 * A point in a stream's work (CUDA's event). Record it with {@link DeviceStream#enqueueRecord}, make other
 * streams wait for it with {@link DeviceStream#waitFor(DeviceEvent)}, query or block on it here, and time
 * the work between two events recorded with {@link EventFlag#TIMING}. Re-recording moves the point; waits
 * and queries see the last record made before them. Thread-safe. {@link #close()} destroys it.
 */
public final class DeviceEvent implements AutoCloseable {

    private final DeviceContext context;
    final EventHandle handle;
    private final Set<EventFlag> flags;
    volatile boolean recorded;
    private volatile boolean closed;

    DeviceEvent(DeviceContext context, EventHandle handle, Set<EventFlag> flags) {
        this.context = context;
        this.handle = handle;
        this.flags = Set.copyOf(flags);
    }

    public DeviceContext context() {
        return context;
    }

    public Set<EventFlag> flags() {
        return flags;
    }

    /** Whether the work captured by the last record has finished; true if never recorded. Does not block. */
    public boolean query() {
        checkUsableOn(context);
        return !HoldingStream.recordHeld(handle) && handle.query();
    }

    /**
     * The backend's own event (CUDA: the {@code CUevent}; HIP: the {@code hipEvent_t}) as a native address, for
     * another library on the same device (to make its stream wait for this event, say). Sluice keeps owning it: never
     * destroy it, and stop using it once this event is closed. A record of this event that Sluice still holds behind a
     * wait for the host ({@link HostWaits#HOLD_ON_HOST}) has not reached the device yet.
     *
     * @throws UnsupportedOnBackendException on the CPU simulator, which has no driver event
     */
    public long nativeHandle() {
        checkUsableOn(context);
        return handle.nativeHandle();
    }

    /** Blocks until the work captured by the last record has finished (spinning, or sleeping with {@link EventFlag#BLOCKING_SYNC}). */
    public void synchronize() {
        checkUsableOn(context);
        HoldingStream.awaitRecordSubmitted(handle);
        handle.synchronize();
        context.checkUsable();
    }

    /**
     * Device time from this event's last record to {@code end}'s, with about half a microsecond of
     * resolution on GPUs. Both must carry {@link EventFlag#TIMING}, be recorded, and have completed.
     *
     * @throws InvalidArgumentException if a flag is missing, an event was never recorded, or the events
     *                                  belong to different contexts
     * @throws IllegalStateException    if either has not completed yet
     */
    public Duration elapsed(DeviceEvent end) {
        Checks.notNull("end", end);
        checkUsableOn(context);
        end.checkUsableOn(context);
        for (DeviceEvent e : new DeviceEvent[] {this, end}) {
            String name = e == this ? "start" : "end";
            if (!e.flags.contains(EventFlag.TIMING)) {
                throw new InvalidArgumentException(name, e + " was created without EventFlag.TIMING");
            }
            if (!e.recorded) {
                throw new InvalidArgumentException(name, e + " was never recorded");
            }
            if (HoldingStream.recordHeld(e.handle) || !e.handle.query()) {
                throw new IllegalStateException(name + " event " + e + " has not completed; synchronize on it first");
            }
        }
        float ms = handle.elapsedMillis(end.handle);
        return Duration.ofNanos(Math.round(ms * 1_000_000.0));
    }

    void checkUsableOn(DeviceContext c) {
        if (closed) {
            throw new ClosedResourceException(toString());
        }
        if (c != context) {
            throw new InvalidArgumentException("event", this + " belongs to another context than " + c);
        }
        context.checkUsable();
    }

    public boolean isClosed() {
        return closed;
    }

    /** Destroys the event; waits already enqueued on it still complete. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            handle.destroy();
            context.forget(this);
        }
    }

    @Override
    public String toString() {
        return "DeviceEvent[" + context.api().id() + ":" + context.id() + " " + flags + "]";
    }
}
