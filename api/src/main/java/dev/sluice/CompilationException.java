package dev.sluice;

import org.jspecify.annotations.Nullable;

/** Run-time compilation or module loading failed; {@link #log()} holds the compiler's or linker's log. */
public class CompilationException extends SluiceException {

    /** The compiler's log. */
    private final String log;

    /** An exception with the compiler's {@code log} and the native error, if any. */
    public CompilationException(String message, String log, @Nullable String errorName, @Nullable Integer errorCode) {
        super(message + (log.isBlank() ? "" : "\n" + log), errorName, errorCode, null);
        this.log = log;
    }

    /** The compiler's log: its errors and warnings, as it printed them. */
    public String log() {
        return log;
    }
}
