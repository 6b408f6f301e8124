package dev.sluice.spi;

/**
 * A gate in a stream that host code opens: the stream does not run past it until {@link #open()} is
 * called. CUDA and HIP implement it with a host-mapped flag and a stream wait-value operation; no host
 * thread blocks while the stream waits.
 */
public interface HostGate {

    /** Lets the stream continue. Idempotent; may be called from any thread. */
    void open();

    /**
     * Lets the stream continue, but marks the gate failed: the backend completes everything after it
     * on that stream as if the device had faulted with {@code cause}. Backends that cannot poison a
     * stream simply open the gate; the public layer then fails the affected futures itself.
     */
    default void fail(Throwable cause) {
        open();
    }
}
