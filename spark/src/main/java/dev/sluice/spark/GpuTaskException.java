package dev.sluice.spark;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * A Spark task's GPU stage failed: bad input, the stage's device work failed, or the task's device has a sticky fault.
 * Its message names the task (stage, partition, attempt), the rows of the partition concerned and the device
 * ({@code backend:ordinal} on executor {@code id}), so that Spark's failure reason, which carries it, says where the
 * failure happened; its cause is the underlying exception, where there is one.
 *
 * <p>Spark retries a failed task up to {@code spark.task.maxFailures} times, and with {@code spark.excludeOnFailure}
 * stops scheduling on an executor whose tasks keep failing: a device with a sticky fault fails every task sent to it
 * ({@link #isDeviceFault()}), so that executor is excluded.
 */
public final class GpuTaskException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    /** Whether the task's device has a sticky fault. */
    private final boolean deviceFault;

    /**
     * A failure described by {@code message}, caused by {@code cause} (null if none); {@code deviceFault} where the
     * task's device is unusable for good.
     */
    public GpuTaskException(String message, @Nullable Throwable cause, boolean deviceFault) {
        super(message, cause);
        this.deviceFault = deviceFault;
    }

    /** A failure described by {@code message}, of the task's input or stage (the device is still usable). */
    public GpuTaskException(String message) {
        super(message);
        this.deviceFault = false;
    }

    /** Whether the task's device has a sticky fault: every later task on it fails as well, until the executor ends. */
    public boolean isDeviceFault() {
        return deviceFault;
    }
}
