package dev.sluice;

import org.jspecify.annotations.Nullable;

/** The backend (or this device) does not offer the feature asked for. */
public class UnsupportedOnBackendException extends SluiceException {

    public UnsupportedOnBackendException(String feature, @Nullable Api api) {
        super(feature + " is not supported" + (api == null ? "" : " on " + api.id()));
    }

    public UnsupportedOnBackendException(String message) {
        super(message);
    }
}
