package dev.sluice;

import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * The root of Sluice's unchecked exceptions. Where the backend reported the error, it carries the
 * backend's error name and code ({@code CUDA_ERROR_ILLEGAL_ADDRESS} / 700, {@code hipErrorOutOfMemory} / 2).
 */
public class SluiceException extends RuntimeException {

    /** The native error's name, if any. */
    private final @Nullable String errorName;
    /** The native error's code, if {@code hasCode}. */
    private final int errorCode;
    /** Whether there is a native error code. */
    private final boolean hasCode;

    /** An exception with {@code message} and no native error. */
    public SluiceException(String message) {
        this(message, null, null, null);
    }

    /** An exception with {@code message} and {@code cause}, and no native error. */
    public SluiceException(String message, @Nullable Throwable cause) {
        this(message, null, null, cause);
    }

    /**
     * An exception carrying the backend's error, for backends translating a native status.
     *
     * @param message   what failed, naming the call and its arguments
     * @param errorName the backend's name of the error, or null
     * @param errorCode the backend's numeric code, or null
     */
    public SluiceException(String message, @Nullable String errorName, @Nullable Integer errorCode, @Nullable Throwable cause) {
        super(message, cause);
        this.errorName = errorName;
        this.errorCode = errorCode == null ? 0 : errorCode;
        this.hasCode = errorCode != null;
    }

    /** The backend's name for the error, such as {@code CUDA_ERROR_OUT_OF_MEMORY}. */
    public Optional<String> errorName() {
        return Optional.ofNullable(errorName);
    }

    /** The backend's numeric error code. */
    public OptionalInt errorCode() {
        return hasCode ? OptionalInt.of(errorCode) : OptionalInt.empty();
    }
}
