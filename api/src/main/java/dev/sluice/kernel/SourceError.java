package dev.sluice.kernel;

import dev.sluice.CompilationException;

/** Builds the {@link CompilationException} for an error at a position of a kernel's source. */
final class SourceError {

    private SourceError() {
    }

    /**
     * "kernel saxpy, body, line 1, column 9: expected an expression, found ';'", with the offending line and a caret
     * under the column as the log.
     */
    static CompilationException at(String kernel, String part, String source, int line, int column, String problem) {
        String[] lines = source.split("\n", -1);
        String text = line >= 1 && line <= lines.length ? lines[line - 1] : "";
        String caret = " ".repeat(Math.max(0, column - 1)) + "^";
        return new CompilationException("kernel " + kernel + ", " + part + ", line " + line + ", column " + column + ": "
                + problem, text + "\n" + caret, null, null);
    }
}
