package dev.sluice.kernel;

import dev.sluice.kernel.Ast.Binary;
import dev.sluice.kernel.Ast.Call;
import dev.sluice.kernel.Ast.Cast;
import dev.sluice.kernel.Ast.Expr;
import dev.sluice.kernel.Ast.Literal;
import dev.sluice.kernel.Ast.Name;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
import dev.sluice.kernel.Ast.Ternary;
import dev.sluice.kernel.Ast.Unary;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Emits bytecode for checked kernel source with the JDK's class-file API: each expression leaves its value on the
 * operand stack, narrow integers and bools as normalised ints. How a symbol is read and written is up to the caller
 * ({@link Access}), so that elementwise bodies and reductions share the expression code.
 */
final class JavaCode {

    static final ClassDesc MEMORY_SEGMENT = ClassDesc.of("java.lang.foreign.MemorySegment");
    static final ClassDesc VALUE_LAYOUT = ClassDesc.of("java.lang.foreign.ValueLayout");
    static final ClassDesc KERNEL_MATH = ClassDesc.of(KernelMath.class.getName());

    /** How a kernel reads and writes its symbols other than locals: the element of a pointer at the current index... */
    interface Access {
        void load(CodeBuilder cb, Symbol s);

        /** Stores the value on the stack (of the symbol's type) into {@code s}. */
        void store(CodeBuilder cb, Symbol s);
    }

    private final CodeBuilder cb;
    private final Access access;
    private final Map<Integer, Integer> localSlots = new HashMap<>();

    JavaCode(CodeBuilder cb, Access access) {
        this.cb = cb;
        this.access = access;
    }

    static TypeKind kind(Ty t) {
        return switch (t) {
            case I64 -> TypeKind.LONG;
            case F32 -> TypeKind.FLOAT;
            case F64 -> TypeKind.DOUBLE;
            default -> TypeKind.INT;
        };
    }

    static ClassDesc desc(Ty t) {
        return kind(t).upperBound();
    }

    /** The slot of local number {@code index}, allocated on first use. */
    int localSlot(Symbol local) {
        return localSlots.computeIfAbsent(local.index(), k -> cb.allocateLocal(kind(local.type())));
    }

    void statements(List<Statement> statements) {
        for (Statement s : statements) {
            converted(s.value(), s.symbol().type());
            if (s.symbol().role() == Ast.Role.LOCAL) {
                cb.storeLocal(kind(s.symbol().type()), localSlot(s.symbol()));
            } else {
                access.store(cb, s.symbol());
            }
        }
    }

    /** Pushes {@code e} converted to {@code to}. */
    void converted(Expr e, Ty to) {
        expr(e);
        convert(cb, e.type, to);
    }

    void expr(Expr e) {
        switch (e) {
            case Literal l -> literal(l);
            case Name n -> {
                if (n.symbol.role() == Ast.Role.LOCAL) {
                    cb.loadLocal(kind(n.type), localSlot(n.symbol));
                } else {
                    access.load(cb, n.symbol);
                }
            }
            case Unary u -> unary(u);
            case Binary b -> binary(b);
            case Ternary t -> {
                Label otherwise = cb.newLabel();
                Label end = cb.newLabel();
                expr(t.condition);
                cb.branch(Opcode.IFEQ, otherwise);
                converted(t.whenTrue, t.type);
                cb.goto_(end);
                cb.labelBinding(otherwise);
                converted(t.whenFalse, t.type);
                cb.labelBinding(end);
            }
            case Cast c -> converted(c.operand, c.to);
            case Call c -> {
                for (Expr a : c.arguments) {
                    converted(a, c.argumentType);
                }
                ClassDesc d = desc(c.argumentType);
                ClassDesc[] params = new ClassDesc[c.arguments.size()];
                Arrays.fill(params, d);
                cb.invokestatic(KERNEL_MATH, c.function, MethodTypeDesc.of(d, params));
            }
        }
    }

    private void literal(Literal l) {
        switch (l.type) {
            case BOOL, I32 -> cb.loadConstant((int) l.bits);
            case I64 -> cb.loadConstant(l.bits);
            case F32 -> cb.loadConstant((float) l.real);
            case F64 -> cb.loadConstant(l.real);
            default -> throw new AssertionError(l.type);
        }
    }

    private void unary(Unary u) {
        converted(u.operand, u.type);
        if (u.op.equals("!")) {
            cb.iconst_1();
            cb.ixor();
            return;
        }
        switch (u.type) {
            case I64 -> cb.lneg();
            case F32 -> cb.fneg();
            case F64 -> cb.dneg();
            default -> cb.ineg();
        }
    }

