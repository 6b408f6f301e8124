package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.JavaKernel;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Ast.Role;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Declares an elementwise kernel: typed inputs and outputs and a body in the kernel language, run once per element
 * index {@code i} below {@code n}. Start one with {@link Kernels#elementwise(String)}; see that method for an example
 * and the guide's "Writing a kernel once" for the language. Not thread-safe.
 *
 * <p>The {@link Kernel} it builds takes the declared parameters in the order they were declared, then {@code n}, the
 * element count, as an {@link DType#I64}: a launch refuses, before anything is enqueued, a negative {@code n} or one
 * larger than a buffer argument's {@link dev.sluice.DeviceBuffer#count()} (see {@link Kernel.Builder#elementCount}). In
 * the body, a pointer parameter's name means its element {@code i}, a
 * scalar's name its value (the same for every element), {@code i} the index and {@code n} the count. An input may be
 * the same buffer as an output of its type (an update in place): a read of it after the output is assigned sees the value
 * assigned, on every backend.
 */
public final class ElementwiseBuilder {

    private final String name;
    private final List<KernelParam> params = new ArrayList<>();
    private final List<Boolean> outputs = new ArrayList<>();
    private String body;

    private ElementwiseBuilder(String name) {
        this.name = Kernel.named(name).java(t -> { }).build().name(); // Kernel's own check of the name
    }

    /**
     * Starts a declaration; {@link Kernels#elementwise(String)} is the same.
     *
     * @throws InvalidArgumentException naming {@code name} for null or a name that is not a C identifier
     */
    public static ElementwiseBuilder named(String name) {
        return new ElementwiseBuilder(name);
    }

    /**
     * Appends an input: a pointer (its element {@code i} is read) or a scalar (broadcast to every element).
     *
     * @throws InvalidArgumentException naming {@code param} for null, a name given twice or reserved by the language
     *                                  ({@code i}, {@code n}, type names, {@code true}, {@code false}), or a type the
     *                                  language lacks
     */
    public ElementwiseBuilder input(KernelParam param) {
        return add(param, false);
    }

    /**
     * Appends an output: a pointer whose element {@code i} the body assigns (and may read).
     *
     * @throws InvalidArgumentException as {@link #input} does, and for a scalar
     */
    public ElementwiseBuilder output(KernelParam param) {
        return add(param, true);
    }

    /**
     * The statements run for each element, separated by {@code ;}: {@code y = a * x + b}.
     *
     * @throws InvalidArgumentException naming {@code source} for null or blank source
     */
    public ElementwiseBuilder body(String source) {
        if (source == null || source.isBlank()) {
            throw new InvalidArgumentException("source", "kernel " + name + ": the body " + (source == null
                    ? "must not be null" : "is blank"));
        }
        this.body = source;
        return this;
    }

    /**
     * Checks the body and generates the kernel's CUDA C++ (for NVRTC and hiprtc) and its Java implementation (bytecode,
     * for the CPU backend). No device is touched.
     *
     * @throws CompilationException     for an error in the body, naming its line, column and what was expected
     * @throws InvalidArgumentException naming {@code kernel} if there is no output or no body
     */
    public Kernel build() {
        if (body == null) {
            throw new InvalidArgumentException("kernel", name + " has no body: call body(...)");
        }
        if (!outputs.contains(true)) {
            throw new InvalidArgumentException("kernel", name + " has no output: declare one with output(...)");
        }
        Map<String, Symbol> symbols = new LinkedHashMap<>();
        List<Symbol> paramSymbols = new ArrayList<>();
        for (int k = 0; k < params.size(); k++) {
            KernelParam p = params.get(k);
            Symbol s = new Symbol(p.name(), Ty.of(p.type()).orElseThrow(), Params.role(p, outputs.get(k)), k);
            symbols.put(p.name(), s);
            paramSymbols.add(s);
        }
        symbols.put("i", new Symbol("i", Ty.I64, Role.INDEX, 0));
        symbols.put("n", new Symbol("n", Ty.I64, Role.COUNT, 0));
        List<Statement> statements = new Parser(name, "body", body).statements();
        new Checker(name, "body", body, symbols, 0).statements(statements);

        Kernel.Builder kernel = Kernel.named(name);
        for (Symbol s : paramSymbols) {
            kernel.param(Params.withAccess(params.get(s.index()), s.role())); // what the kernel reads, for automatic ordering
        }
        kernel.param(KernelParam.scalar("n", DType.I64));
        String[] pointers = paramSymbols.stream().filter(Symbol::isPointer).map(Symbol::name).toArray(String[]::new);
        kernel.elementCount("n", pointers); // the body indexes every pointer below n: a launch refuses a larger n
        return kernel.cudaSource(cuda(paramSymbols, statements)).java(java(paramSymbols, statements)).build();
    }

    private String cuda(List<Symbol> paramSymbols, List<Statement> statements) {
        CudaSource gen = new CudaSource(s -> switch (s.role()) {
            case INPUT_POINTER, OUTPUT_POINTER -> "p_" + s.name() + "[sl_i]";
            case SCALAR -> "p_" + s.name();
            case LOCAL -> "v_" + s.name();
            case INDEX -> "sl_i";
            case COUNT -> "sl_n";
            case ACCUMULATOR -> throw new AssertionError(s);
        });
        StringBuilder out = new StringBuilder(CudaSource.PRELUDE);
        out.append("\nextern \"C\" __global__ void ").append(name).append('(');
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
        out.append(gen.statements(statements, "        "));
        out.append("        return;\n");
        out.append("    }\n");
        out.append("    for (long long sl_i = sl_first; sl_i < sl_n; sl_i += sl_stride) {\n");
        out.append(gen.statements(statements, "        "));
        out.append("    }\n}\n");
        return out.toString();
    }

    private JavaKernel java(List<Symbol> paramSymbols, List<Statement> statements) {
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
        }, problem -> SourceError.at(name, "body", body, 1, 1, problem));
    }

    /** Stores gridDim.x * blockDim.x, the step of a grid-stride loop, as a long in {@code slot}. */
    static void gridStride(CodeBuilder cb, int slot) {
        MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
        MethodTypeDesc x = MethodTypeDesc.of(ConstantDescs.CD_int);
        cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim).invokevirtual(Generated.DIM, "x", x).i2l();
        cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockDim", dim).invokevirtual(Generated.DIM, "x", x).i2l();
        cb.lmul().lstore(slot);
    }

    private ElementwiseBuilder add(KernelParam param, boolean output) {
        Params.checkNew("kernel", name, param, Params.RESERVED, params, output);
        params.add(param);
        outputs.add(output);
        return this;
    }
}
