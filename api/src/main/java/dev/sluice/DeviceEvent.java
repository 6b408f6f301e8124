package dev.sluice;

import dev.sluice.engine.LeakDetector;
import dev.sluice.engine.OwnedHandle;
import dev.sluice.spi.EventHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A point in a stream's work (CUDA's event). Record it with {@link DeviceStream#enqueueRecord}, make other
 * streams wait for it with {@link DeviceStream#waitFor(DeviceEvent)}, query or block on it here, and time
 * the work between two events recorded with {@link EventFlag#TIMING}. Re-recording moves the point; waits
 * and queries see the last record made before them. Thread-safe: every method, {@link #close()} included, may be
 * called from any thread, at the same time as any other. {@link #close()} destroys it exactly once; every later call
 * but {@link #close()}, {@link #isClosed()}, {@link #context()} and {@link #flags()} throws
 * {@link ClosedResourceException}.
 *
 * <p><b>Resources:</b> {@link #close()} destroys the native event; closing the context destroys the events it still
 * owns. An event that became unreachable while open is destroyed by the leak detector (property
 * {@code sluice.leakDetection}) and reported as a leak; a record or wait enqueued on it keeps it reachable until the
 * device has finished that operation, and a graph that captured one keeps it as long as the graph and its replays.
 * One whose {@link #nativeHandle()} was taken is reported but left to its context's close.
 */
public final class DeviceEvent implements AutoCloseable {

    private final DeviceContext context;
    final EventHandle handle;
    private final Set<EventFlag> flags;
    volatile boolean recorded;
    /** The native event as the context owns it: registered with the context in this event's place. */
    final OwnedHandle owned;
    /** The registration with the leak detector; cleaned by {@link #close()}. */
    private final Cleaner.Cleanable cleanable;

    DeviceEvent(DeviceContext context, EventHandle handle, Set<EventFlag> flags) {
        Set<EventFlag> set = Set.copyOf(flags);
        OwnedHandle o = context.core.own(handle::destroy);
        this.context = context;
        this.handle = handle;
        this.flags = set;
        this.owned = o;
        this.cleanable = LeakDetector.watch(this, o.closedFlag(),
                () -> "DeviceEvent[" + context.backendName() + ":" + context.id() + " " + set + "]", o::releaseLeaked);
    }

    /** The context that created this event; only its streams may record or wait for it. Readable after close. */
    public DeviceContext context() {
        return context;
    }

    /** The flags the event was created with; unmodifiable, empty for none. Readable after close. */
    public Set<EventFlag> flags() {
        return flags;
    }

    /** Whether the work captured by the last record has finished; true if never recorded. Does not block. */
    public boolean query() {
        checkUsableOn(context);
        try {
            return !context.core.heldRecords().isHeld(handle) && handle.query();
        } finally {
            Reference.reachabilityFence(this); // not destroyed by the leak detector under the call
        }
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
        try {
            long h = handle.nativeHandle();
            owned.handOut("its native handle was handed out and may still be in use"); // left to the context's close
            return h;
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Blocks until the work captured by the last record has finished (spinning, or sleeping with
     * {@link EventFlag#BLOCKING_SYNC}); returns at once if the event was never recorded.
     *
     * <p>Where the last record is still held on the host behind a wait for the host ({@link HostWaits#HOLD_ON_HOST}),
     * this first waits until it has been submitted; that part ends on {@link Thread#interrupt()} with a
     * {@link SluiceException} whose cause is the {@link InterruptedException}, the thread's interrupt flag staying
     * set. The wait in the driver that follows cannot be cut short: an interrupt arriving then leaves the flag set and
     * the call returns once the work has finished.
     *
     * @throws IllegalStateException    on a completion thread ({@code sluice-completion-*}, whose futures the wait may
     *                                  need) or on a host-function thread of this event's context
     *                                  ({@code sluice-host-*}, whose stream is held until the function returns):
     *                                  either would wedge the context
     * @throws ClosedResourceException  if the event or its context is closed
     * @throws DeviceException          if the context faulted
     */
    public void synchronize() {
        SyncStream.refuseBlocking(context, "DeviceEvent.synchronize");
        checkUsableOn(context);
        try {
            awaitRecordSubmitted();
            handle.synchronize();
        } finally {
            Reference.reachabilityFence(this);
        }
        context.checkUsable();
    }

    /** Waits, interruptibly, until no record of this event is held on the host any more. */
    private void awaitRecordSubmitted() {
        long pause = 1_000;
        while (context.core.heldRecords().isHeld(handle)) {
            if (Thread.currentThread().isInterrupted()) {
                InterruptedException cause = new InterruptedException();
                throw new SluiceException("interrupted while waiting for a held record of " + this
                        + " to be submitted (the record itself goes on)", cause);
            }
            checkUsableOn(context);
            LockSupport.parkNanos(this, pause);
            pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(1));
        }
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
            if (e.context.core.heldRecords().isHeld(e.handle) || !e.handle.query()) {
                throw new IllegalStateException(name + " event " + e + " has not completed; synchronize on it first");
            }
        }
        float ms;
        try {
            ms = handle.elapsedMillis(end.handle);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(end);
        }
        return Duration.ofNanos(Math.round(ms * 1_000_000.0));
    }

    void checkUsableOn(DeviceContext c) {
        if (owned.isClosed()) {
            throw new ClosedResourceException(toString());
        }
        if (c != context) {
            throw new InvalidArgumentException("event", this + " belongs to another context than " + c);
        }
        context.checkUsable();
    }

    /** Whether {@link #close()} has been called; the answer may be stale as soon as another thread closes it. */
    public boolean isClosed() {
        return owned.isClosed();
    }

    /**
     * Destroys the event; waits already enqueued on it still complete. Idempotent and safe from any thread, at the
     * same time as any other call: of concurrent callers exactly one destroys it, and every call returns without
     * waiting for the device. A {@link #synchronize()} running in another thread at the time still returns normally or
     * with {@link ClosedResourceException}; the backend destroys the native event once no call is using it.
     */
    @Override
    public void close() {
        if (owned.close()) {
            cleanable.clean(); // unregisters from the leak detector; its action sees the event closed
        }
    }

    @Override
    public String toString() {
        return "DeviceEvent[" + context.backendName() + ":" + context.id() + " " + flags + "]";
    }
}
