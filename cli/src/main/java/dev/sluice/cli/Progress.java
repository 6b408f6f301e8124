package dev.sluice.cli;

import java.io.PrintStream;

/** A progress line on standard error, redrawn in place, shown only when standard error is a terminal. */
final class Progress {

    private static final int BAR = 30;

    private final PrintStream err;
    private final boolean terminal;

    Progress(PrintStream err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    /** Draws {@code what [####    ] done/total}. */
    void show(String what, long done, long total) {
        if (terminal) {
            int filled = (int) (BAR * done / Math.max(1, total));
            err.print("\r" + what + " [" + "#".repeat(filled) + " ".repeat(BAR - filled) + "] " + done + "/" + total + "   ");
            err.flush();
        }
    }

    /** Clears the line. */
    void end() {
        if (terminal) {
            err.print("\r" + " ".repeat(70) + "\r");
            err.flush();
        }
    }
}
