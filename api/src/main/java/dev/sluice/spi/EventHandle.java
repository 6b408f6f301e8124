package dev.sluice.spi;

/** A backend event (see {@code DeviceEvent}). */
public interface EventHandle {

    /** Non-blocking: whether all work captured by the last record has finished (true if never recorded). */
    boolean query();

    /** Blocks until the work captured by the last record has finished. */
    void synchronize();

    /** Milliseconds between this event's and {@code end}'s recorded points; both have completed. */
    float elapsedMillis(EventHandle end);

    /** Destroys the native event; called once, when the public event is closed. */
    void destroy();

    /** The backend's own event handle (CUDA: the {@code CUevent}; HIP: the {@code hipEvent_t}). */
    default long nativeHandle() {
        throw new dev.sluice.UnsupportedOnBackendException("native event handles (this backend has no driver event to share)");
    }
}
