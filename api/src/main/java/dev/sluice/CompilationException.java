package dev.sluice;

import org.jspecify.annotations.Nullable;

/** Run-time compilation or module loading failed; {@link #log()} holds the compiler's or linker's log. */
public class CompilationException extends SluiceException {

    private final String log;

    public CompilationException(String message, String log, @Nullable String errorName, @Nullable Integer errorCode) {
        super(message + (log.isBlank() ? "" : "\n" + log), errorName, errorCode, null);
        this.log = log;
    }

    public String log() {
        return log;
    }
}
