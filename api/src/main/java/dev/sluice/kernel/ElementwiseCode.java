package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.List;
import java.util.function.Function;

/**
 * Generates the CUDA C++ and the Java bytecode of a checked elementwise body, run once per element index below
 * {@code n}: what {@link ElementwiseBuilder} and {@link FusedBuilder} share. The kernel's parameters are
 * {@code params} (each with its symbol, by position), then {@code n}.
 */
final class ElementwiseCode {

    private ElementwiseCode() {
    }

    /**
     * The kernel of {@code statements} over {@code params}.
     *
     * @param registers locals assigned by statements that declare none (a fused chain's intermediates), declared at the
     *                  start of each element's code
     * @param localName the C name of a local
     * @param tooLarge  the exception for statements whose bytecode is over a JVM limit, from the problem stated
     * @param chain     what the kernel is made of, which it declares as its fusion: repeated work may fuse its launches
     */
    static Kernel kernel(String name, List<KernelParam> params, List<Symbol> paramSymbols, List<Statement> statements,
            List<Symbol> registers, Function<Symbol, String> localName, Function<String, CompilationException> tooLarge,
            ElementwiseChain chain) {
        Kernel.Builder kernel = Kernel.named(name).entryPoint(CudaSource.entryPoint(name));
        for (Symbol s : paramSymbols) {
            kernel.param(Params.withAccess(params.get(s.index()), s.role())); // what the kernel reads, for automatic ordering
        }
        kernel.param(KernelParam.scalar("n", DType.I64));
        String[] pointers = paramSymbols.stream().filter(Symbol::isPointer).map(Symbol::name).toArray(String[]::new);
        kernel.elementCount("n", pointers); // the body indexes every pointer below n: a launch refuses a larger n
        return kernel.cudaSource(cuda(name, paramSymbols, statements, registers, localName))
                .java(java(name, paramSymbols, statements, tooLarge)).fusion(chain).build();
    }

    private static String cuda(String name, List<Symbol> paramSymbols, List<Statement> statements, List<Symbol> registers,
            Function<Symbol, String> localName) {
        CudaSource gen = new CudaSource(s -> switch (s.role()) {
            case INPUT_POINTER, OUTPUT_POINTER -> "p_" + s.name() + "[sl_i]";
            case SCALAR -> "p_" + s.name();
            case LOCAL -> localName.apply(s);
            case INDEX -> "sl_i";
            case COUNT -> "sl_n";
            case ACCUMULATOR -> throw new AssertionError(s);
        });
        StringBuilder element = new StringBuilder();
        for (Symbol r : registers) {
            element.append("        ").append(CudaSource.c(r.type())).append(' ').append(localName.apply(r)).append(";\n");
        }
        element.append(gen.statements(statements, "        "));
        StringBuilder out = new StringBuilder(CudaSource.PRELUDE);
        out.append("\nextern \"C\" __global__ void ").append(CudaSource.entryPoint(name)).append('(');
        for (Symbol p : paramSymbols) {
            out.append(Params.cDeclaration(p)).append(", ");
        }
        out.append("long long sl_n) {\n");
        out.append("    const long long sl_first = (long long) blockIdx.x * blockDim.x + threadIdx.x;\n");
        out.append("    const long long sl_stride = (long long) gridDim.x * blockDim.x;\n");
        // The usual launch (LaunchConfig.forElements) has a thread per element: that path is straight-line code with
        // one bounds check, as a hand-written kernel is; smaller grids take the grid-stride loop.
        out.append("    if (sl_stride >= sl_n) {\n");
        out.append("        if (sl_first >= sl_n) return;\n");
        out.append("        const long long sl_i = sl_first;\n");
        out.append(element);
        out.append("        return;\n");
        out.append("    }\n");
        out.append("    for (long long sl_i = sl_first; sl_i < sl_n; sl_i += sl_stride) {\n");
        out.append(element);
        out.append("    }\n}\n");
        return out.toString();
    }

    private static dev.sluice.JavaKernel java(String name, List<Symbol> paramSymbols, List<Statement> statements,
            Function<String, CompilationException> tooLarge) {
        return Generated.kernel(name, cb -> {
            int[] slots = Params.load(cb, paramSymbols);
            int n = cb.allocateLocal(TypeKind.LONG);
            int stride = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            cb.aload(1).loadConstant(paramSymbols.size())
                    .invokeinterface(Generated.KERNEL_THREAD, "longArg", MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_int))
                    .lstore(n);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "globalIdX", MethodTypeDesc.of(ConstantDescs.CD_long)).lstore(i);
            JavaCode code = new JavaCode(cb, new JavaCode.Access() {
                @Override
                public void load(CodeBuilder b, Symbol s) {
                    switch (s.role()) {
                        case INPUT_POINTER, OUTPUT_POINTER -> JavaCode.loadElement(b, slots[s.index()], i, s.type());
                        case SCALAR -> b.loadLocal(JavaCode.kind(s.type()), slots[s.index()]);
                        case INDEX -> b.lload(i);
                        case COUNT -> b.lload(n);
                        default -> throw new AssertionError(s);
                    }
                }

                @Override
                public void store(CodeBuilder b, Symbol s) {
                    JavaCode.storeElement(b, slots[s.index()], i, s.type());
                }
            });
            // The first element is peeled off the grid-stride loop: with a thread per element (the usual launch) the
            // loop is never entered, the JIT's profile says so, and the body compiles as straight-line code.
            Label loop = cb.newLabel();
            Label end = cb.newLabel();
            cb.lload(i).lload(n).lcmp().ifge(end);
            code.statements(statements);
            gridStride(cb, stride);
            cb.labelBinding(loop);
            cb.lload(i).lload(stride).ladd().lstore(i);
            cb.lload(i).lload(n).lcmp().ifge(end);
            code.statements(statements);
            cb.goto_(loop);
            cb.labelBinding(end);
            cb.return_();
        }, tooLarge);
    }

    /** Stores gridDim.x * blockDim.x, the step of a grid-stride loop, as a long in {@code slot}. */
    static void gridStride(CodeBuilder cb, int slot) {
        MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
        MethodTypeDesc x = MethodTypeDesc.of(ConstantDescs.CD_int);
        cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim).invokevirtual(Generated.DIM, "x", x).i2l();
        cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockDim", dim).invokevirtual(Generated.DIM, "x", x).i2l();
        cb.lmul().lstore(slot);
    }
}
