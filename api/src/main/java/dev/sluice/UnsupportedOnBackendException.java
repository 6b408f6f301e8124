package dev.sluice;

import org.jspecify.annotations.Nullable;

/** The backend (or this device) does not offer the feature asked for. */
public class UnsupportedOnBackendException extends SluiceException {

    /** An exception saying that {@code feature} is not supported on {@code api}. */
    public UnsupportedOnBackendException(String feature, @Nullable Api api) {
        super(feature + " is not supported" + (api == null ? "" : " on " + api.id()));
    }

    /** An exception with {@code message}. */
    public UnsupportedOnBackendException(String message) {
        super(message);
    }
}
