package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.kernel.Ast.Binary;
import dev.sluice.kernel.Ast.Call;
import dev.sluice.kernel.Ast.Cast;
import dev.sluice.kernel.Ast.Expr;
import dev.sluice.kernel.Ast.Literal;
import dev.sluice.kernel.Ast.Name;
import dev.sluice.kernel.Ast.Role;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
import dev.sluice.kernel.Ast.Ternary;
import dev.sluice.kernel.Ast.Unary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Types kernel source and resolves its names, so that every error is reported at build time with its position.
 * Implicit conversions are Java's widening ones; anything else needs a cast.
 */
final class Checker {

    /** The math functions, with their arity; the float-only ones refuse integers rather than converting silently. */
    static final Map<String, Integer> FUNCTIONS = Map.ofEntries(
            Map.entry("sqrt", 1), Map.entry("exp", 1), Map.entry("log", 1), Map.entry("sin", 1), Map.entry("cos", 1),
            Map.entry("floor", 1), Map.entry("ceil", 1), Map.entry("pow", 2), Map.entry("fma", 3), Map.entry("min", 2),
            Map.entry("max", 2), Map.entry("abs", 1));

    private final String kernel;
    private final String part;
    private final String source;
    private final Map<String, Symbol> symbols;
    private int locals;

    /** A checker for source in which {@code symbols} (parameters and built-ins, in order) are visible. */
    Checker(String kernel, String part, String source, Map<String, Symbol> symbols, int firstLocal) {
        this.kernel = kernel;
        this.part = part;
        this.source = source;
        this.symbols = new LinkedHashMap<>(symbols);
        this.locals = firstLocal;
    }

    /** The number of locals declared so far, counting from the first one given. */
    int localCount() {
        return locals;
    }

    void statements(List<Statement> statements) {
        for (Statement s : statements) {
            Ty valueType = expression(s.value());
            Token at = s.at();
            if (s.declared() != null) {
                Symbol existing = symbols.get(s.target());
                if (existing != null) {
                    throw error(at.line(), at.column(), "'" + s.target() + "' is already declared (" + describe(existing)
                            + "); give the local another name");
                }
                requireWidening(at, valueType, s.declared(), "the local " + s.target());
                Symbol local = new Symbol(s.target(), s.declared(), Role.LOCAL, locals++);
                s.resolved()[0] = local;
                symbols.put(s.target(), local);
            } else {
                Symbol target = lookup(at.line(), at.column(), s.target());
                if (target.role() != Role.OUTPUT_POINTER && target.role() != Role.LOCAL) {
                    throw error(at.line(), at.column(), "cannot assign to '" + s.target() + "' (" + describe(target)
                            + "); only outputs and locals can be assigned");
                }
                requireWidening(at, valueType, target.type(), (target.role() == Role.LOCAL ? "the local " : "the output ")
                        + target.name());
                s.resolved()[0] = target;
            }
        }
    }

    /** Types {@code e} and everything in it; returns its type. */
    Ty expression(Expr e) {
        Ty t = switch (e) {
            case Literal l -> l.type;
            case Name n -> {
                n.symbol = lookup(n.line, n.column, n.name);
                yield n.symbol.type();
            }
            case Unary u -> unary(u);
            case Binary b -> binary(b);
            case Ternary t2 -> ternary(t2);
            case Cast c -> {
                expression(c.operand);
                yield c.to;
            }
            case Call c -> call(c);
        };
        e.type = t;
        return t;
    }

    private Ty unary(Unary u) {
        Ty operand = expression(u.operand);
        if (u.op.equals("!")) {
            if (operand != Ty.BOOL) {
                throw error(u.line, u.column, "operator ! takes a bool, found " + operand + " (compare it, e.g. x != 0)");
            }
            return Ty.BOOL;
        }
        if (!operand.isNumeric()) {
            throw error(u.line, u.column, "operator " + u.op + " takes a number, found bool");
        }
        return operand.promoted();
    }

    /** Types a binary operation and the chain down its left operands, bottom up, in a loop (see {@link Ast#leftSpine}). */
    private Ty binary(Binary top) {
        List<Binary> spine = Ast.leftSpine(top);
        Ty l = expression(spine.getLast().left);
        for (int k = spine.size() - 1; k >= 0; k--) {
            Binary b = spine.get(k);
            l = binary(b, l, expression(b.right));
            b.type = l;
        }
        return l;
    }