    /** A binary operation and the chain down its left operands, bottom up, in a loop (see {@link Ast#leftSpine}). */
    private void binary(Binary top) {
        List<Binary> spine = Ast.leftSpine(top);
        expr(spine.getLast().left);
        for (int k = spine.size() - 1; k >= 0; k--) {
            operate(spine.get(k));
        }
    }

    /** Applies {@code b} to its left operand, which is on the stack, and its right one. */
    private void operate(Binary b) {
        Ty t = b.operandType;
        switch (b.op) {
            case "&&", "||" -> {
                Label shortCut = cb.newLabel();
                Label end = cb.newLabel();
                cb.branch(b.op.equals("&&") ? Opcode.IFEQ : Opcode.IFNE, shortCut);
                expr(b.right);
                cb.goto_(end);
                cb.labelBinding(shortCut);
                cb.loadConstant(b.op.equals("&&") ? 0 : 1);
                cb.labelBinding(end);
                return;
            }
            default -> {
            }
        }
        convert(cb, b.left.type, t);
        converted(b.right, t);
        TypeKind k = kind(t);
        switch (b.op) {
            case "+" -> arithmetic(k, Opcode.IADD, Opcode.LADD, Opcode.FADD, Opcode.DADD);
            case "-" -> arithmetic(k, Opcode.ISUB, Opcode.LSUB, Opcode.FSUB, Opcode.DSUB);
            case "*" -> arithmetic(k, Opcode.IMUL, Opcode.LMUL, Opcode.FMUL, Opcode.DMUL);
            case "/", "%" -> {
                if (t.isFloat()) {
                    if (b.op.equals("/")) {
                        arithmetic(k, Opcode.IDIV, Opcode.LDIV, Opcode.FDIV, Opcode.DDIV);
                    } else {
                        arithmetic(k, Opcode.IREM, Opcode.LREM, Opcode.FREM, Opcode.DREM);
                    }
                } else {
                    ClassDesc d = desc(t);
                    cb.invokestatic(KERNEL_MATH, b.op.equals("/") ? "div" : "rem", MethodTypeDesc.of(d, d, d));
                }
            }
            default -> compare(b.op, k);
        }
    }

    private void arithmetic(TypeKind k, Opcode i, Opcode l, Opcode f, Opcode d) {
        cb.with(OperatorInstruction.of(switch (k) {
            case LONG -> l;
            case FLOAT -> f;
            case DOUBLE -> d;
            default -> i;
        }));
    }

    /** Compares the two values on the stack and pushes 1 or 0; any comparison with NaN is false, except {@code !=}. */
    private void compare(String op, TypeKind k) {
        Opcode jump;
        if (k == TypeKind.INT) {
            jump = switch (op) {
                case "<" -> Opcode.IF_ICMPLT;
                case "<=" -> Opcode.IF_ICMPLE;
                case ">" -> Opcode.IF_ICMPGT;
                case ">=" -> Opcode.IF_ICMPGE;
                case "==" -> Opcode.IF_ICMPEQ;
                default -> Opcode.IF_ICMPNE;
            };
        } else {
            // fcmpg gives 1 for NaN, so that < and <= are false; fcmpl gives -1, so that >, >= and == are false.
            boolean less = op.equals("<") || op.equals("<=");
            switch (k) {
                case LONG -> cb.lcmp();
                case FLOAT -> {
                    if (less) {
                        cb.fcmpg();
                    } else {
                        cb.fcmpl();
                    }
                }
                default -> {
                    if (less) {
                        cb.dcmpg();
                    } else {
                        cb.dcmpl();
                    }
                }
            }
            jump = switch (op) {
                case "<" -> Opcode.IFLT;
                case "<=" -> Opcode.IFLE;
                case ">" -> Opcode.IFGT;
                case ">=" -> Opcode.IFGE;
                case "==" -> Opcode.IFEQ;
                default -> Opcode.IFNE;
            };
        }
        pushTruth(cb, jump);
    }

    /** Pushes 1 if the branch {@code jump} is taken, else 0. */
    static void pushTruth(CodeBuilder cb, Opcode jump) {
        Label yes = cb.newLabel();
        Label end = cb.newLabel();
        cb.branch(jump, yes);
        cb.iconst_0();
        cb.goto_(end);
        cb.labelBinding(yes);
        cb.iconst_1();
        cb.labelBinding(end);
    }

