package dev.sluice;

/** A context, stream, buffer, event or function was used after it was closed. */
public class ClosedResourceException extends SluiceException {

    /** An exception naming {@code what} was used after it was closed. */
    public ClosedResourceException(String what) {
        super(what + " is closed");
    }
}
