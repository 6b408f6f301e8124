package dev.sluice;

/**
 * Flags of a device context (CUDA's {@code CUctx_flags}), given with {@link ContextOptions#withContextFlags} and
 * read back with {@link DeviceContext#contextFlags()}. The scheduling flags say how a host thread waits inside the
 * driver's own blocking calls (a synchronize on the driver, and other libraries sharing the context); Sluice's
 * completion thread waits by its {@link WaitStrategy} whatever they say. At most one {@code SCHEDULE_} flag.
 *
 * <p>Per backend: CUDA creates a context of its own with the flags ({@code cuCtxCreate}), or sets them on the
 * device's primary context ({@code cuDevicePrimaryCtxSetFlags}), which the whole process shares: refused while other
 * Sluice contexts use the primary context with other flags. HIP refuses non-empty flags
 * ({@link UnsupportedOnBackendException}): HIP sets such flags once per process and device, before first use. The
 * CPU simulator accepts and reports them; they change nothing there.
 */
public enum ContextFlag {
    /** Spin while waiting for the device: lowest latency, one core busy. */
    SCHEDULE_SPIN,
    /** Yield the thread while waiting for the device. */
    SCHEDULE_YIELD,
    /** Block on an operating-system primitive while waiting for the device: no core busy, more latency. */
    SCHEDULE_BLOCKING_SYNC,
    /** Keep the local memory grown for a launch instead of shrinking it back after (less allocation churn). */
    LOCAL_MEMORY_RESIZE_TO_MAX,
    /** Write a GPU core dump when a kernel raises an exception in this context. */
    COREDUMP_ON_EXCEPTION,
    /** Make synchronous memory operations on this context synchronize with the device. */
    SYNC_MEMORY_OPERATIONS;

    boolean isScheduling() {
        return this == SCHEDULE_SPIN || this == SCHEDULE_YIELD || this == SCHEDULE_BLOCKING_SYNC;
    }
}
