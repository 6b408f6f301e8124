package dev.sluice;

import org.jspecify.annotations.Nullable;

/** An allocation of device or pinned host memory did not fit. Nothing was allocated. */
public class DeviceOutOfMemoryException extends SluiceException {

    /** The bytes asked for. */
    private final long requestedBytes;

    /** An exception for an allocation of {@code requestedBytes} that the device refused. */
    public DeviceOutOfMemoryException(String message, long requestedBytes, @Nullable String errorName, @Nullable Integer errorCode) {
        super(message, errorName, errorCode, null);
        this.requestedBytes = requestedBytes;
    }

    /** The bytes the failed allocation asked for. */
    public long requestedBytes() {
        return requestedBytes;
    }
}
