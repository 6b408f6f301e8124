package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
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
import dev.sluice.kernel.ElementwiseBuilder.Declaration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Declares one elementwise kernel made of a chain of {@link ElementwiseBuilder elementwise} stages, in which a later
 * stage reads what an earlier one computed: the fused kernel reads the chain's inputs, keeps what one stage hands to the
 * next in registers (locals on the CPU backend) and writes only the outputs asked for. Start one with
 * {@link Kernels#fuse(String)}; not thread-safe.
 *
 * <pre>{@code
 * ElementwiseBuilder scale = Kernels.elementwise("scale").input(KernelParam.scalar("a", DType.F32))
 *     .input(KernelParam.pointer("x", DType.F32)).output(KernelParam.pointer("y", DType.F32)).body("y = a * x");
 * ElementwiseBuilder shift = Kernels.elementwise("shift").input(KernelParam.pointer("u", DType.F32))
 *     .input(KernelParam.pointer("v", DType.I32)).output(KernelParam.pointer("w", DType.F64)).body("w = u + v");
 * Kernel fused = Kernels.fuse("scale_shift")
 *     .stage(scale)
 *     .stage(shift)
 *     .bind("shift.u", "scale.y")     // shift's input u is what scale wrote to y
 *     .output("shift.w")              // the only output the fused kernel writes
 *     .build();                       // parameters: a, x, v, w, then n
 * }</pre>
 *
 * <p><b>Connections are explicit.</b> A parameter is named {@code "stage.param"}, the stage by its builder's name
 * (names are distinct within a chain). {@link #bind} makes an input of a stage read an earlier stage's output (a
 * pointer of the same type: the buffer the unfused chain would pass between them), or the same argument as an earlier
 * stage's input (of the same type, both pointers or both scalars). An input left unbound is a parameter of the fused
 * kernel; an output is one only if {@link #output} names it, and is otherwise a register. Names are checked when
 * given: a binding of an unknown stage or parameter, of an output, to a later stage, or across types is refused
 * naming it, before anything is built.
 *
 * <p><b>Parameters.</b> The fused kernel's parameters are, stage by stage in the order added, each stage's parameters in
 * their declared order, leaving out bound inputs and outputs not asked for; then {@code n}, the element count, as for
 * any elementwise kernel (a launch refuses an {@code n} past a buffer argument). Their names are the stages' own, so two
 * parameters of one name are refused: bind the one to the other if they are the same argument, or rename one.
 *
 * <p><b>Results.</b> The stages run one after another for each element, each as its own kernel's body runs, and every
 * value handed from one stage to the next is converted to the handing output's type exactly as a store to its buffer
 * and a load from it would do (an {@code f32} output of an {@code f64} computation is rounded to {@code float}, an
 * {@code i8} one wraps): on the CPU backend the fused kernel computes the unfused chain's results bit for bit. On a GPU,
 * the same holds for everything but float multiply-adds: the generated CUDA C++ is compiled with the run-time
 * compiler's defaults, which let NVRTC ({@code --fmad=true}) and hiprtc contract a multiplication and an addition into
 * one fused multiply-add, rounded once; in the fused kernel a multiplication in one stage may so meet an addition in a
 * later one, where the unfused chain rounds the product when it stores it. Such results differ from the unfused
 * chain's in the last bit; integers, conversions and every other float operation are the same. An output that a stage
 * reads before assigning it, or that a later stage reads but its stage never assigns, has no value in a fused kernel
 * unless it is written to memory: such a chain is refused unless {@link #output} names that output.
 */
public final class FusedBuilder {

    private final String name;
    private final List<Declaration> stages = new ArrayList<>();
    private final Map<Ref, Ref> bindings = new LinkedHashMap<>();
    private final Set<Ref> written = new LinkedHashSet<>();
    /** Whether the fused kernel's parameters are named {@code stage_param}, so that stages may share names of them. */
    private boolean stageNamedParameters;

    /** Parameter {@code param} of stage {@code stage}, both by position. */
    private record Ref(int stage, int param) {
    }

    private FusedBuilder(String name) {
        this.name = Kernel.named(name).java(t -> { }).build().name(); // Kernel's own check of the name
    }

    /**
     * Starts a declaration; {@link Kernels#fuse(String)} is the same.
     *
     * @throws InvalidArgumentException naming {@code name} for null, a name that is not a C identifier or one over 1024
     *                                  characters
     */
    public static FusedBuilder named(String name) {
        return new FusedBuilder(name);
    }

    /**
     * Appends a stage: the builder's declaration as it stands now (later changes to the builder do not reach the chain).
     * The builder is checked as its {@link ElementwiseBuilder#build()} checks it.
     *
     * @throws InvalidArgumentException naming {@code stage} for null or a name another stage of this chain has, or
     *                                  naming {@code kernel} for a builder without body or output
     * @throws CompilationException     for an error in the stage's body
     */
    public FusedBuilder stage(ElementwiseBuilder stage) {
        if (stage == null) {
            throw new InvalidArgumentException("stage", "must not be null");
        }
        return stage(stage.declaration());
    }

    /** Appends the stage {@code d}; see {@link #stage(ElementwiseBuilder)}. */
    FusedBuilder stage(Declaration d) {
        for (Declaration s : stages) {
            if (s.name().equals(d.name())) {
                throw new InvalidArgumentException("stage", "fused kernel " + name + " already has a stage named '" + d.name()
                        + "'; stages are named by their builders' names, which must be distinct within a chain");
            }
        }
        stages.add(d);
        return this;
    }

    /**
     * Makes {@code input} read {@code source}: both {@code "stage.param"}. The source is an output of an earlier stage
     * (the input then reads what that stage assigned to it) or an input of an earlier stage (the same argument), of the
     * same type, a pointer for a pointer input and a scalar input for a scalar one.
     *
     * @throws InvalidArgumentException naming {@code input} if it is not an input of a stage added so far or is bound
     *                                  already, naming {@code source} if it is not a parameter of a stage before the
     *                                  input's, or has another type or kind
     */
    public FusedBuilder bind(String input, String source) {
        Ref in = ref("input", input);
        KernelParam inParam = param(in);
        if (isOutput(in)) {
            throw new InvalidArgumentException("input", "'" + input + "' is an output of stage " + stageName(in)
                    + "; bind an input to what an earlier stage produces");
        }
        Ref bound = bindings.get(in);
        if (bound != null) {
            throw new InvalidArgumentException("input", "'" + input + "' is bound already, to '" + spell(bound) + "'");
        }
        Ref src = ref("source", source);
        KernelParam srcParam = param(src);
        if (src.stage() >= in.stage()) {
            throw new InvalidArgumentException("source", "'" + source + "' is in stage " + stageName(src) + " (stage "
                    + (src.stage() + 1) + " of the chain), which does not come before stage " + stageName(in)
                    + " (stage " + (in.stage() + 1) + ") of the input '" + input + "'; a stage reads only what earlier stages have");
        }
        if (inParam.isPointer() != srcParam.isPointer() || (!inParam.isPointer() && isOutput(src))) {
            throw new InvalidArgumentException("source", "'" + source + "' (" + describe(src) + ") cannot feed '" + input
                    + "' (" + describe(in) + "): a pointer input reads an output or a pointer input, a scalar input a scalar input");
        }
        if (inParam.type() != srcParam.type()) {
            throw new InvalidArgumentException("source", "'" + source + "' has type " + srcParam.type() + " and '" + input
                    + "' type " + inParam.type() + "; a bound input has its source's type (cast in a stage's body instead)");
        }
        bindings.put(in, src);
        return this;
    }

    /**
     * Makes the fused kernel write {@code output}, {@code "stage.param"}, to memory: a parameter of the fused kernel.
     * Outputs not named here stay in registers.
     *
     * @throws InvalidArgumentException naming {@code output} if it is not an output of a stage added so far or is named
     *                                  already
     */
    public FusedBuilder output(String output) {
        Ref out = ref("output", output);
        if (!isOutput(out)) {
            throw new InvalidArgumentException("output", "'" + output + "' is an input of stage " + stageName(out)
                    + ", not an output; its outputs are " + parameters(out.stage(), true));
        }
        if (!written.add(out)) {
            throw new InvalidArgumentException("output", "'" + output + "' is named already");
        }
        return this;
    }

    /**
     * Names each parameter of the fused kernel {@code stage_param} (stage names that contain no {@code _} then keep
     * them distinct): for chains whose stages are launches of one kernel, or of kernels whose parameters share names.
     */
    FusedBuilder stageNamedParameters() {
        stageNamedParameters = true;
        return this;
    }

    /**
     * Checks the chain and generates the fused kernel's CUDA C++ and Java implementation, as
     * {@link ElementwiseBuilder#build()} does for one stage.
     *
     * @throws InvalidArgumentException naming {@code kernel} for a chain without stages or without an output to write,
     *                                  or with two parameters of one name
     * @throws CompilationException     for a stage that reads an output it has not assigned, or an output that a later
     *                                  stage reads and its stage never assigns, where that output stays in a register
     */
    public Kernel build() {
        if (stages.isEmpty()) {
            throw new InvalidArgumentException("kernel", "fused kernel " + name + " has no stage: add one with stage(...)");
        }
        if (written.isEmpty()) {
            throw new InvalidArgumentException("kernel", "fused kernel " + name
                    + " writes no output: name one with output(\"stage.param\")");
        }
        List<KernelParam> params = new ArrayList<>();
        List<String> origins = new ArrayList<>();
        List<Symbol> paramSymbols = new ArrayList<>();
        Map<String, Ref> paramOwners = new HashMap<>();
        Map<Ref, Symbol> symbols = new HashMap<>();
        List<Symbol> registers = new ArrayList<>();
        Set<Symbol> assigned = new HashSet<>();
        List<Statement> statements = new ArrayList<>();
        StringBuilder sources = new StringBuilder();
        int locals = 0;
        for (int k = 0; k < stages.size(); k++) {
            Declaration d = stages.get(k);
            Map<String, Symbol> visible = new LinkedHashMap<>();
            List<Symbol> stageRegisters = new ArrayList<>();
            for (int j = 0; j < d.params().size(); j++) {
                Ref r = new Ref(k, j);
                KernelParam p = d.params().get(j);
                Ty type = Ty.of(p.type()).orElseThrow();
                Symbol s;
                if (bindings.containsKey(r)) {
                    s = symbols.get(bindings.get(r)); // an earlier stage's: made already
                } else if (d.isOutput(j) && !written.contains(r)) {
                    s = new Symbol(p.name(), type, Role.LOCAL, locals++);
                    stageRegisters.add(s);
                } else {
                    KernelParam named = stageNamedParameters
                            ? new KernelParam(d.name() + "_" + p.name(), p.isPointer(), p.type(), p.access()) : p;
                    Ref owner = paramOwners.putIfAbsent(named.name(), r);
                    if (owner != null) {
                        throw new InvalidArgumentException("kernel", "fused kernel " + name + ": '" + spell(owner) + "' and '"
                                + spell(r) + "' would both be its parameter '" + p.name() + "'; bind(\"" + spell(r) + "\", \""
                                + spell(owner) + "\") if they are the same argument, or rename one");
                    }
                    s = new Symbol(named.name(), type, Params.role(p, d.isOutput(j)), params.size());
                    params.add(named);
                    origins.add(spell(r));
                    paramSymbols.add(s);
                }
                symbols.put(r, s);
                visible.put(p.name(), s);
            }
            ElementwiseBuilder.Checked checked = d.statements(visible, locals);
            locals = checked.localCount();
            for (Symbol register : stageRegisters) {
                if (assignedBeforeRead(d, checked.statements(), register)) {
                    assigned.add(register);
                }
            }
            registers.addAll(stageRegisters);
            statements.addAll(checked.statements());
            sources.append(sources.isEmpty() ? "" : "\n").append(d.body());
        }
        requireBoundRegistersAssigned(symbols, assigned);
        String source = sources.toString();
        List<String[]> bound = new ArrayList<>();
        bindings.forEach((in, src) -> bound.add(new String[] {spell(in), spell(src)}));
        ElementwiseChain chain = new ElementwiseChain(name, List.copyOf(stages), List.copyOf(bound),
                written.stream().map(this::spell).toList(), List.copyOf(origins), Map.of(), Ast.size(statements));
        return ElementwiseCode.kernel(name, params, paramSymbols, statements, registers,
                s -> "v" + s.index() + "_" + s.name(), problem -> SourceError.at(name, "fused stages", source, 1, 1, problem),
                chain);
    }

    /**
     * Whether a stage's {@code statements} assign {@code register}, an output kept in a register; refuses them if they
     * read it before.
     */
    private static boolean assignedBeforeRead(Declaration d, List<Statement> statements, Symbol register) {
        for (Statement s : statements) {
            Name read = firstRead(s.value(), register);
            if (read != null) {
                throw SourceError.at(d.name(), "body", d.body(), read.line, read.column, "the output '" + read.name
                        + "' is read before it is assigned; in a fused kernel an output that is not written to memory"
                        + " has no earlier value: assign it first, or write it with output(\"" + d.name() + "." + read.name + "\")");
            }
            if (s.symbol().equals(register)) {
                return true;
            }
        }
        return false;
    }

    /** Refuses a register that a later stage reads and whose stage never assigns it. */
    private void requireBoundRegistersAssigned(Map<Ref, Symbol> symbols, Set<Symbol> assigned) {
        for (Map.Entry<Ref, Ref> b : bindings.entrySet()) {
            Ref source = root(b.getValue());
            Symbol s = symbols.get(source);
            if (s.role() == Role.LOCAL && !assigned.contains(s)) {
                throw SourceError.at(stageName(source), "body", stages.get(source.stage()).body(), 1, 1, "the output '"
                        + param(source).name() + "' is never assigned, and '" + spell(b.getKey()) + "' reads it; in a fused"
                        + " kernel an output that is not written to memory has no other value: assign it, or write it with"
                        + " output(\"" + spell(source) + "\")");
            }
        }
    }

    private Ref root(Ref r) {
        Ref source = r;
        while (bindings.containsKey(source)) {
            source = bindings.get(source);
        }
        return source;
    }

    /** The first read of {@code symbol} in {@code e}, or null. */
    static @org.jspecify.annotations.Nullable Name firstRead(Expr e, Symbol symbol) {
        return switch (e) {
            case Literal l -> null;
            case Name n -> n.symbol.equals(symbol) ? n : null;
            case Unary u -> firstRead(u.operand, symbol);
            case Binary b -> {
                List<Binary> spine = Ast.leftSpine(b); // a chain of any length, walked in a loop
                Name found = firstRead(spine.getLast().left, symbol);
                for (int k = spine.size() - 1; k >= 0 && found == null; k--) {
                    found = firstRead(spine.get(k).right, symbol);
                }
                yield found;
            }
            case Ternary t -> {
                Name found = firstRead(t.condition, symbol);
                found = found != null ? found : firstRead(t.whenTrue, symbol);
                yield found != null ? found : firstRead(t.whenFalse, symbol);
            }
            case Cast c -> firstRead(c.operand, symbol);
            case Call c -> {
                Name found = null;
                for (int k = 0; k < c.arguments.size() && found == null; k++) {
                    found = firstRead(c.arguments.get(k), symbol);
                }
                yield found;
            }
        };
    }

    /** Resolves {@code "stage.param"}, given as {@code argument}. */
    private Ref ref(String argument, @org.jspecify.annotations.Nullable String spelled) {
        if (spelled == null) {
            throw new InvalidArgumentException(argument, "must not be null");
        }
        int dot = spelled.indexOf('.');
        if (dot < 0 || dot != spelled.lastIndexOf('.')) {
            throw new InvalidArgumentException(argument, "'" + spelled + "' is not of the form \"stage.param\", e.g. \""
                    + (stages.isEmpty() ? "scale.x" : stages.getFirst().name() + "." + stages.getFirst().params().getFirst().name())
                    + "\"");
        }
        String stage = spelled.substring(0, dot);
        String param = spelled.substring(dot + 1);
        for (int k = 0; k < stages.size(); k++) {
            Declaration d = stages.get(k);
            if (d.name().equals(stage)) {
                for (int j = 0; j < d.params().size(); j++) {
                    if (d.params().get(j).name().equals(param)) {
                        return new Ref(k, j);
                    }
                }
                throw new InvalidArgumentException(argument, "'" + spelled + "': stage " + stage + " has no parameter '" + param
                        + "'; its inputs are " + parameters(k, false) + " and its outputs " + parameters(k, true));
            }
        }
        throw new InvalidArgumentException(argument, "'" + spelled + "': fused kernel " + name + " has no stage '" + stage
                + "'; its stages so far are " + stages.stream().map(Declaration::name).toList());
    }

    private List<String> parameters(int stage, boolean outputs) {
        Declaration d = stages.get(stage);
        List<String> names = new ArrayList<>();
        for (int j = 0; j < d.params().size(); j++) {
            if (d.isOutput(j) == outputs) {
                names.add(d.params().get(j).name());
            }
        }
        return names;
    }

    private KernelParam param(Ref r) {
        return stages.get(r.stage()).params().get(r.param());
    }

    private boolean isOutput(Ref r) {
        return stages.get(r.stage()).isOutput(r.param());
    }

    private String stageName(Ref r) {
        return stages.get(r.stage()).name();
    }

    private String spell(Ref r) {
        return stageName(r) + "." + param(r).name();
    }

    private String describe(Ref r) {
        KernelParam p = param(r);
        return (isOutput(r) ? "an output" : p.isPointer() ? "a pointer input" : "a scalar input") + " of type " + p.type();
    }

    @Override
    public String toString() {
        return "fused kernel " + name + stages.stream().map(Declaration::name).collect(Collectors.joining(" -> ", " [", "]"));
    }
}
