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
import java.util.List;
import java.util.function.Function;

/**
 * CUDA C++ for checked kernel source, in the dialect NVRTC and hiprtc both compile without headers. Everything the
 * language defines and C leaves undefined is spelled out, so that both backends compute what the JVM does: signed
 * arithmetic wraps (it is done in unsigned types), integer division by zero gives 0 (and the remainder the dividend),
 * {@code MIN / -1} wraps, and float-to-integer conversions saturate with NaN giving 0.
 */
final class CudaSource {

    /** Helpers every generated kernel starts with; the names start with {@code sl_} so as not to meet a user's. */
    /**
     * The {@code extern "C"} name a generated kernel named {@code name} exports: the name behind a prefix that nothing
     * in CUDA's or HIP's headers, nor {@link #PRELUDE} ({@code sl_}), declares, so that a kernel may be named after any
     * of their functions ({@code fma}, {@code sin}, {@code printf}) or types and still compile; {@link Kernel#name()}
     * stays the user's name.
     */
    static String entryPoint(String name) {
        return "sluice_" + name;
    }

    static final String PRELUDE = """
            static __device__ __forceinline__ int sl_div_i32(int a, int b) {
                return b == 0 ? 0 : b == -1 ? (int) (0u - (unsigned int) a) : a / b;
            }
            static __device__ __forceinline__ int sl_rem_i32(int a, int b) {
                return b == 0 ? a : b == -1 ? 0 : a % b;
            }
            static __device__ __forceinline__ long long sl_div_i64(long long a, long long b) {
                return b == 0 ? 0LL : b == -1 ? (long long) (0ull - (unsigned long long) a) : a / b;
            }
            static __device__ __forceinline__ long long sl_rem_i64(long long a, long long b) {
                return b == 0 ? a : b == -1 ? 0LL : a % b;
            }
            static __device__ __forceinline__ int sl_f2i(double x) {
                return x != x ? 0 : x >= 2147483647.0 ? 2147483647 : x <= -2147483648.0 ? (-2147483647 - 1) : (int) x;
            }
            static __device__ __forceinline__ long long sl_f2l(double x) {
                return x != x ? 0LL : x >= 9223372036854775807.0 ? 9223372036854775807LL
                        : x <= -9223372036854775808.0 ? (-9223372036854775807LL - 1) : (long long) x;
            }
            static __device__ __forceinline__ int sl_min_i32(int a, int b) { return a < b ? a : b; }
            static __device__ __forceinline__ int sl_max_i32(int a, int b) { return a > b ? a : b; }
            static __device__ __forceinline__ long long sl_min_i64(long long a, long long b) { return a < b ? a : b; }
            static __device__ __forceinline__ long long sl_max_i64(long long a, long long b) { return a > b ? a : b; }
            // fminf and fmaxf return the other operand where one is NaN, as min and max do here, but leave the sign of
            // a zero result to the implementation: for two zeros the result is computed instead, -0 being the smaller
            // zero, as in Java (-(-a - b) is -0 unless both are +0, and a + b is +0 unless both are -0). One min or max
            // instruction and a test, where a chain of comparisons cost a fused kernel about a tenth of its time.
            static __device__ __forceinline__ float sl_min_f32(float a, float b) {
                return a == 0.0f && b == 0.0f ? -(-a - b) : fminf(a, b);
            }
            static __device__ __forceinline__ float sl_max_f32(float a, float b) {
                return a == 0.0f && b == 0.0f ? a + b : fmaxf(a, b);
            }
            static __device__ __forceinline__ double sl_min_f64(double a, double b) {
                return a == 0.0 && b == 0.0 ? -(-a - b) : fmin(a, b);
            }
            static __device__ __forceinline__ double sl_max_f64(double a, double b) {
                return a == 0.0 && b == 0.0 ? a + b : fmax(a, b);
            }
            static __device__ __forceinline__ int sl_abs_i32(int a) { return a < 0 ? (int) (0u - (unsigned int) a) : a; }
            static __device__ __forceinline__ long long sl_abs_i64(long long a) {
                return a < 0 ? (long long) (0ull - (unsigned long long) a) : a;
            }
            """;

    private final Function<Symbol, String> names;

    /** A generator that spells each symbol as {@code names} says (a parameter's element, a local's variable...). */
    CudaSource(Function<Symbol, String> names) {
        this.names = names;
    }

    /** The C name of a language type. */
    static String c(Ty t) {
        return t.dtype.cName();
    }

    /** {@code statements}, one per line, indented by {@code indent}. */
    String statements(List<Statement> statements, String indent) {
        StringBuilder out = new StringBuilder();
        for (Statement s : statements) {
            Symbol target = s.symbol();
            String value = converted(s.value(), target.type());
            out.append(indent);
            if (s.declared() != null) {
                out.append(c(s.declared())).append(' ');
            }
            out.append(names.apply(target)).append(" = ").append(value).append(";\n");
        }
        return out.toString();
    }

    /** {@code e} converted to {@code to}. */
    String converted(Expr e, Ty to) {
        return convert(expr(e), e.type, to);
    }

    static String convert(String code, Ty from, Ty to) {
        if (from == to) {
            return code;
        }
        if (to == Ty.BOOL) {
            return "((" + code + ") != 0)";
        }
        if (from.isFloat() && !to.isFloat()) {
            return switch (to) {
                case I64 -> "sl_f2l((double) (" + code + "))";
                case I32 -> "sl_f2i((double) (" + code + "))";
                default -> "((" + c(to) + ") sl_f2i((double) (" + code + ")))";
            };
        }
        return "((" + c(to) + ") (" + code + "))";
    }

