package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.kernel.Ast.Binary;
import dev.sluice.kernel.Ast.Call;
import dev.sluice.kernel.Ast.Cast;
import dev.sluice.kernel.Ast.Expr;
import dev.sluice.kernel.Ast.Literal;
import dev.sluice.kernel.Ast.Name;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Ternary;
import dev.sluice.kernel.Ast.Unary;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parses kernel source by recursive descent. Precedence, lowest first, as in C: {@code ?:}, {@code ||}, {@code &&},
 * {@code == !=}, {@code < <= > >=}, {@code + -}, {@code * / %}, unary {@code - !} and casts.
 *
 * <p>Recursion is bounded: a chain of one precedence level ({@code a + b + c ...}) is parsed in a loop into a left spine,
 * which the checker and the generators walk in loops too, so its length is limited only by the JVM's code size; every
 * other way of nesting (parentheses, unary operators, casts, call arguments, the branches of {@code ?:}) counts towards
 * {@link #MAX_NESTING}, so that no source can overflow the stack of the parser, the checker or a generator.
 */
final class Parser {

    /**
     * The deepest nesting of parentheses, unary operators, casts, call arguments and {@code ?:} branches an expression
     * may have; C guarantees 63 levels of parentheses, and the generated C++ nests a few brackets per level.
     */
    static final int MAX_NESTING = 64;

    private final String kernel;
    private final String part;
    private final String source;
    private final List<Token> tokens;
    private int next;
    /** The nesting entered so far: {@link #nest} and {@link #unnest} around each construct that nests. */
    private int depth;

    Parser(String kernel, String part, String source) {
        this.kernel = kernel;
        this.part = part;
        this.source = source;
        this.tokens = new Lexer(kernel, part, source).tokens();
    }

    /** Statements separated by {@code ;}; the last may omit it. */
    List<Statement> statements() {
        List<Statement> out = new ArrayList<>();
        while (peek().kind() != Token.Kind.END) {
            out.add(statement());
            if (peek().kind() == Token.Kind.END) {
                break;
            }
            expect(";", "';' between statements");
            while (isOp(";")) {
                next++;
            }
        }
        if (out.isEmpty()) {
            throw error(peek(), "expected a statement, found the end of the source");
        }
        return out;
    }

    /** One expression and nothing after it. */
    Expr wholeExpression() {
        Expr e = expression();
        if (peek().kind() != Token.Kind.END) {
            throw error(peek(), "expected the end of the expression, found " + peek().describe());
        }
        return e;
    }

    private Statement statement() {
        Token first = peek();
        if (first.kind() == Token.Kind.IDENT) {
            Optional<Ty> declared = Ty.ofWord(first.text());
            if (declared.isPresent()) {
                next++;
                Token name = peek();
                if (name.kind() != Token.Kind.IDENT || Ty.ofWord(name.text()).isPresent() || isKeyword(name.text())) {
                    throw error(name, "expected the name of the new " + declared.get() + " local, found " + name.describe());
                }
                next++;
                expect("=", "'=' and the initial value of " + name.text());
                return new Statement(name, declared.get(), name.text(), expression());
            }
            next++;
            if (isOp("=")) {
                next++;
                return new Statement(first, null, first.text(), expression());
            }
            next--;
        }
        throw error(first, "expected a statement (a declaration 'f32 t = ...' or an assignment 'y = ...'), found "
                + first.describe());
    }

    private Expr expression() {
        Expr condition = binary(0);
        if (isOp("?")) {
            Token at = tokens.get(next++);
            nest(at);
            Expr whenTrue = expression();
            expect(":", "':' of the conditional expression");
            Expr whenFalse = expression();
            unnest();
            return new Ternary(at, condition, whenTrue, whenFalse);
        }
        return condition;
    }

    private static final List<List<String>> LEVELS = List.of(
            List.of("||"), List.of("&&"), List.of("==", "!="), List.of("<", "<=", ">", ">="), List.of("+", "-"),
            List.of("*", "/", "%"));

    private Expr binary(int level) {
        if (level == LEVELS.size()) {
            return unary();
        }
        Expr left = binary(level + 1);
        while (peek().kind() == Token.Kind.OP && LEVELS.get(level).contains(peek().text())) {
            Token op = tokens.get(next++);
            left = new Binary(op, op.text(), left, binary(level + 1));
        }
        return left;
    }

    private Expr unary() {
        Token t = peek();
        if (isOp("-") && tokens.get(next + 1).kind() == Token.Kind.INT) {
            next += 2;
            return integer(tokens.get(next - 1), t);
        }
        if (isOp("-") || isOp("!") || isOp("+")) {
            next++;
            nest(t);
            Expr operand = unary();
            unnest();
            return t.text().equals("+") ? operand : new Unary(t, t.text(), operand);
        }
        if (isOp("(") && tokens.get(next + 1).kind() == Token.Kind.IDENT && Ty.ofWord(tokens.get(next + 1).text()).isPresent()) {
            next += 2;
            Ty to = Ty.ofWord(tokens.get(next - 1).text()).orElseThrow();
            expect(")", "')' closing the cast to " + to);
            nest(t);
            Cast cast = new Cast(t, to, unary());
            unnest();
            return cast;
        }
        return primary();
    }

    private Expr primary() {
        Token t = peek();
        switch (t.kind()) {
            case INT -> {
                next++;
                return integer(t, null);
            }
            case FLOAT -> {
                next++;
                boolean single = t.text().endsWith("f") || t.text().endsWith("F");
                String digits = single ? t.text().substring(0, t.text().length() - 1) : t.text();
                double value = Double.parseDouble(digits);
                if (single && Float.isInfinite((float) value) || Double.isInfinite(value)) {
                    throw error(t, "the literal " + t.text() + " is too large for " + (single ? "f32" : "f64"));
                }
                return single ? new Literal(t, Ty.F32, 0, Float.parseFloat(digits)) : new Literal(t, Ty.F64, 0, value);
            }
            case IDENT -> {
                next++;
                if (t.text().equals("true") || t.text().equals("false")) {
                    return new Literal(t, Ty.BOOL, t.text().equals("true") ? 1 : 0, 0);
                }
                if (Ty.ofWord(t.text()).isPresent()) {
                    throw error(t, "expected an expression, found the type " + t.text()
                            + " (a cast is written '(" + t.text() + ") value')");
                }
                if (isOp("(")) {
                    next++;
                    nest(t);
                    List<Expr> args = new ArrayList<>();
                    if (!isOp(")")) {
                        args.add(expression());
                        while (isOp(",")) {
                            next++;
                            args.add(expression());
                        }
                    }
                    expect(")", "')' closing the arguments of " + t.text());
                    unnest();
                    return new Call(t, t.text(), List.copyOf(args));
                }
                return new Name(t, t.text());
            }
            case OP -> {
                if (t.text().equals("(")) {
                    next++;
                    nest(t);
                    Expr inner = expression();
                    expect(")", "')'");
                    unnest();
                    return inner;
                }
                throw error(t, "expected an expression, found " + t.describe());
            }
            default -> throw error(t, "expected an expression, found " + t.describe());
        }
    }

    /** An integer literal: i32 unless suffixed {@code L}; {@code minus} is the '-' before it, if any. */
    private Expr integer(Token t, Token minus) {
        boolean wide = t.text().endsWith("L");
        String digits = wide ? t.text().substring(0, t.text().length() - 1) : t.text();
        BigInteger v = new BigInteger(digits);
        if (minus != null) {
            v = v.negate();
        }
        int bits = wide ? 63 : 31;
        if (v.bitLength() > bits) {
            throw error(minus != null ? minus : t, "the literal " + (minus != null ? "-" : "") + t.text() + " does not fit "
                    + (wide ? "i64" : "i32 (add L for i64)"));
        }
        return new Literal(minus != null ? minus : t, wide ? Ty.I64 : Ty.I32, v.longValue(), 0);
    }

    /** One level deeper, entered at {@code at}: refused past {@link #MAX_NESTING}, where {@code at} is. */
    private void nest(Token at) {
        if (++depth > MAX_NESTING) {
            throw error(at, "expression nested deeper than " + MAX_NESTING + " levels (parentheses, unary operators,"
                    + " casts, call arguments and ?: branches each nest one); split it into locals");
        }
    }

    private void unnest() {
        depth--;
    }

    private static boolean isKeyword(String word) {
        return word.equals("true") || word.equals("false");
    }

    private Token peek() {
        return tokens.get(next);
    }

    private boolean isOp(String op) {
        Token t = peek();
        return t.kind() == Token.Kind.OP && t.text().equals(op);
    }

    private void expect(String op, String what) {
        if (!isOp(op)) {
            throw error(peek(), "expected " + what + ", found " + peek().describe());
        }
        next++;
    }

    private CompilationException error(Token at, String problem) {
        return SourceError.at(kernel, part, source, at.line(), at.column(), problem);
    }
}
