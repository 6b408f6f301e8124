package dev.sluice;

/** The backend asked for is absent: its library did not load, or it has fewer devices than the id asked for. */
public class BackendUnavailableException extends SluiceException {

    /** An exception with {@code message}, which names what was looked for and what was found. */
    public BackendUnavailableException(String message) {
        super(message);
    }
}
