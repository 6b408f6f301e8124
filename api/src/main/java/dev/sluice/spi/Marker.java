package dev.sluice.spi;

/**
 * A completion marker recorded in a stream after an operation: it becomes done once the device has
 * finished everything enqueued on that stream before it. The completion engine polls only the oldest
 * marker of each stream, from one thread per context, so {@link #isDone()} must be cheap and must not
 * block.
 */
public interface Marker {

    /**
     * A marker that is done from the start, standing for work that never reached the device (refused or dropped).
     * The public layer never hands it to a backend: {@code waitMarker} on it does nothing.
     */
    Marker DONE = new Marker() {
        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public boolean awaitDone(long timeoutNanos) {
            return true;
        }

        @Override
        public void release() {
        }

        @Override
        public String toString() {
            return "Marker.DONE";
        }
    };

    /**
     * Non-blocking check.
     *
     * @return true once all work before the marker has finished
     * @throws dev.sluice.DeviceException if the device faulted (the context's sticky error): the engine
     *                                    then fails every pending future of the context with it
     */
    boolean isDone();

    /**
     * Blocks the calling thread (the completion thread, under the blocking wait strategy) for at most
     * {@code timeoutNanos} or until the marker is done.
     *
     * @return whether the marker is done
     */
    boolean awaitDone(long timeoutNanos);

    /** Called once by the engine after the marker was seen done; a pool may reuse it. */
    void release();

    /**
     * A thread is about to wait for this marker, or is looking at a future it completes: a backend whose completion is
     * quicker to see when prepared before the work ends may prepare it now (CUDA's and HIP's completion counters, under
     * {@code -Dsluice.completion=awaited}). Called
     * by the engine outside any stream lock, from any thread, possibly many times and after the marker is done; cheap
     * after the first call. Does nothing by default.
     */
    default void awaited() {
    }
}
