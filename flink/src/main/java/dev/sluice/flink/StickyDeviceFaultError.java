package dev.sluice.flink;

import dev.sluice.DeviceException;
import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * A sticky device fault that a {@link SluiceAsyncFunction} turns into a fatal error of its TaskManager: on CUDA a sticky
 * fault (an illegal address) leaves every context of the process unusable, so only a new process recovers. The
 * function throws it on Flink's task thread; being an {@link InternalError}, Flink's
 * {@code ExceptionUtils.isJvmFatalError} holds it fatal to the JVM, and the task halts the TaskManager's process, which
 * its deployment (Kubernetes, YARN, a supervisor) then replaces. See {@link SluiceAsyncFunction#fatalOnStickyFault}.
 *
 * <p>Its message names the device, the lane and the element; its cause is the element's {@link GpuStageException},
 * whose cause is the sticky {@link dev.sluice.DeviceException}.
 */
public final class StickyDeviceFaultError extends InternalError {

    @Serial
    private static final long serialVersionUID = 1L;

    /** The fatal error described by {@code message}, caused by the element's failure {@code cause}. */
    public StickyDeviceFaultError(String message, Throwable cause) {
        super(message, cause);
    }

    /** The sticky {@link DeviceException} among {@code failure}'s causes (32 deep at most), or null. */
    static @Nullable DeviceException stickyCause(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof DeviceException d && d.isSticky()) {
                return d;
            }
        }
        return null;
    }
}
