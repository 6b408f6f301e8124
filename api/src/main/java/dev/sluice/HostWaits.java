package dev.sluice;

/**
 * How a stream waits for the host: for a {@link java.util.concurrent.CompletionStage} passed to
 * {@link DeviceStream#waitFor(java.util.concurrent.CompletionStage)}, and for a host function's turn
 * ({@link DeviceStream#enqueueHostFunction(Runnable)}). Either way no host thread blocks and stream order is kept.
 */
public enum HostWaits {
    /**
     * Work enqueued after the wait is held, in order, on the host and submitted to the device by the thread
     * that ends the wait (the one completing the stage, or the host function's thread). The device never waits
     * for the host, so nothing else on the device is held up. The default, on every backend.
     */
    HOLD_ON_HOST,
    /**
     * The wait is enqueued on the device (CUDA, HIP: a stream wait on a host-mapped flag that the host sets), and
     * work after it is submitted at once. It saves submitting the held work after the wait ends, but on CUDA a
     * stream waiting on the device makes loading a module ({@link DeviceContext#compile}) and a synchronous free
     * wait until it is released, and eight or more such streams stall the other streams of the device (measured;
     * see docs/architecture.md, "Waiting for the host"). Use it only where no such call is made while a wait is
     * pending.
     */
    GATE_ON_DEVICE
}
