package dev.sluice.spi;

/** A backend event (see {@code DeviceEvent}). */
public interface EventHandle {

    /** Non-blocking: whether all work captured by the last record has finished (true if never recorded). */
    boolean query();

    /** Blocks until the work captured by the last record has finished. */
    void synchronize();

    /** Milliseconds between this event's and {@code end}'s recorded points; both have completed. */
    float elapsedMillis(EventHandle end);

    void destroy();
}
