package dev.sluice.kernel;

import dev.sluice.CompilationException;
import java.util.ArrayList;
import java.util.List;

/** Splits kernel source into tokens; {@code //} comments run to the end of the line. */
final class Lexer {

    private static final List<String> OPERATORS = List.of(
            "&&", "||", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "<", ">", "!", "?", ":", "=", "(", ")", ",", ";");

    private final String kernel;
    private final String part;
    private final String source;
    private int pos;
    private int line = 1;
    private int lineStart;

    Lexer(String kernel, String part, String source) {
        this.kernel = kernel;
        this.part = part;
        this.source = source;
    }

    List<Token> tokens() {
        List<Token> out = new ArrayList<>();
        while (true) {
            skipSpaceAndComments();
            int column = pos - lineStart + 1;
            if (pos >= source.length()) {
                out.add(new Token(Token.Kind.END, "", line, column));
                return out;
            }
            char c = source.charAt(pos);
            if (Character.isLetter(c) || c == '_') {
                int start = pos;
                while (pos < source.length() && (Character.isLetterOrDigit(source.charAt(pos)) || source.charAt(pos) == '_')) {
                    pos++;
                }
                out.add(new Token(Token.Kind.IDENT, source.substring(start, pos), line, column));
            } else if (Character.isDigit(c) || (c == '.' && pos + 1 < source.length() && Character.isDigit(source.charAt(pos + 1)))) {
                out.add(number(column));
            } else {
                String op = null;
                for (String o : OPERATORS) {
                    if (source.startsWith(o, pos)) {
                        op = o;
                        break;
                    }
                }
                if (op == null) {
                    throw error(column, "unexpected character '" + c + "'");
                }
                pos += op.length();
                out.add(new Token(Token.Kind.OP, op, line, column));
            }
        }
    }

    /** A number: digits, an optional fraction and exponent, and a suffix: {@code L} (i64) or {@code f} (f32). */
    private Token number(int column) {
        int start = pos;
        boolean floating = false;
        while (pos < source.length() && Character.isDigit(source.charAt(pos))) {
            pos++;
        }
        if (pos < source.length() && source.charAt(pos) == '.') {
            floating = true;
            pos++;
            while (pos < source.length() && Character.isDigit(source.charAt(pos))) {
                pos++;
            }
        }
        if (pos < source.length() && (source.charAt(pos) == 'e' || source.charAt(pos) == 'E')) {
            floating = true;
            pos++;
            if (pos < source.length() && (source.charAt(pos) == '+' || source.charAt(pos) == '-')) {
                pos++;
            }
            int digits = pos;
            while (pos < source.length() && Character.isDigit(source.charAt(pos))) {
                pos++;
            }
            if (digits == pos) {
                throw error(pos - lineStart + 1, "expected the digits of an exponent");
            }
        }
        if (pos < source.length() && (source.charAt(pos) == 'f' || source.charAt(pos) == 'F')) {
            floating = true;
            pos++;
        } else if (!floating && pos < source.length() && source.charAt(pos) == 'L') {
            pos++;
        }
        if (pos < source.length() && (Character.isLetterOrDigit(source.charAt(pos)) || source.charAt(pos) == '_')) {
            throw error(pos - lineStart + 1, "unexpected '" + source.charAt(pos) + "' after the number "
                    + source.substring(start, pos) + " (suffixes: f for f32, L for i64)");
        }
        return new Token(floating ? Token.Kind.FLOAT : Token.Kind.INT, source.substring(start, pos), line, column);
    }

    private void skipSpaceAndComments() {
        while (pos < source.length()) {
            char c = source.charAt(pos);
            if (c == '\n') {
                pos++;
                line++;
                lineStart = pos;
            } else if (Character.isWhitespace(c)) {
                pos++;
            } else if (source.startsWith("//", pos)) {
                while (pos < source.length() && source.charAt(pos) != '\n') {
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    private CompilationException error(int column, String problem) {
        return SourceError.at(kernel, part, source, line, column, problem);
    }
}
