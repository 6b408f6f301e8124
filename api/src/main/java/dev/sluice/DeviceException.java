package dev.sluice;

import org.jspecify.annotations.Nullable;

/**
 * The device reported an error. When {@link #isSticky()} is true the context is faulted (an illegal
 * address, a kernel that threw on the CPU backend): every pending future of the context has completed
 * exceptionally with this exception, and every later call on the context fails with it at once. A sticky error that
 * the driver returns to an enqueuing call (which then throws it) faults the context the same way, on its completion
 * thread, just after the call returns. On CUDA such an error reaches every context of the process, every device's.
 */
public class DeviceException extends SluiceException {

    /** Whether the error leaves the context unusable. */
    private final boolean sticky;

    /** An exception with the native error's name and code, and whether it is sticky. */
    public DeviceException(String message, @Nullable String errorName, @Nullable Integer errorCode, boolean sticky,
            @Nullable Throwable cause) {
        super(message, errorName, errorCode, cause);
        this.sticky = sticky;
    }

    /** Whether this error faulted the whole context. */
    public boolean isSticky() {
        return sticky;
    }
}
