package dev.sluice.kernel;

import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Ast.Role;
import dev.sluice.kernel.Ast.Symbol;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.TypeKind;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Checks and emits the declared parameters of generated kernels. */
final class Params {

    /** Names the language gives a meaning of its own. */
    static final Set<String> RESERVED = Set.of("i", "n", "true", "false", "bool", "i8", "u8", "i16", "i32", "i64", "f32", "f64");

    private Params() {
    }

    /** Names a reduction's expressions give a meaning of their own besides {@link #RESERVED}: the accumulator values. */
    static final Set<String> RESERVED_IN_REDUCTIONS = Stream.concat(RESERVED.stream(), Stream.of("a", "b"))
            .collect(Collectors.toUnmodifiableSet());

    /**
     * Checks a parameter a builder is about to append after {@code declared}: not null, a name neither reserved nor
     * declared already, a type the language has, and a pointer if it is an {@code output}.
     *
     * @param what "kernel" or "reduction", for the messages
     */
    static void checkNew(String what, String kernel, @org.jspecify.annotations.Nullable KernelParam param, Set<String> reserved,
            List<KernelParam> declared, boolean output) {
        if (param == null) {
            throw new InvalidArgumentException("param", "must not be null");
        }
        if (output && !param.isPointer()) {
            throw new InvalidArgumentException("param", what + " " + kernel + ": output " + param
                    + " is a scalar; outputs are pointers (KernelParam.pointer)");
        }
        if (reserved.contains(param.name())) {
            throw new InvalidArgumentException("param", what + " " + kernel + ": the name '" + param.name()
                    + "' is reserved by the kernel language (reserved: " + reserved.stream().sorted().toList() + ")");
        }
        DType t = param.type();
        if (Ty.of(t).isEmpty()) {
            throw new InvalidArgumentException("param", what + " " + kernel + ": " + param + " has type " + t
                    + ", which generated kernels do not support; supported: " + Ty.supported());
        }
        for (KernelParam p : declared) {
            if (p.name().equals(param.name())) {
                throw new InvalidArgumentException("param", what + " " + kernel + " already has a parameter named '"
                        + p.name() + "' (" + p + "); parameter names must be distinct");
            }
        }
    }

    /**
     * {@code param} with the access its role gives it, which automatic ordering across streams goes by: an input pointer
     * is only read, an output pointer written and possibly read (the body may read what it assigned).
     */
    static KernelParam withAccess(KernelParam param, Role role) {
        return switch (role) {
            case INPUT_POINTER -> KernelParam.pointer(param.name(), param.type(), KernelParam.Access.READ);
            case OUTPUT_POINTER -> KernelParam.pointer(param.name(), param.type(), KernelParam.Access.READ_WRITE);
            default -> param;
        };
    }

    /**
     * The C declaration of a parameter: inputs are {@code const}. Elementwise kernels declare no pointer
     * {@code __restrict__}: an in-place update passes one buffer as an input and an output, and a body such as
     * {@code y = x + 1; z = x * 2} with x and y the same buffer must read x after the store to y, as the CPU backend
     * does, where {@code __restrict__} would let the compiler reuse the first load.
     */
    static String cDeclaration(Symbol s) {
        return cDeclaration(s, false);
    }

    /**
     * The C declaration of a parameter, {@code __restrict__} if {@code restricted}: only for a pointer that no pointer
     * the kernel writes can be the same memory as, whatever the caller passes (a scratch buffer the kernel's owner
     * allocates, or an input of a kernel that writes only such a buffer). A restricted input can then be read through
     * the non-coherent read-only path.
     */
    static String cDeclaration(Symbol s, boolean restricted) {
        String qualifier = restricted ? "* __restrict__ p_" : "* p_";
        return switch (s.role()) {
            case INPUT_POINTER -> "const " + CudaSource.c(s.type()) + qualifier + s.name();
            case OUTPUT_POINTER -> CudaSource.c(s.type()) + qualifier + s.name();
            default -> CudaSource.c(s.type()) + " p_" + s.name();
        };
    }

    /**
     * Emits the reads of the parameters from the kernel thread in slot 1: each pointer's segment and each scalar's
     * value into a slot of its own; returns the slots, by parameter index.
     */
    static int[] load(CodeBuilder cb, List<Symbol> params) {
        int[] slots = new int[params.size()];
        for (Symbol p : params) {
            int k = p.index();
            cb.aload(1);
            cb.loadConstant(k);
            if (p.isPointer()) {
                cb.invokeinterface(Generated.KERNEL_THREAD, "pointer", MethodTypeDesc.of(JavaCode.MEMORY_SEGMENT, ConstantDescs.CD_int));
                slots[k] = cb.allocateLocal(TypeKind.REFERENCE);
                cb.astore(slots[k]);
            } else {
                String getter = switch (p.type()) {
                    case I64 -> "longArg";
                    case F32 -> "floatArg";
                    case F64 -> "doubleArg";
                    default -> "intArg";
                };
                cb.invokeinterface(Generated.KERNEL_THREAD, getter, MethodTypeDesc.of(JavaCode.desc(p.type()), ConstantDescs.CD_int));
                // intArg gives the raw bits of narrow types: normalise them as the language keeps them.
                if (p.type() != Ty.I32 && p.type().isIntLike()) {
                    JavaCode.convert(cb, Ty.I32, p.type());
                }
                slots[k] = cb.allocateLocal(JavaCode.kind(p.type()));
                cb.storeLocal(JavaCode.kind(p.type()), slots[k]);
            }
        }
        return slots;
    }

    static Role role(KernelParam p, boolean output) {
        return output ? Role.OUTPUT_POINTER : p.isPointer() ? Role.INPUT_POINTER : Role.SCALAR;
    }
}
