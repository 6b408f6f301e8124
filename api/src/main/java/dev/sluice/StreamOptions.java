package dev.sluice;

/**
 * Options for {@link DeviceContext#createStream(StreamOptions)}.
 *
 * @param nonBlocking the stream does not synchronise with the legacy default stream (CUDA's
 *                    {@code CU_STREAM_NON_BLOCKING}); true by default, since Sluice never relies on
 *                    implicit synchronisation
 * @param priority    scheduling priority; lower numbers run first on CUDA and HIP. Must lie within
 *                    {@link DeviceContext#streamPriorityRange()}; 0 is the default priority everywhere
 */
public record StreamOptions(boolean nonBlocking, int priority) {

    /** Non-blocking, priority 0. */
    public static StreamOptions defaults() {
        return new StreamOptions(true, 0);
    }

    /** These options with priority {@code p} (see {@code DeviceContext.streamPriorityRange()}). */
    public StreamOptions withPriority(int p) {
        return new StreamOptions(nonBlocking, p);
    }

    /** These options with non-blocking set to {@code nb}: no implicit synchronisation with the legacy default stream. */
    public StreamOptions withNonBlocking(boolean nb) {
        return new StreamOptions(nb, priority);
    }
}
