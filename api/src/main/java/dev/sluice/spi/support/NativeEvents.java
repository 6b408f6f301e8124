package dev.sluice.spi.support;

/**
 * A native API's events, as {@link EventPool} and {@link NativeEvent} use them. A backend implements it once per
 * context with its driver calls (CUDA: {@code cuEventCreate}, {@code cuEventQuery}...; HIP: {@code hipEventCreateWithFlags},
 * {@code hipEventQuery}...), binding its device first where the API wants one current. Every method runs on the
 * calling thread; errors are thrown as {@link dev.sluice.SluiceException}s naming the native call.
 *
 * <p>For backend authors.
 */
public interface NativeEvents {

    /**
     * Creates an event for completion markers and internal ordering (timing disabled).
     *
     * @return the native handle, never 0
     */
    long create();

    /** Destroys {@code event}; called once per event, never while a stream is still to record or wait on it. */
    void destroy(long event);

    /**
     * One non-blocking query.
     *
     * @return whether all work captured by the event's last record has finished (true if never recorded)
     */
    boolean query(long event);

    /** Blocks until all work captured by the event's last record has finished. */
    void synchronize(long event);

    /** Milliseconds between two completed events recorded with timing. */
    float elapsedMillis(long start, long end);

    /** Records {@code event} on native stream {@code stream}. */
    void record(long event, long stream);

    /** Makes native stream {@code stream} wait on the device for {@code event}'s last record. */
    void waitOnDevice(long stream, long event);
}
