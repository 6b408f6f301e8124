package dev.sluice.kernel;

import dev.sluice.JavaKernel;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.DType;
import dev.sluice.kernel.Ast.Expr;
import dev.sluice.kernel.Ast.Role;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a reduction's expressions and generates its eight kernels. The first three are segment reductions: block
 * {@code o} reduces the elements {@code o * outer + k * inner} for {@code k < length} (and below {@code total}), for
 * segments {@code o < count}, and writes one value. The "partials" kernel reduces chunks of a whole buffer to one value
 * per block, the "final" kernel reduces those to the outputs (and the chunks of wide rows' to a value per row), and the
 * "segments" kernel reduces the rows of a 2-D buffer to the outputs directly, a block per row. The next three are
 * column reductions of a row-major 2-D buffer (see {@link #columnsCuda}): "columns" in one pass, "column_partials" to
 * one value per column and chunk of rows, "column_final" from those. The last two are for rows a block per row would
 * not suit: "narrow_rows" gives a row of at most {@link DeviceReduction#NARROW_COLS} columns a part of a warp (see
 * {@link #narrowRowsCuda}), and "row_partials" splits a few wide rows into chunks of columns, a block each, whose values
 * the "final" kernel then combines (see {@link #rowPartialsCuda}).
 *
 * <p>On GPUs a block's threads reduce in a strided loop, then within each warp with shuffles, then across warps in
 * shared memory; the partials kernel's C++ has a loop of its own, striding the whole grid over the buffer (only its
 * element count is read of the geometry). On the CPU backend thread 0 of each block reduces its segment in order and
 * the other threads return, so the blocks of a launch are what runs in parallel.
 */
final class ReductionCode {

    /** The names of the five I64 parameters every segment kernel ends with. */
    static final List<String> GEOMETRY = List.of("sl_count", "sl_length", "sl_outer", "sl_inner", "sl_total");
    /**
     * The names of the five I64 parameters every column kernel ends with: the columns of the row-major input, its rows,
     * the rows each chunk (block row {@code blockIdx.y}) reduces, the values written (chunk {@code c}'s value of column
     * {@code j} goes to {@code c * cols + j}) and the input's elements.
     */
    static final List<String> COLUMN_GEOMETRY = List.of("sl_cols", "sl_rows", "sl_chunk_rows", "sl_count", "sl_total");
    /**
     * The names of the four I64 parameters the narrow-row kernel ends with: the rows (the values written), the columns,
     * the lanes that reduce a row (a power of two up to 32) and the input's elements.
     */
    static final List<String> NARROW_GEOMETRY = List.of("sl_count", "sl_cols", "sl_lanes", "sl_total");
    /**
     * The names of the five I64 parameters the row-chunk kernel ends with: the rows, the columns, the columns each chunk
     * (block column {@code blockIdx.y}) reduces, the values written (chunk {@code c}'s value of row {@code r} goes to
     * {@code r * chunks + c}) and the input's elements.
     */
    static final List<String> ROW_CHUNK_GEOMETRY = List.of("sl_rows", "sl_cols", "sl_chunk_cols", "sl_count", "sl_total");
    /** Adjacent columns a column kernel's block reduces: one per lane of a warp, so that a warp reads a row's run. */
    static final int COLUMN_TILE = 32;
    private static final String PARTIALS = "sl_partials";
    private static final ClassDesc MATH = ClassDesc.of("java.lang.Math");

    private final String name;
    private final List<KernelParam> params;
    private final List<Boolean> outputs;
    private final Ty acc;
    private final Expr map;
    private final Expr reduce;
    private final Expr identity;
    private final List<Statement> postMap;
    private final String mapSource;
    private final String reduceSource;
    private final String identitySource;
    private final String postMapSource;

    ReductionCode(String name, List<KernelParam> params, List<Boolean> outputs, Ty acc, String mapSource, String reduceSource,
            String identitySource, String postMapSource) {
        this.name = name;
        this.params = List.copyOf(params);
        this.outputs = List.copyOf(outputs);
        this.acc = acc;
        this.mapSource = mapSource;
        this.reduceSource = reduceSource;
        this.identitySource = identitySource;
        this.postMapSource = postMapSource;
        Map<String, Symbol> mapNames = new LinkedHashMap<>();
        Map<String, Symbol> postNames = new LinkedHashMap<>();
        for (int k = 0; k < params.size(); k++) {
            KernelParam p = params.get(k);
            Symbol s = new Symbol(p.name(), Ty.of(p.type()).orElseThrow(), Params.role(p, outputs.get(k)), k);
            if (s.role() != Role.OUTPUT_POINTER) {
                mapNames.put(p.name(), s);
            }
            if (s.role() != Role.INPUT_POINTER) {
                postNames.put(p.name(), s);
            }
        }
        mapNames.put("i", new Symbol("i", Ty.I64, Role.INDEX, 0));
        mapNames.put("n", new Symbol("n", Ty.I64, Role.COUNT, 0));
        Symbol a = new Symbol("a", acc, Role.ACCUMULATOR, 0);
        Symbol b = new Symbol("b", acc, Role.ACCUMULATOR, 1);
        postNames.put("a", a);
        this.map = expression("map", mapSource, mapNames);
        Map<String, Symbol> pair = new LinkedHashMap<>(); // in order, for the list of names an error gives
        pair.put("a", a);
        pair.put("b", b);
        this.reduce = expression("reduce", reduceSource, pair);
        this.identity = expression("identity", identitySource, Map.of());
        this.postMap = new Parser(name, "postMap", postMapSource).statements();
        new Checker(name, "postMap", postMapSource, postNames, 0).statements(postMap);
    }

    private Expr expression(String part, String source, Map<String, Symbol> names) {
        Expr e = new Parser(name, part, source).wholeExpression();
        Ty t = new Checker(name, part, source, names, 0).expression(e);
        if (!t.widensTo(acc)) {
            throw SourceError.at(name, part, source, e.line, e.column, "the " + part + " is of type " + t
                    + " but the accumulator is " + acc + "; cast it, e.g. (" + acc + ") ...");
        }
        return e;
    }

    Reduction build() {
        KernelParam partials = KernelParam.pointer(PARTIALS, acc.dtype);
        List<KernelParam> first = new ArrayList<>();
        List<Role> firstRoles = new ArrayList<>();
        List<KernelParam> last = new ArrayList<>(List.of(partials));
        List<Role> lastRoles = new ArrayList<>(List.of(Role.INPUT_POINTER));
        List<Role> userRoles = new ArrayList<>();
        for (int k = 0; k < params.size(); k++) {
            KernelParam p = params.get(k);
            Role role = Params.role(p, outputs.get(k));
            userRoles.add(role);
            if (role != Role.OUTPUT_POINTER) {
                first.add(p);
                firstRoles.add(role);
            }
            if (role != Role.INPUT_POINTER) {
                last.add(p);
                lastRoles.add(role);
            }
        }
        first.add(partials);
        firstRoles.add(Role.OUTPUT_POINTER);
        Kernel partialsKernel = kernel(name + "_partials", first, firstRoles, false, true, Shape.SEGMENTS);
        Kernel segmentsKernel = kernel(name + "_segments", params, userRoles, false, false, Shape.SEGMENTS);
        Kernel finalKernel = kernel(name + "_final", last, lastRoles, true, false, Shape.SEGMENTS);
        Kernel columnsKernel = kernel(name + "_columns", params, userRoles, false, false, Shape.COLUMNS);
        Kernel columnPartialsKernel = kernel(name + "_column_partials", first, firstRoles, false, true, Shape.COLUMNS);
        Kernel columnFinalKernel = kernel(name + "_column_final", last, lastRoles, true, false, Shape.COLUMNS);
        Kernel narrowRowsKernel = kernel(name + "_narrow_rows", params, userRoles, false, false, Shape.NARROW_ROWS);
        Kernel rowPartialsKernel = kernel(name + "_row_partials", first, firstRoles, false, true, Shape.ROW_CHUNKS);
        return new Reduction(name, params, outputs, acc.dtype, List.of(partialsKernel, finalKernel, segmentsKernel,
                columnsKernel, columnPartialsKernel, columnFinalKernel, narrowRowsKernel, rowPartialsKernel));
    }

    /** What a kernel reduces, each with its geometry parameters. */
    private enum Shape {
        /** Segments (see {@link #GEOMETRY}): a whole buffer's chunks, the partials of those, rows a block each. */
        SEGMENTS(GEOMETRY),
        /** Tiles of columns (see {@link #COLUMN_GEOMETRY}). */
        COLUMNS(COLUMN_GEOMETRY),
        /** Narrow rows, a part of a warp each (see {@link #NARROW_GEOMETRY}). */
        NARROW_ROWS(NARROW_GEOMETRY),
        /** Chunks of wide rows (see {@link #ROW_CHUNK_GEOMETRY}). */
        ROW_CHUNKS(ROW_CHUNK_GEOMETRY);

        final List<String> geometry;

        Shape(List<String> geometry) {
            this.geometry = geometry;
        }
    }

    /**
     * A kernel of {@code shape} over {@code kernelParams} (then the shape's geometry): its map reads the partials if
     * {@code fromPartials}, else is the user's; it stores the reduced value into the partials if {@code toPartials}, else
     * runs the post-map.
     */
    private Kernel kernel(String kernelName, List<KernelParam> kernelParams, List<Role> roles, boolean fromPartials,
            boolean toPartials, Shape shape) {
        List<Symbol> symbols = new ArrayList<>();
        Map<String, Integer> position = new HashMap<>();
        for (int k = 0; k < kernelParams.size(); k++) {
            KernelParam p = kernelParams.get(k);
            symbols.add(new Symbol(p.name(), Ty.of(p.type()).orElseThrow(), roles.get(k), k));
            position.put(p.name(), k);
        }
        Kernel.Builder b = Kernel.named(kernelName);
        for (int k = 0; k < kernelParams.size(); k++) {
            b.param(Params.withAccess(kernelParams.get(k), roles.get(k))); // what the kernel reads, for automatic ordering
        }
        for (String g : shape.geometry) {
            b.param(KernelParam.scalar(g, DType.I64));
        }
        // Inputs are indexed below the element count, outputs (and the partials a pass writes) below the segment count:
        // a direct launch of Reduction.kernels() with smaller buffers is refused as DeviceReduction's calls are.
        String[] read = pointers(kernelParams, roles, Role.INPUT_POINTER);
        String[] written = pointers(kernelParams, roles, Role.OUTPUT_POINTER);
        if (read.length > 0) {
            b.elementCount("sl_total", read);
        }
        b.elementCount("sl_count", written);
        return switch (shape) {
            case SEGMENTS -> b.cudaSource(cuda(kernelName, symbols, fromPartials, toPartials))
                    .java(java(kernelName, symbols, position, fromPartials, toPartials))
                    .build();
            case COLUMNS -> b.cudaSource(columnsCuda(kernelName, symbols, fromPartials, toPartials))
                    .java(columnsJava(kernelName, symbols, position, fromPartials, toPartials))
                    .build();
            case NARROW_ROWS -> b.cudaSource(narrowRowsCuda(kernelName, symbols))
                    .java(narrowRowsJava(kernelName, symbols, position))
                    .build();
            case ROW_CHUNKS -> b.cudaSource(rowPartialsCuda(kernelName, symbols))
                    .java(rowPartialsJava(kernelName, symbols, position))
                    .build();
        };
    }

    private static String[] pointers(List<KernelParam> kernelParams, List<Role> roles, Role role) {
        List<String> names = new ArrayList<>();
        for (int k = 0; k < kernelParams.size(); k++) {
            if (kernelParams.get(k).isPointer() && roles.get(k) == role) {
                names.add(kernelParams.get(k).name());
            }
        }
        return names.toArray(String[]::new);
    }

    // ---------------------------------------------------------------- CUDA C++

    /** Accumulators per thread in the whole-buffer pass: loads in flight per thread, to cover memory latency. */
    private static final int LANES = 4;

    /**
     * A generator that reads the inputs at {@code index} and spells the reduce expression's {@code a} and {@code b} as
     * {@code a} and {@code b}.
     */
    private static CudaSource cudaNames(String index, String a, String b) {
        return new CudaSource(s -> switch (s.role()) {
            case INPUT_POINTER -> "p_" + s.name() + "[" + index + "]";
            case OUTPUT_POINTER -> "p_" + s.name() + "[sl_o]";
            case SCALAR -> "p_" + s.name();
            case LOCAL -> "v_" + s.name();
            case INDEX -> index;
            case COUNT -> "sl_total";
            case ACCUMULATOR -> s.index() == 0 ? a : b;
        });
    }

    /** {@code into = reduce(a, b);} */
    private String combine(String into, String a, String b) {
        return into + " = " + cudaNames("sl_i", a, b).converted(reduce, acc) + ";";
    }

    private String cuda(String kernelName, List<Symbol> symbols, boolean fromPartials, boolean toPartials) {
        CudaSource gen = cudaNames("sl_i", "sl_a", "sl_b");
        String t = CudaSource.c(acc);
        String id = gen.converted(identity, acc);
        String combine = combine("sl_a", "sl_a", "sl_b");
        boolean wholeBuffer = toPartials;
        StringBuilder out = new StringBuilder(CudaSource.PRELUDE).append(SHUFFLE);
        out.append(signature(kernelName, symbols, fromPartials, toPartials, GEOMETRY));
        out.append(blockFoldDeclarations(t));
        if (wholeBuffer) {
            out.append(wholeBufferLoop(t, id));
        }
        out.append(wholeBuffer ? "    {\n        const long long sl_o = blockIdx.x;\n"
                : "    for (long long sl_o = blockIdx.x; sl_o < sl_count; sl_o += gridDim.x) {\n");
        if (!wholeBuffer) {
            out.append(segmentLoop(t, id, gen, fromPartials, combine));
        }
        // A block past the segment count (a direct launch with more blocks than partials) has nowhere to write.
        out.append(blockFold(t, id, combine, toPartials ? "if (sl_o < sl_count) p_" + PARTIALS + "[sl_o] = sl_a;\n"
                : gen.statements(postMap, "")));
        if (!wholeBuffer) {
            out.append("        __syncthreads(); // sl_warps is reused by the next segment\n");
        }
        out.append("    }\n}\n");
        return out.toString();
    }

    /** hiprtc spells the warp shuffle without a mask (its wavefronts may be 64 wide); NVRTC needs __shfl_down_sync. */
    private static final String SHUFFLE = """
            #if defined(__HIPCC_RTC__) || defined(__HIP__)
            #define SL_SHFL_DOWN(v, offset) __shfl_down((v), (offset))
            #else
            #define SL_SHFL_DOWN(v, offset) __shfl_down_sync(0xffffffffu, (v), (offset))
            #endif
            """;

    /** The shared memory and thread indices {@link #blockFold} uses, at the top of a kernel. */
    private static String blockFoldDeclarations(String t) {
        return "    __shared__ " + t + " sl_warps[32];\n"
                + "    const int sl_lane = threadIdx.x % warpSize;\n"
                + "    const int sl_warp = threadIdx.x / warpSize;\n";
    }

    /**
     * Combines every thread's {@code sl_a} of the block in a fixed order and runs {@code write} (statements, each line
     * ending with a newline) in thread 0 with the block's value in {@code sl_a}: within each warp with shuffles, then the
     * warps' values in warp 0. Every thread of the block must reach it.
     */
    private static String blockFold(String t, String id, String combine, String write) {
        // Within a warp: lanes fold the upper half onto the lower, halving the distance (a lane past the block's end
        // has nothing to give).
        String warpReduce = """
                        for (int sl_d = warpSize / 2; sl_d > 0; sl_d /= 2) {
                            %s sl_b = SL_SHFL_DOWN(sl_a, sl_d);
                            if (sl_lane + sl_d < warpSize && threadIdx.x + sl_d < blockDim.x) %s
                        }
                """.formatted(t, combine);
        StringBuilder out = new StringBuilder(warpReduce.indent(0));
        out.append("        if (sl_lane == 0) sl_warps[sl_warp] = sl_a;\n");
        out.append("        __syncthreads();\n");
        out.append("        if (sl_warp == 0) {\n");
        out.append("            const int sl_count_warps = (blockDim.x + warpSize - 1) / warpSize;\n");
        out.append("            sl_a = sl_lane < sl_count_warps ? sl_warps[sl_lane] : ").append(id).append(";\n");
        out.append(warpReduce.indent(4).replace("threadIdx.x + sl_d < blockDim.x", "sl_lane + sl_d < sl_count_warps"));
        out.append("            if (sl_lane == 0) {\n");
        out.append(write.indent(16));
        out.append("            }\n");
        out.append("        }\n");
        return out.toString();
    }

    /** {@code extern "C" __global__ void name(parameters, geometry) {}, the opening brace ending the line. */
    private static String signature(String kernelName, List<Symbol> symbols, boolean fromPartials, boolean toPartials,
            List<String> geometry) {
        StringBuilder out = new StringBuilder("\nextern \"C\" __global__ void ").append(kernelName).append('(');
        for (Symbol p : symbols) {
            // The passes that write partials write only the scratch partials, which no argument can be, and the final
            // passes read only them: in these no pointer the kernel writes can alias one it reads, so they may be
            // __restrict__ (inputs then read through the non-coherent read-only path). The one-pass kernels write the
            // user's outputs, which the user may also pass as inputs, so they keep plain pointers.
            boolean restricted = toPartials || fromPartials && p.role() == Role.INPUT_POINTER;
            out.append(Params.cDeclaration(p, restricted)).append(", ");
        }
        return out.append(String.join(", ", geometry.stream().map(g -> "long long " + g).toList())).append(") {\n")
                .toString();
    }

    /**
     * A column kernel: block {@code (x, y)} reduces the columns of tile {@code x} (and every {@code gridDim.x}-th tile
     * after it), {@value #COLUMN_TILE} adjacent columns, over the rows of chunk {@code y}. Lane {@code x} of each warp
     * takes column {@code x} of the tile and warp {@code w} the rows {@code w, w + warps, ...} of the chunk, so a warp's
     * loads are one contiguous run of a row (the segment kernel's block per column read a column, a row apart per
     * thread). Each column's per-warp values are then combined in warp order through shared memory. No shuffles, so a
     * HIP wavefront of 64 reads two rows' runs. Blocks must be a multiple of 32 threads, at most 1,024.
     */
    private String columnsCuda(String kernelName, List<Symbol> symbols, boolean fromPartials, boolean toPartials) {
        CudaSource gen = cudaNames("sl_i", "sl_a", "sl_b");
        String t = CudaSource.c(acc);
        String id = gen.converted(identity, acc);
        String combine = combine("sl_a", "sl_a", "sl_b");
        String tile = String.valueOf(COLUMN_TILE);
        StringBuilder out = new StringBuilder(CudaSource.PRELUDE);
        out.append(signature(kernelName, symbols, fromPartials, toPartials, COLUMN_GEOMETRY));
        out.append("    __shared__ ").append(t).append(" sl_tile[32][").append(tile).append("];\n");
        out.append("    const int sl_x = threadIdx.x % ").append(tile).append(";\n");
        out.append("    const int sl_y = threadIdx.x / ").append(tile).append(";\n");
        out.append("    const int sl_warps = blockDim.x / ").append(tile).append(";\n");
        out.append("""
                    const long long sl_first = (long long) blockIdx.y * sl_chunk_rows;
                    // The chunk's end, min(sl_rows, sl_first + sl_chunk_rows) without overflowing.
                    const long long sl_end = sl_first >= sl_rows ? sl_first
                            : sl_rows - sl_first < sl_chunk_rows ? sl_rows : sl_first + sl_chunk_rows;
                """);
        out.append("    for (long long sl_t = blockIdx.x; sl_t * ").append(tile).append(" < sl_cols; sl_t += gridDim.x) {\n");
        out.append("        const long long sl_j = sl_t * ").append(tile).append(" + sl_x;\n");
        out.append("        ").append(t).append(" sl_a = ").append(id).append(";\n");
        out.append("        if (sl_j < sl_cols && sl_y < sl_warps) {\n");
        out.append("            #pragma unroll 4\n");
        out.append("            for (long long sl_r = sl_first + sl_y; sl_r < sl_end; sl_r += sl_warps) {\n");
        out.append("                const long long sl_i = sl_r * sl_cols + sl_j;\n");
        // Unsigned: an index that overflowed from a direct launch's geometry is past the end too.
        out.append("                if ((unsigned long long) sl_i >= (unsigned long long) sl_total) break;\n");
        out.append("                ").append(t).append(" sl_b = ")
                .append(fromPartials ? "p_" + PARTIALS + "[sl_i]" : gen.converted(map, acc)).append(";\n");
        out.append("                ").append(combine).append("\n");
        out.append("            }\n");
        out.append("        }\n");
        out.append("        if (sl_y < sl_warps) sl_tile[sl_y][sl_x] = sl_a;\n");
        out.append("        __syncthreads();\n");
        out.append("        if (sl_y == 0 && sl_j < sl_cols) {\n");
        out.append("            for (int sl_w = 1; sl_w < sl_warps; sl_w++) {\n");
        out.append("                ").append(t).append(" sl_b = sl_tile[sl_w][sl_x];\n");
        out.append("                ").append(combine).append("\n");
        out.append("            }\n");
        out.append("            const long long sl_o = (long long) blockIdx.y * sl_cols + sl_j;\n");
        // A block past the values written (a chunk of a one-pass launch with more than one block row) writes nothing.
        out.append("            if (sl_o < sl_count) {\n");
        if (toPartials) {
            out.append("                p_").append(PARTIALS).append("[sl_o] = sl_a;\n");
        } else {
            out.append(gen.statements(postMap, "                "));
        }
        out.append("            }\n");
        out.append("        }\n");
        out.append("        __syncthreads(); // sl_tile is reused by the next tile\n");
        out.append("    }\n}\n");
        return out.toString();
    }

    /**
     * {@code sl_length} = how many of the {@code width} elements from {@code sl_start} lie below the element count: none
     * where the start is past it (compared unsigned, so that a start that overflowed from a direct launch's geometry is
     * too), so that the loop over them needs no test per element.
     */
    private static String clampedLength(String indent, String width) {
        return indent + "const long long sl_length = (unsigned long long) sl_start >= (unsigned long long) sl_total ? 0\n"
                + indent + "        : sl_total - sl_start < " + width + " ? sl_total - sl_start : " + width + ";\n";
    }

    /**
     * The narrow-row kernel: {@code sl_lanes} adjacent lanes of a warp (a power of two up to 32: the launch picks the
     * smallest that covers a row, or 32) reduce a row, lane {@code p} taking its elements {@code p, p + lanes, ...}, and
     * combine their values with shuffles in a fixed tree (lane {@code p} takes lane {@code p + d}'s, {@code d} halving
     * from {@code lanes / 2}); a block of 256 threads holds {@code 256 / lanes} rows, adjacent, so a warp's loads are one
     * run of the buffer. No block barrier and no idle warps: a block per row of 64 columns left three quarters of its
     * threads idle and paid a barrier per row. A warp goes round its loop as a whole (its rows past the end reduce
     * nothing and write nothing), as the shuffles need. Blocks must be a multiple of the warp size.
     */
    private String narrowRowsCuda(String kernelName, List<Symbol> symbols) {
        CudaSource gen = cudaNames("sl_i", "sl_a", "sl_b");
        String t = CudaSource.c(acc);
        String id = gen.converted(identity, acc);
        String combine = combine("sl_a", "sl_a", "sl_b");
        StringBuilder out = new StringBuilder(CudaSource.PRELUDE).append(SHUFFLE);
        out.append(signature(kernelName, symbols, false, false, NARROW_GEOMETRY));
        out.append("""
                    // A power of two up to 32 and at most a block, so that a row's lanes are a part of one warp: a direct
                    // launch with other lanes writes nothing.
                    if (sl_lanes < 1 || sl_lanes > 32 || (sl_lanes & (sl_lanes - 1)) != 0 || sl_lanes > blockDim.x) return;
                    const int sl_lane = threadIdx.x % warpSize;
                    const int sl_part = sl_lane % (int) sl_lanes;
                    const long long sl_pass = (long long) gridDim.x * (blockDim.x / sl_lanes);
                    for (long long sl_first = ((long long) blockIdx.x * blockDim.x + threadIdx.x - sl_lane) / sl_lanes;
                            sl_first < sl_count; sl_first += sl_pass) {
                        const long long sl_o = sl_first + sl_lane / sl_lanes;
                """);
        out.append("        ").append(t).append(" sl_a = ").append(id).append(";\n");
        out.append("        if (sl_o < sl_count) {\n");
        out.append("            const long long sl_start = sl_o * sl_cols;\n");
        out.append(clampedLength("            ", "sl_cols"));
        out.append("            #pragma unroll 4\n");
        out.append("            for (long long sl_k = sl_part; sl_k < sl_length; sl_k += sl_lanes) {\n");
        out.append("                const long long sl_i = sl_start + sl_k;\n");
        out.append("                ").append(t).append(" sl_b = ").append(gen.converted(map, acc)).append(";\n");
        out.append("                ").append(combine).append("\n");
        out.append("            }\n");
        out.append("        }\n");
        out.append("        for (int sl_d = (int) sl_lanes / 2; sl_d > 0; sl_d /= 2) {\n");
        out.append("            ").append(t).append(" sl_b = SL_SHFL_DOWN(sl_a, sl_d);\n");
        // Lanes past a row's group take the next row's values, but only each group's first lane is written from, and
        // it takes its own group's lanes alone.
        out.append("            ").append(combine).append("\n");
        out.append("        }\n");
        out.append("        if (sl_part == 0 && sl_o < sl_count) {\n");
        out.append(gen.statements(postMap, "            "));
        out.append("        }\n");
        out.append("    }\n}\n");
        return out.toString();
    }

    /**
     * The row-chunk kernel, the first pass over a few wide rows: block {@code (x, y)} reduces chunk {@code y} (columns
     * {@code y * chunk_cols} up to the next chunk or the row's end) of row {@code x} (and every {@code gridDim.x}-th row
     * after it) as the segment kernel reduces a row, its threads striding along the chunk then combining over the tree
     * of warps, and writes the value to partial {@code row * chunks + y}. The segment kernel then reduces each row's
     * partials in chunk order (see {@link DeviceReduction#enqueueRows}). With a block per row, 64 rows kept 64 of the
     * device's SMs busy.
     */
    private String rowPartialsCuda(String kernelName, List<Symbol> symbols) {
        CudaSource gen = cudaNames("sl_i", "sl_a", "sl_b");
        String t = CudaSource.c(acc);
        String id = gen.converted(identity, acc);
        String combine = combine("sl_a", "sl_a", "sl_b");
        StringBuilder out = new StringBuilder(CudaSource.PRELUDE).append(SHUFFLE);
        out.append(signature(kernelName, symbols, false, true, ROW_CHUNK_GEOMETRY));
        out.append(blockFoldDeclarations(t));
        out.append("""
                    if (sl_chunk_cols < 1) return; // a direct launch's mistake: nothing to divide the rows by
                    const long long sl_chunks = sl_cols / sl_chunk_cols + (sl_cols % sl_chunk_cols != 0);
                    if ((long long) blockIdx.y >= sl_chunks) return; // the whole block: no chunk of its own
                    const long long sl_column = (long long) blockIdx.y * sl_chunk_cols;
                    const long long sl_width = sl_cols - sl_column < sl_chunk_cols ? sl_cols - sl_column : sl_chunk_cols;
                    for (long long sl_o = blockIdx.x; sl_o < sl_rows; sl_o += gridDim.x) {
                        const long long sl_start = sl_o * sl_cols + sl_column;
                """);
        out.append(clampedLength("        ", "sl_width"));
        out.append("        ").append(t).append(" sl_a = ").append(id).append(";\n");
        out.append("        #pragma unroll 4\n");
        out.append("        for (long long sl_k = threadIdx.x; sl_k < sl_length; sl_k += blockDim.x) {\n");
        out.append("            const long long sl_i = sl_start + sl_k;\n");
        out.append("            ").append(t).append(" sl_b = ").append(gen.converted(map, acc)).append(";\n");
        out.append("            ").append(combine).append("\n");
        out.append("        }\n");
        // Unsigned: a partial's index that overflowed from a direct launch's geometry is past the values too.
        out.append(blockFold(t, id, combine, "const long long sl_v = sl_o * sl_chunks + blockIdx.y;\n"
                + "if ((unsigned long long) sl_v < (unsigned long long) sl_count) p_" + PARTIALS + "[sl_v] = sl_a;\n"));
        out.append("        __syncthreads(); // sl_warps is reused by the next row\n");
        out.append("    }\n}\n");
        return out.toString();
    }

    /** Thread-strided reduction of segment {@code sl_o} into {@code sl_a}: element k at {@code o * outer + k * inner}. */
    private String segmentLoop(String t, String id, CudaSource gen, boolean fromPartials, String combine) {
        return "        " + t + " sl_a = " + id + ";\n"
                + "        for (long long sl_k = threadIdx.x; sl_k < sl_length; sl_k += blockDim.x) {\n"
                + "            const long long sl_i = sl_o * sl_outer + sl_k * sl_inner;\n"
                // Unsigned: an index that overflowed or a negative stride from a direct launch is past the end too.
                + "            if ((unsigned long long) sl_i >= (unsigned long long) sl_total) break;\n"
                + "            " + t + " sl_b = " + (fromPartials ? "p_" + PARTIALS + "[sl_i]" : gen.converted(map, acc)) + ";\n"
                + "            " + combine + "\n"
                + "        }\n";
    }

    /**
     * The whole-buffer pass's own loop, into {@code sl_a}: the grid strides over all {@code sl_total} elements (each
     * warp's loads are contiguous, and the index is one addition per element, with no per-element bounds break), and
     * each thread keeps {@value #LANES} accumulators so that as many loads are in flight. Accumulator {@code j} takes the
     * {@code j}-th element of each group of {@value #LANES} strides, the rest go to accumulator 0, and they combine in
     * a fixed tree: for given sizes the order never changes, so results are the same from run to run. Only the element
     * count is used of the geometry; the blocks' chunks are the CPU backend's order.
     */
    private String wholeBufferLoop(String t, String id) {
        StringBuilder out = new StringBuilder();
        out.append("    const long long sl_stride = (long long) gridDim.x * blockDim.x;\n");
        out.append("    long long sl_i = (long long) blockIdx.x * blockDim.x + threadIdx.x;\n");
        for (int j = 0; j < LANES; j++) {
            out.append("    ").append(t).append(" sl_a").append(j).append(" = ").append(id).append(";\n");
        }
        out.append("    for (; sl_i + ").append(LANES - 1).append(" * sl_stride < sl_total; sl_i += ").append(LANES)
                .append(" * sl_stride) {\n");
        for (int j = 0; j < LANES; j++) { // every load first, then the combines: the loads do not wait on each other
            String index = j == 0 ? "sl_i" : "sl_i" + j;
            if (j > 0) {
                out.append("        const long long ").append(index).append(" = sl_i + ").append(j).append(" * sl_stride;\n");
            }
            out.append("        const ").append(t).append(" sl_b").append(j).append(" = ")
                    .append(cudaNames(index, "sl_a", "sl_b").converted(map, acc)).append(";\n");
        }
        for (int j = 0; j < LANES; j++) {
            out.append("        ").append(combine("sl_a" + j, "sl_a" + j, "sl_b" + j)).append("\n");
        }
        out.append("    }\n");
        out.append("    for (; sl_i < sl_total; sl_i += sl_stride) {\n");
        out.append("        const ").append(t).append(" sl_b0 = ").append(cudaNames("sl_i", "sl_a", "sl_b").converted(map, acc))
                .append(";\n");
        out.append("        ").append(combine("sl_a0", "sl_a0", "sl_b0")).append("\n");
        out.append("    }\n");
        // A fixed tree, ((a0 . a1) . (a2 . a3)) for four: neighbours first, then pairs of pairs.
        for (int step = 1; step < LANES; step *= 2) {
            for (int j = 0; j + step < LANES; j += 2 * step) {
                out.append("    ").append(combine("sl_a" + j, "sl_a" + j, "sl_a" + (j + step))).append("\n");
            }
        }
        out.append("    ").append(t).append(" sl_a = sl_a0;\n");
        return out.toString();
    }

    // ---------------------------------------------------------------- Java

    private JavaKernel java(String kernelName, List<Symbol> symbols, Map<String, Integer> position, boolean fromPartials,
            boolean toPartials) {
        MethodTypeDesc longArg = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_int);
        MethodTypeDesc intGetter = MethodTypeDesc.of(ConstantDescs.CD_int);
        TypeKind k = JavaCode.kind(acc);
        return Generated.kernel(kernelName, cb -> {
            Label end = cb.newLabel();
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "threadIdxX", intGetter).ifne(end);
            int[] slots = Params.load(cb, symbols);
            int[] geometry = new int[GEOMETRY.size()];
            for (int g = 0; g < geometry.length; g++) {
                geometry[g] = cb.allocateLocal(TypeKind.LONG);
                cb.aload(1).loadConstant(symbols.size() + g).invokeinterface(Generated.KERNEL_THREAD, "longArg", longArg)
                        .lstore(geometry[g]);
            }
            int count = geometry[0];
            int length = geometry[1];
            int outer = geometry[2];
            int inner = geometry[3];
            int total = geometry[4];
            int o = cb.allocateLocal(TypeKind.LONG);
            int step = cb.allocateLocal(TypeKind.LONG);
            int kk = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            int a = cb.allocateLocal(k);
            int b = cb.allocateLocal(k);
            MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxX", intGetter).i2l().lstore(o);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).i2l().lstore(step);
            JavaCode code = new JavaCode(cb, access(slots, position, i, o, total, a, b));
            Label segments = cb.newLabel();
            Label elements = cb.newLabel();
            Label segmentDone = cb.newLabel();
            cb.labelBinding(segments);
            cb.lload(o).lload(count).lcmp().ifge(end);
            code.converted(identity, acc);
            cb.storeLocal(k, a);
            cb.lconst_0().lstore(kk);
            cb.labelBinding(elements);
            cb.lload(kk).lload(length).lcmp().ifge(segmentDone);
            cb.lload(o).lload(outer).lmul().lload(kk).lload(inner).lmul().ladd().lstore(i);
            cb.lload(i).lload(total).invokestatic(ConstantDescs.CD_Long, "compareUnsigned",
                    MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long, ConstantDescs.CD_long)).ifge(segmentDone);
            if (fromPartials) {
                JavaCode.loadElement(cb, slots[position.get(PARTIALS)], i, acc);
            } else {
                code.converted(map, acc);
            }
            cb.storeLocal(k, b);
            code.converted(reduce, acc);
            cb.storeLocal(k, a);
            cb.lload(kk).lconst_1().ladd().lstore(kk);
            cb.goto_(elements);
            cb.labelBinding(segmentDone);
            if (toPartials) {
                cb.loadLocal(k, a);
                JavaCode.storeElement(cb, slots[position.get(PARTIALS)], o, acc);
            } else {
                code.statements(postMap);
            }
            cb.lload(o).lload(step).ladd().lstore(o);
            cb.goto_(segments);
            cb.labelBinding(end);
            cb.return_();
        }, this::tooLarge);
    }

    /**
     * How the generated Java reads and writes: inputs at the element index in slot {@code i}, outputs at the segment's
     * index in slot {@code o}, {@code n} from slot {@code total}, {@code a} and {@code b} from their slots.
     */
    private JavaCode.Access access(int[] slots, Map<String, Integer> position, int i, int o, int total, int a, int b) {
        TypeKind k = JavaCode.kind(acc);
        return new JavaCode.Access() {
            @Override
            public void load(CodeBuilder c, Symbol s) {
                switch (s.role()) {
                    case INPUT_POINTER -> JavaCode.loadElement(c, slots[position.get(s.name())], i, s.type());
                    case OUTPUT_POINTER -> JavaCode.loadElement(c, slots[position.get(s.name())], o, s.type());
                    case SCALAR -> c.loadLocal(JavaCode.kind(s.type()), slots[position.get(s.name())]);
                    case INDEX -> c.lload(i);
                    case COUNT -> c.lload(total);
                    case ACCUMULATOR -> c.loadLocal(k, s.index() == 0 ? a : b);
                    default -> throw new AssertionError(s);
                }
            }

            @Override
            public void store(CodeBuilder c, Symbol s) {
                JavaCode.storeElement(c, slots[position.get(s.name())], o, s.type());
            }
        };
    }

    /**
     * A column kernel in Java: thread 0 of block {@code (x, y)} reduces each column of its tiles over the rows of chunk
     * {@code y} in row order, and the block's other threads return. Blocks of one launch run in parallel.
     */
    private JavaKernel columnsJava(String kernelName, List<Symbol> symbols, Map<String, Integer> position,
            boolean fromPartials, boolean toPartials) {
        MethodTypeDesc longArg = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_int);
        MethodTypeDesc intGetter = MethodTypeDesc.of(ConstantDescs.CD_int);
        MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
        MethodTypeDesc longPair = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_long, ConstantDescs.CD_long);
        MethodTypeDesc unsignedCompare = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long, ConstantDescs.CD_long);
        TypeKind k = JavaCode.kind(acc);
        return Generated.kernel(kernelName, cb -> {
            Label end = cb.newLabel();
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "threadIdxX", intGetter).ifne(end);
            int[] slots = Params.load(cb, symbols);
            int[] geometry = new int[COLUMN_GEOMETRY.size()];
            for (int g = 0; g < geometry.length; g++) {
                geometry[g] = cb.allocateLocal(TypeKind.LONG);
                cb.aload(1).loadConstant(symbols.size() + g).invokeinterface(Generated.KERNEL_THREAD, "longArg", longArg)
                        .lstore(geometry[g]);
            }
            int cols = geometry[0];
            int rows = geometry[1];
            int chunkRows = geometry[2];
            int count = geometry[3];
            int total = geometry[4];
            int first = cb.allocateLocal(TypeKind.LONG);
            int last = cb.allocateLocal(TypeKind.LONG);
            int tile = cb.allocateLocal(TypeKind.LONG);
            int step = cb.allocateLocal(TypeKind.LONG);
            int j = cb.allocateLocal(TypeKind.LONG);
            int tileEnd = cb.allocateLocal(TypeKind.LONG);
            int r = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            int o = cb.allocateLocal(TypeKind.LONG);
            int a = cb.allocateLocal(k);
            int b = cb.allocateLocal(k);
            // first = blockIdx.y * chunkRows; last = first + min(max(rows - first, 0), chunkRows): no overflow
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxY", intGetter).i2l().lload(chunkRows).lmul()
                    .lstore(first);
            cb.lload(rows).lload(first).lsub().lconst_0()
                    .invokestatic(MATH, "max", longPair)
                    .lload(chunkRows).invokestatic(MATH, "min", longPair)
                    .lload(first).ladd().lstore(last);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxX", intGetter).i2l().lstore(tile);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).i2l().lstore(step);
            JavaCode code = new JavaCode(cb, access(slots, position, i, o, total, a, b));
            Label tiles = cb.newLabel();
            Label columns = cb.newLabel();
            Label elements = cb.newLabel();
            Label columnDone = cb.newLabel();
            Label written = cb.newLabel();
            Label tileDone = cb.newLabel();
            cb.labelBinding(tiles);
            cb.lload(tile).loadConstant((long) COLUMN_TILE).lmul().lstore(j);
            cb.lload(j).lload(cols).lcmp().ifge(end);
            cb.lload(j).loadConstant((long) COLUMN_TILE).ladd().lload(cols)
                    .invokestatic(MATH, "min", longPair).lstore(tileEnd);
            cb.labelBinding(columns);
            cb.lload(j).lload(tileEnd).lcmp().ifge(tileDone);
            code.converted(identity, acc);
            cb.storeLocal(k, a);
            cb.lload(first).lstore(r);
            cb.labelBinding(elements);
            cb.lload(r).lload(last).lcmp().ifge(columnDone);
            cb.lload(r).lload(cols).lmul().lload(j).ladd().lstore(i);
            cb.lload(i).lload(total).invokestatic(ConstantDescs.CD_Long, "compareUnsigned", unsignedCompare)
                    .ifge(columnDone);
            if (fromPartials) {
                JavaCode.loadElement(cb, slots[position.get(PARTIALS)], i, acc);
            } else {
                code.converted(map, acc);
            }
            cb.storeLocal(k, b);
            code.converted(reduce, acc);
            cb.storeLocal(k, a);
            cb.lload(r).lconst_1().ladd().lstore(r);
            cb.goto_(elements);
            cb.labelBinding(columnDone);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxY", intGetter).i2l().lload(cols).lmul()
                    .lload(j).ladd().lstore(o);
            cb.lload(o).lload(count).lcmp().ifge(written);
            if (toPartials) {
                cb.loadLocal(k, a);
                JavaCode.storeElement(cb, slots[position.get(PARTIALS)], o, acc);
            } else {
                code.statements(postMap);
            }
            cb.labelBinding(written);
            cb.lload(j).lconst_1().ladd().lstore(j);
            cb.goto_(columns);
            cb.labelBinding(tileDone);
            cb.lload(tile).lload(step).ladd().lstore(tile);
            cb.goto_(tiles);
            cb.labelBinding(end);
            cb.return_();
        }, this::tooLarge);
    }

    /**
     * The narrow-row kernel in Java: thread 0 of block {@code b} reduces, in column order, the rows the C++ gives the
     * block: {@code blockDim.x / lanes} adjacent rows from {@code b * blockDim.x / lanes}, and as many again every
     * {@code gridDim.x} blocks' worth of rows. The block's other threads return.
     */
    private JavaKernel narrowRowsJava(String kernelName, List<Symbol> symbols, Map<String, Integer> position) {
        MethodTypeDesc intGetter = MethodTypeDesc.of(ConstantDescs.CD_int);
        MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
        MethodTypeDesc bitCount = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long);
        TypeKind k = JavaCode.kind(acc);
        return Generated.kernel(kernelName, cb -> {
            Label end = cb.newLabel();
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "threadIdxX", intGetter).ifne(end);
            int[] slots = Params.load(cb, symbols);
            int[] geometry = geometry(cb, symbols.size(), NARROW_GEOMETRY.size());
            int count = geometry[0];
            int cols = geometry[1];
            int lanes = geometry[2];
            int total = geometry[3];
            int perBlock = cb.allocateLocal(TypeKind.LONG);
            int skip = cb.allocateLocal(TypeKind.LONG);
            int o = cb.allocateLocal(TypeKind.LONG);
            int start = cb.allocateLocal(TypeKind.LONG);
            int length = cb.allocateLocal(TypeKind.LONG);
            int kk = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            int a = cb.allocateLocal(k);
            int b = cb.allocateLocal(k);
            // As the C++: lanes a power of two from 1 to 32, and at most a block, or nothing is written.
            cb.lload(lanes).lconst_1().lcmp().iflt(end);
            cb.lload(lanes).loadConstant(32L).lcmp().ifgt(end);
            cb.lload(lanes).invokestatic(ConstantDescs.CD_Long, "bitCount", bitCount).iconst_1().if_icmpne(end);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).i2l().lload(lanes).ldiv().lstore(perBlock);
            cb.lload(perBlock).lconst_0().lcmp().ifle(end);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).iconst_1().isub().i2l().lload(perBlock).lmul().lstore(skip);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxX", intGetter).i2l().lload(perBlock).lmul()
                    .lstore(o);
            JavaCode code = new JavaCode(cb, access(slots, position, i, o, total, a, b));
            Label rows = cb.newLabel();
            Label sameBlock = cb.newLabel();
            cb.labelBinding(rows);
            cb.lload(o).lload(count).lcmp().ifge(end);
            cb.lload(o).lload(cols).lmul().lstore(start);
            clampedLength(cb, start, cols, total, length);
            reduceRun(cb, code, start, length, kk, i, a, b);
            code.statements(postMap);
            // the next row: the block's next, or past its rows the first of its next pass
            cb.lload(o).lconst_1().ladd().lstore(o);
            cb.lload(o).lload(perBlock).lrem().lconst_0().lcmp().ifne(sameBlock);
            cb.lload(o).lload(skip).ladd().lstore(o);
            cb.labelBinding(sameBlock);
            cb.goto_(rows);
            cb.labelBinding(end);
            cb.return_();
        }, this::tooLarge);
    }

    /**
     * The row-chunk kernel in Java: thread 0 of block {@code (x, y)} reduces chunk {@code y} of row {@code x} (and of
     * every {@code gridDim.x}-th row after it) in column order into its partial, as the C++ indexes them; the block's
     * other threads return.
     */
    private JavaKernel rowPartialsJava(String kernelName, List<Symbol> symbols, Map<String, Integer> position) {
        MethodTypeDesc intGetter = MethodTypeDesc.of(ConstantDescs.CD_int);
        MethodTypeDesc dim = MethodTypeDesc.of(Generated.DIM);
        MethodTypeDesc longPair = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_long, ConstantDescs.CD_long);
        MethodTypeDesc unsignedCompare = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long, ConstantDescs.CD_long);
        TypeKind k = JavaCode.kind(acc);
        return Generated.kernel(kernelName, cb -> {
            Label end = cb.newLabel();
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "threadIdxX", intGetter).ifne(end);
            int[] slots = Params.load(cb, symbols);
            int[] geometry = geometry(cb, symbols.size(), ROW_CHUNK_GEOMETRY.size());
            int rowCount = geometry[0];
            int cols = geometry[1];
            int chunkCols = geometry[2];
            int count = geometry[3];
            int total = geometry[4];
            int chunks = cb.allocateLocal(TypeKind.LONG);
            int chunk = cb.allocateLocal(TypeKind.LONG);
            int column = cb.allocateLocal(TypeKind.LONG);
            int width = cb.allocateLocal(TypeKind.LONG);
            int step = cb.allocateLocal(TypeKind.LONG);
            int o = cb.allocateLocal(TypeKind.LONG);
            int start = cb.allocateLocal(TypeKind.LONG);
            int length = cb.allocateLocal(TypeKind.LONG);
            int v = cb.allocateLocal(TypeKind.LONG);
            int kk = cb.allocateLocal(TypeKind.LONG);
            int i = cb.allocateLocal(TypeKind.LONG);
            int a = cb.allocateLocal(k);
            int b = cb.allocateLocal(k);
            cb.lload(chunkCols).lconst_1().lcmp().iflt(end);
            // chunks = cols / chunkCols, plus one for a remainder, as the C++ counts them
            cb.lload(cols).lload(chunkCols).ldiv().lstore(chunks);
            Label even = cb.newLabel();
            cb.lload(cols).lload(chunkCols).lrem().lconst_0().lcmp().ifeq(even);
            cb.lload(chunks).lconst_1().ladd().lstore(chunks);
            cb.labelBinding(even);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxY", intGetter).i2l().lstore(chunk);
            cb.lload(chunk).lload(chunks).lcmp().ifge(end);
            cb.lload(chunk).lload(chunkCols).lmul().lstore(column);
            cb.lload(cols).lload(column).lsub().lload(chunkCols).invokestatic(MATH, "min", longPair).lstore(width);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "blockIdxX", intGetter).i2l().lstore(o);
            cb.aload(1).invokeinterface(Generated.KERNEL_THREAD, "gridDim", dim)
                    .invokevirtual(Generated.DIM, "x", intGetter).i2l().lstore(step);
            JavaCode code = new JavaCode(cb, access(slots, position, i, o, total, a, b));
            Label rows = cb.newLabel();
            Label written = cb.newLabel();
            cb.labelBinding(rows);
            cb.lload(o).lload(rowCount).lcmp().ifge(end);
            cb.lload(o).lload(cols).lmul().lload(column).ladd().lstore(start);
            clampedLength(cb, start, width, total, length);
            reduceRun(cb, code, start, length, kk, i, a, b);
            cb.lload(o).lload(chunks).lmul().lload(chunk).ladd().lstore(v);
            cb.lload(v).lload(count).invokestatic(ConstantDescs.CD_Long, "compareUnsigned", unsignedCompare).ifge(written);
            cb.loadLocal(k, a);
            JavaCode.storeElement(cb, slots[position.get(PARTIALS)], v, acc);
            cb.labelBinding(written);
            cb.lload(o).lload(step).ladd().lstore(o);
            cb.goto_(rows);
            cb.labelBinding(end);
            cb.return_();
        }, this::tooLarge);
    }

    /** Loads the launch's {@code size} geometry arguments, after its {@code params} others, into new long locals. */
    private static int[] geometry(CodeBuilder cb, int params, int size) {
        MethodTypeDesc longArg = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_int);
        int[] geometry = new int[size];
        for (int g = 0; g < size; g++) {
            geometry[g] = cb.allocateLocal(TypeKind.LONG);
            cb.aload(1).loadConstant(params + g).invokeinterface(Generated.KERNEL_THREAD, "longArg", longArg)
                    .lstore(geometry[g]);
        }
        return geometry;
    }

    /** As the C++'s {@link #clampedLength}: {@code length} = the elements of {@code width} from {@code start} below {@code total}. */
    private static void clampedLength(CodeBuilder cb, int start, int width, int total, int length) {
        MethodTypeDesc longPair = MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_long, ConstantDescs.CD_long);
        MethodTypeDesc unsignedCompare = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_long, ConstantDescs.CD_long);
        Label inside = cb.newLabel();
        Label done = cb.newLabel();
        cb.lload(start).lload(total).invokestatic(ConstantDescs.CD_Long, "compareUnsigned", unsignedCompare).iflt(inside);
        cb.lconst_0().lstore(length);
        cb.goto_(done);
        cb.labelBinding(inside);
        cb.lload(total).lload(start).lsub().lload(width).invokestatic(MATH, "min", longPair).lstore(length);
        cb.labelBinding(done);
    }

    /** {@code a} = the identity, then reduced with the map of elements {@code start .. start + length - 1} in order. */
    private void reduceRun(CodeBuilder cb, JavaCode code, int start, int length, int kk, int i, int a, int b) {
        TypeKind k = JavaCode.kind(acc);
        Label elements = cb.newLabel();
        Label done = cb.newLabel();
        code.converted(identity, acc);
        cb.storeLocal(k, a);
        cb.lconst_0().lstore(kk);
        cb.labelBinding(elements);
        cb.lload(kk).lload(length).lcmp().ifge(done);
        cb.lload(start).lload(kk).ladd().lstore(i);
        code.converted(map, acc);
        cb.storeLocal(k, b);
        code.converted(reduce, acc);
        cb.storeLocal(k, a);
        cb.lload(kk).lconst_1().ladd().lstore(kk);
        cb.goto_(elements);
        cb.labelBinding(done);
    }

    /** A method over the JVM's limits: the part with the longest source is blamed, which is likely the reason. */
    private dev.sluice.CompilationException tooLarge(String problem) {
        Map<String, String> parts = new LinkedHashMap<>();
        parts.put("map", mapSource);
        parts.put("reduce", reduceSource);
        parts.put("identity", identitySource);
        parts.put("postMap", postMapSource);
        Map.Entry<String, String> longest = parts.entrySet().stream()
                .max(Comparator.comparingInt(e -> e.getValue().length())).orElseThrow();
        return SourceError.at(name, longest.getKey(), longest.getValue(), 1, 1, problem
                + " (map, reduce, identity and postMap together)");
    }
}