    String expr(Expr e) {
        return switch (e) {
            case Literal l -> literal(l);
            case Name n -> names.apply(n.symbol);
            case Unary u -> unary(u);
            case Binary b -> binary(b);
            case Ternary t -> "(" + expr(t.condition) + " ? " + converted(t.whenTrue, t.type) + " : "
                    + converted(t.whenFalse, t.type) + ")";
            case Cast c -> converted(c.operand, c.to);
            case Call c -> call(c);
        };
    }

    static String literal(Literal l) {
        return switch (l.type) {
            case BOOL -> l.bits != 0 ? "true" : "false";
            case I32 -> l.bits == Integer.MIN_VALUE ? "(-2147483647 - 1)" : "(" + l.bits + ")";
            case I64 -> l.bits == Long.MIN_VALUE ? "(-9223372036854775807LL - 1)" : "(" + l.bits + "LL)";
            // Java prints the shortest decimal that reads back as the same value, and C reads decimals correctly
            // rounded; hexadecimal literals would need C++17, which not every NVRTC and hiprtc default to.
            case F32 -> Float.toString((float) l.real) + "f";
            case F64 -> Double.toString(l.real);
            default -> throw new AssertionError(l.type);
        };
    }

    private String unary(Unary u) {
        String operand = converted(u.operand, u.type);
        if (u.op.equals("!")) {
            return "(!" + operand + ")";
        }
        return switch (u.type) {
            case I32 -> "((int) (0u - (unsigned int) " + operand + "))";
            case I64 -> "((long long) (0ull - (unsigned long long) " + operand + "))";
            default -> "(-" + operand + ")";
        };
    }

    /**
     * A binary operation and the chain down its left operands, bottom up, in a loop (see {@link Ast#leftSpine}). A run
     * of one operator group ({@code + -}, {@code *}, {@code &&}, {@code ||}) over one type is written flat,
     * {@code a + b - c} rather than {@code ((a + b) - c)}, which C groups the same way: a long chain does not nest
     * brackets as deep as it is long, past what NVRTC and hiprtc take. Integer runs are computed in the unsigned type and
     * converted back once, which wraps as converting after every operation does.
     */
    private String binary(Binary top) {
        List<Binary> spine = Ast.leftSpine(top);
        String code = expr(spine.getLast().left);
        StringBuilder run = null; // the open flat run, its operands already spelt for the run's type
        Binary previous = null;
        for (int k = spine.size() - 1; k >= 0; k--) {
            Binary b = spine.get(k);
            Ty t = b.operandType;
            if (run != null && group(b) == group(previous) && t == previous.operandType) {
                run.append(' ').append(b.op).append(' ').append(runOperand(converted(b.right, t), t));
            } else {
                if (run != null) {
                    code = closeRun(run, previous.operandType);
                    run = null;
                }
                String l = convert(code, b.left.type, t);
                String r = converted(b.right, t);
                if (group(b) >= 0) {
                    run = new StringBuilder(runOperand(l, t)).append(' ').append(b.op).append(' ').append(runOperand(r, t));
                } else {
                    code = operate(b, l, r);
                }
            }
            previous = b;
        }
        return run != null ? closeRun(run, previous.operandType) : code;
    }

    /** The group of operators whose run can be written flat, or -1: {@code / %} and comparisons are written one by one. */
    private static int group(Binary b) {
        return switch (b.op) {
            case "+", "-" -> 0;
            case "*" -> 1;
            case "&&" -> 2;
            case "||" -> 3;
            default -> -1;
        };
    }

    private static String runOperand(String code, Ty t) {
        return switch (t) {
            case I32 -> "(unsigned int) " + code;
            case I64 -> "(unsigned long long) " + code;
            default -> code;
        };
    }

    private static String closeRun(StringBuilder run, Ty t) {
        return switch (t) {
            case I32 -> "((int) (" + run + "))";
            case I64 -> "((long long) (" + run + "))";
            default -> "(" + run + ")";
        };
    }

    /** {@code b} of the operands {@code l} and {@code r}, already converted to its operand type. */
    private static String operate(Binary b, String l, String r) {
        Ty t = b.operandType;
        return switch (b.op) {
            case "/", "%" -> switch (t) {
                case I32 -> (b.op.equals("/") ? "sl_div_i32(" : "sl_rem_i32(") + l + ", " + r + ")";
                case I64 -> (b.op.equals("/") ? "sl_div_i64(" : "sl_rem_i64(") + l + ", " + r + ")";
                case F32 -> b.op.equals("/") ? "(" + l + " / " + r + ")" : "fmodf(" + l + ", " + r + ")";
                default -> b.op.equals("/") ? "(" + l + " / " + r + ")" : "fmod(" + l + ", " + r + ")";
            };
            default -> "(" + l + " " + b.op + " " + r + ")";
        };
    }

    private String call(Call c) {
        Ty t = c.argumentType;
        StringBuilder args = new StringBuilder();
        for (Expr a : c.arguments) {
            args.append(args.isEmpty() ? "" : ", ").append(converted(a, t));
        }
        String f = switch (c.function) {
            case "min", "max" -> "sl_" + c.function + "_" + t;
            case "abs" -> t.isFloat() ? (t == Ty.F32 ? "fabsf" : "fabs") : "sl_abs_" + t;
            default -> t == Ty.F32 ? c.function + "f" : c.function;
        };
        return f + "(" + args + ")";
    }
}
