package dev.sluice.kernel;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** The syntax tree of kernel source. The checker fills in each expression's {@link Expr#type} and each name's meaning. */
final class Ast {

    private Ast() {
    }

    /** An expression at a 1-based line and column; {@link #type} is set by {@link Checker}. */
    abstract static sealed class Expr permits Literal, Name, Unary, Binary, Ternary, Cast, Call {
        final int line;
        final int column;
        Ty type;

        Expr(Token at) {
            this.line = at.line();
            this.column = at.column();
        }
    }

    /** A number or {@code true}/{@code false}: {@code bits} holds an integer's value, {@code real} a float's. */
    static final class Literal extends Expr {
        final long bits;
        final double real;

        Literal(Token at, Ty type, long bits, double real) {
            super(at);
            this.type = type;
            this.bits = bits;
            this.real = real;
        }
    }

    /** A use of a name: a parameter, a local, or a built-in ({@code i}, {@code n}). */
    static final class Name extends Expr {
        final String name;
        Symbol symbol;

        Name(Token at, String name) {
            super(at);
            this.name = name;
        }
    }

    static final class Unary extends Expr {
        final String op;
        final Expr operand;

        Unary(Token at, String op, Expr operand) {
            super(at);
            this.op = op;
            this.operand = operand;
        }
    }

    /** A binary operation; {@link #operandType} is the type the operands are converted to before it. */
    static final class Binary extends Expr {
        final String op;
        final Expr left;
        final Expr right;
        Ty operandType;

        Binary(Token at, String op, Expr left, Expr right) {
            super(at);
            this.op = op;
            this.left = left;
            this.right = right;
        }
    }

    /**
     * {@code top} and the binary operations down its left operands, top first: {@code a + b - c} gives the {@code -},
     * then the {@code +}. A chain of one precedence level ({@code a + b + c ...}) has no depth limit in the parser, so
     * the checker and the generators walk it in a loop, from the last element up, rather than recursing down it.
     */
    static List<Binary> leftSpine(Binary top) {
        List<Binary> spine = new ArrayList<>();
        for (Expr e = top; e instanceof Binary b; e = b.left) {
            spine.add(b);
        }
        return spine;
    }

    static final class Ternary extends Expr {
        final Expr condition;
        final Expr whenTrue;
        final Expr whenFalse;

        Ternary(Token at, Expr condition, Expr whenTrue, Expr whenFalse) {
            super(at);
            this.condition = condition;
            this.whenTrue = whenTrue;
            this.whenFalse = whenFalse;
        }
    }

    static final class Cast extends Expr {
        final Ty to;
        final Expr operand;

        Cast(Token at, Ty to, Expr operand) {
            super(at);
            this.to = to;
            this.operand = operand;
        }
    }

    /** A call of a math function; {@link #argumentType} is the type its arguments are converted to. */
    static final class Call extends Expr {
        final String function;
        final List<Expr> arguments;
        Ty argumentType;

        Call(Token at, String function, List<Expr> arguments) {
            super(at);
            this.function = function;
            this.arguments = arguments;
        }
    }

    /** A statement: a declaration of a local ({@code declared} set) or an assignment. */
    record Statement(Token at, Ty declared, String target, Expr value, Symbol[] resolved) {
        Statement(Token at, Ty declared, String target, Expr value) {
            this(at, declared, target, value, new Symbol[1]);
        }

        Symbol symbol() {
            return resolved[0];
        }
    }

    /**
     * The size of {@code statements} as {@link dev.sluice.Kernel.Fusion#size()} counts it: one for each statement and
     * each node of its expression. Walked with a stack of its own: chains of one precedence level have no depth limit.
     */
    static int size(List<Statement> statements) {
        long size = 0;
        ArrayDeque<Expr> pending = new ArrayDeque<>();
        for (Statement s : statements) {
            size++;
            pending.push(s.value());
            while (!pending.isEmpty()) {
                Expr e = pending.pop();
                size++;
                switch (e) {
                    case Unary u -> pending.push(u.operand);
                    case Binary b -> {
                        pending.push(b.left);
                        pending.push(b.right);
                    }
                    case Ternary t -> {
                        pending.push(t.condition);
                        pending.push(t.whenTrue);
                        pending.push(t.whenFalse);
                    }
                    case Cast c -> pending.push(c.operand);
                    case Call c -> c.arguments.forEach(pending::push);
                    case Literal l -> { }
                    case Name n -> { }
                }
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, size);
    }

    /** What a name means. */
    enum Role { INPUT_POINTER, OUTPUT_POINTER, SCALAR, LOCAL, INDEX, COUNT, ACCUMULATOR }

    /**
     * A named value: {@code index} is the parameter's position for parameters, the local's number for locals.
     */
    record Symbol(String name, Ty type, Role role, int index) {
        boolean isPointer() {
            return role == Role.INPUT_POINTER || role == Role.OUTPUT_POINTER;
        }
    }
}