    /** Converts the value on the stack from {@code from} to {@code to}, as the generated C++ does. */
    static void convert(CodeBuilder cb, Ty from, Ty to) {
        if (from == to) {
            return;
        }
        TypeKind fk = kind(from);
        if (to == Ty.BOOL) {
            // Non-zero is true; NaN is non-zero (fcmpl gives -1 for it).
            switch (fk) {
                case LONG -> {
                    cb.lconst_0();
                    cb.lcmp();
                }
                case FLOAT -> {
                    cb.fconst_0();
                    cb.fcmpl();
                }
                case DOUBLE -> {
                    cb.dconst_0();
                    cb.dcmpl();
                }
                default -> {
                }
            }
            pushTruth(cb, Opcode.IFNE);
            return;
        }
        TypeKind tk = kind(to);
        if (fk != tk) {
            // The JVM's f2i, d2l... saturate and give 0 for NaN, which is what the C++ helpers spell out.
            cb.conversion(fk, tk);
        }
        switch (to) {
            case I8 -> cb.i2b();
            case U8 -> {
                cb.sipush(0xFF);
                cb.iand();
            }
            case I16 -> cb.i2s();
            default -> {
            }
        }
    }

    /** The {@code ValueLayout} constant for elements of {@code t}: unaligned, since slices may start anywhere. */
    static void layout(CodeBuilder cb, Ty t) {
        String field;
        String type;
        switch (t) {
            case BOOL, I8, U8 -> {
                field = "JAVA_BYTE";
                type = "OfByte";
            }
            case I16 -> {
                field = "JAVA_SHORT_UNALIGNED";
                type = "OfShort";
            }
            case I32 -> {
                field = "JAVA_INT_UNALIGNED";
                type = "OfInt";
            }
            case I64 -> {
                field = "JAVA_LONG_UNALIGNED";
                type = "OfLong";
            }
            case F32 -> {
                field = "JAVA_FLOAT_UNALIGNED";
                type = "OfFloat";
            }
            default -> {
                field = "JAVA_DOUBLE_UNALIGNED";
                type = "OfDouble";
            }
        }
        cb.getstatic(VALUE_LAYOUT, field, ClassDesc.of("java.lang.foreign.ValueLayout$" + type));
    }

    private static ClassDesc storedDesc(Ty t) {
        return switch (t) {
            case BOOL, I8, U8 -> ConstantDescs.CD_byte;
            case I16 -> ConstantDescs.CD_short;
            default -> desc(t);
        };
    }

    private static ClassDesc layoutDesc(Ty t) {
        return ClassDesc.of("java.lang.foreign.ValueLayout$" + switch (t) {
            case BOOL, I8, U8 -> "OfByte";
            case I16 -> "OfShort";
            case I32 -> "OfInt";
            case I64 -> "OfLong";
            case F32 -> "OfFloat";
            default -> "OfDouble";
        });
    }

    /**
     * Loads element {@code index} (a long in slot {@code indexSlot}) of the segment in slot {@code segmentSlot}, as a
     * value of {@code t}.
     */
    static void loadElement(CodeBuilder cb, int segmentSlot, int indexSlot, Ty t) {
        cb.aload(segmentSlot);
        layout(cb, t);
        cb.lload(indexSlot);
        cb.invokeinterface(MEMORY_SEGMENT, "getAtIndex", MethodTypeDesc.of(storedDesc(t), layoutDesc(t), ConstantDescs.CD_long));
        switch (t) {
            case BOOL -> pushTruth(cb, Opcode.IFNE);
            case U8 -> {
                cb.sipush(0xFF);
                cb.iand();
            }
            default -> {
            }
        }
    }

    /** Stores the value of {@code t} on the stack into element {@code index} of the segment in {@code segmentSlot}. */
    static void storeElement(CodeBuilder cb, int segmentSlot, int indexSlot, Ty t) {
        int value = cb.allocateLocal(kind(t));
        cb.storeLocal(kind(t), value);
        cb.aload(segmentSlot);
        layout(cb, t);
        cb.lload(indexSlot);
        cb.loadLocal(kind(t), value);
        switch (t) {
            case BOOL, I8, U8 -> cb.i2b();
            case I16 -> cb.i2s();
            default -> {
            }
        }
        cb.invokeinterface(MEMORY_SEGMENT, "setAtIndex",
                MethodTypeDesc.of(ConstantDescs.CD_void, layoutDesc(t), ConstantDescs.CD_long, storedDesc(t)));
    }
}
