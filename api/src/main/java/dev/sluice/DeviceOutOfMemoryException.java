package dev.sluice;

import org.jspecify.annotations.Nullable;

/** An allocation of device or pinned host memory did not fit. Nothing was allocated. */
public class DeviceOutOfMemoryException extends SluiceException {

    private final long requestedBytes;

    public DeviceOutOfMemoryException(String message, long requestedBytes, @Nullable String errorName, @Nullable Integer errorCode) {
        super(message, errorName, errorCode, null);
        this.requestedBytes = requestedBytes;
    }

    public long requestedBytes() {
        return requestedBytes;
    }
}