    /** The type of {@code b}, whose operands are of types {@code l} and {@code r}. */
    private Ty binary(Binary b, Ty l, Ty r) {
        switch (b.op) {
            case "&&", "||" -> {
                if (l != Ty.BOOL || r != Ty.BOOL) {
                    throw error(b.line, b.column, "operator " + b.op + " takes bools, found " + l + " and " + r);
                }
                b.operandType = Ty.BOOL;
                return Ty.BOOL;
            }
            case "==", "!=" -> {
                if (l == Ty.BOOL && r == Ty.BOOL) {
                    b.operandType = Ty.BOOL;
                    return Ty.BOOL;
                }
                numbers(b, l, r);
                return Ty.BOOL;
            }
            case "<", "<=", ">", ">=" -> {
                numbers(b, l, r);
                return Ty.BOOL;
            }
            default -> {
                numbers(b, l, r);
                return b.operandType;
            }
        }
    }

    private void numbers(Binary b, Ty l, Ty r) {
        if (!l.isNumeric() || !r.isNumeric()) {
            throw error(b.line, b.column, "operator " + b.op + " takes numbers, found " + l + " and " + r);
        }
        b.operandType = Ty.common(l, r);
    }

    private Ty ternary(Ternary t) {
        Ty c = expression(t.condition);
        if (c != Ty.BOOL) {
            throw error(t.condition.line, t.condition.column, "the condition of ?: must be a bool, found " + c);
        }
        Ty a = expression(t.whenTrue);
        Ty b = expression(t.whenFalse);
        if (a == Ty.BOOL && b == Ty.BOOL) {
            return Ty.BOOL;
        }
        if (a == Ty.BOOL || b == Ty.BOOL) {
            throw error(t.line, t.column, "the branches of ?: must both be numbers or both bools, found " + a + " and " + b);
        }
        return a == b ? a : Ty.common(a, b);
    }

    private Ty call(Call c) {
        Integer arity = FUNCTIONS.get(c.function);
        if (arity == null) {
            Symbol s = symbols.get(c.function);
            throw error(c.line, c.column, s != null ? "'" + c.function + "' is " + describe(s) + ", not a function"
                    : "unknown function '" + c.function + "'; the functions are " + FUNCTIONS.keySet().stream().sorted().toList());
        }
        if (c.arguments.size() != arity) {
            throw error(c.line, c.column, c.function + " takes " + arity + " argument" + (arity == 1 ? "" : "s")
                    + ", found " + c.arguments.size());
        }
        Ty common = null;
        for (Expr a : c.arguments) {
            Ty t = expression(a);
            if (!t.isNumeric()) {
                throw error(a.line, a.column, c.function + " takes numbers, found bool");
            }
            boolean floatOnly = !c.function.equals("min") && !c.function.equals("max") && !c.function.equals("abs");
            if (floatOnly && !t.isFloat()) {
                throw error(a.line, a.column, c.function + " takes f32 or f64, found " + t + "; cast it, e.g. (f32) x");
            }
            common = common == null ? t.promoted() : Ty.common(common, t);
        }
        c.argumentType = common;
        return common;
    }

    private void requireWidening(Token at, Ty from, Ty to, String what) {
        if (!from.widensTo(to)) {
            throw error(at.line(), at.column(), "cannot assign a value of type " + from + " to " + what + " of type " + to
                    + " without a cast, e.g. (" + to + ") ...");
        }
    }

    private Symbol lookup(int line, int column, String name) {
        Symbol s = symbols.get(name);
        if (s == null) {
            throw error(line, column, "unknown name '" + name + "'; the names here are " + List.copyOf(symbols.keySet()));
        }
        return s;
    }

    private static String describe(Symbol s) {
        return switch (s.role()) {
            case INPUT_POINTER -> "an input of type " + s.type();
            case OUTPUT_POINTER -> "an output of type " + s.type();
            case SCALAR -> "a scalar input of type " + s.type();
            case LOCAL -> "a local of type " + s.type();
            case INDEX -> "the element index";
            case COUNT -> "the element count";
            case ACCUMULATOR -> "a reduced value of type " + s.type();
        };
    }

    private CompilationException error(int line, int column, String problem) {
        return SourceError.at(kernel, part, source, line, column, problem);
    }
}
