package dev.sluice.kernel;

/** One token of kernel source, at a 1-based line and column. */
record Token(Kind kind, String text, int line, int column) {

    enum Kind { IDENT, INT, FLOAT, OP, END }

    String describe() {
        return kind == Kind.END ? "the end of the source" : "'" + text + "'";
    }
}
