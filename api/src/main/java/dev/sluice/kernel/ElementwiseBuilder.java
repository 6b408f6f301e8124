package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Ast.Role;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
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
 * element count, as an {@link dev.sluice.DType#I64}: a launch refuses, before anything is enqueued, a negative {@code n} or one
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
     * @throws InvalidArgumentException naming {@code name} for null, a name that is not a C identifier or one over 1024
     *                                  characters
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
        Declaration d = declaration();
        Map<String, Symbol> symbols = new LinkedHashMap<>();
        List<Symbol> paramSymbols = new ArrayList<>();
        for (int k = 0; k < d.params().size(); k++) {
            KernelParam p = d.params().get(k);
            Symbol s = new Symbol(p.name(), Ty.of(p.type()).orElseThrow(), Params.role(p, d.isOutput(k)), k);
            symbols.put(p.name(), s);
            paramSymbols.add(s);
        }
        List<Statement> statements = d.statements(symbols, 0).statements();
        return ElementwiseCode.kernel(name, d.params(), paramSymbols, statements, List.of(), s -> "v_" + s.name(),
                problem -> SourceError.at(name, "body", d.body(), 1, 1, problem),
                ElementwiseChain.of(d, statements, paramSymbols));
    }

    /**
     * This builder's declaration as it stands, its body parsed and checked with each parameter meaning what it does in
     * the kernel {@link #build} gives: what a {@link FusedBuilder fused chain} takes of a stage.
     *
     * @throws CompilationException     for an error in the body
     * @throws InvalidArgumentException naming {@code kernel} if there is no output or no body
     */
    Declaration declaration() {
        if (body == null) {
            throw new InvalidArgumentException("kernel", name + " has no body: call body(...)");
        }
        if (!outputs.contains(true)) {
            throw new InvalidArgumentException("kernel", name + " has no output: declare one with output(...)");
        }
        Declaration d = new Declaration(name, List.copyOf(params), List.copyOf(outputs), body);
        Map<String, Symbol> symbols = new LinkedHashMap<>();
        for (int k = 0; k < params.size(); k++) {
            KernelParam p = params.get(k);
            symbols.put(p.name(), new Symbol(p.name(), Ty.of(p.type()).orElseThrow(), Params.role(p, outputs.get(k)), k));
        }
        d.statements(symbols, 0);
        return d;
    }

    /** A snapshot of a builder: its name, parameters (each an output or not) and body. */
    record Declaration(String name, List<KernelParam> params, List<Boolean> outputs, String body) {

        boolean isOutput(int param) {
            return outputs.get(param);
        }

        /** The same declaration under another name: a stage's name in a chain. */
        Declaration named(String stageName) {
            return new Declaration(stageName, params, outputs, body);
        }

        /**
         * The body parsed and checked where its parameter names mean {@code symbols} (by name; {@code i} and {@code n}
         * are added), its locals numbered from {@code firstLocal}.
         */
        Checked statements(Map<String, Symbol> symbols, int firstLocal) {
            Map<String, Symbol> visible = new LinkedHashMap<>(symbols);
            visible.put("i", new Symbol("i", Ty.I64, Role.INDEX, 0));
            visible.put("n", new Symbol("n", Ty.I64, Role.COUNT, 0));
            List<Statement> statements = new Parser(name, "body", body).statements();
            Checker checker = new Checker(name, "body", body, visible, firstLocal);
            checker.statements(statements);
            return new Checked(statements, checker.localCount());
        }
    }

    /** Checked statements, and the number of locals counted up to after them. */
    record Checked(List<Statement> statements, int localCount) {
    }

    private ElementwiseBuilder add(KernelParam param, boolean output) {
        Params.checkNew("kernel", name, param, Params.RESERVED, params, output);
        params.add(param);
        outputs.add(output);
        return this;
    }
}
