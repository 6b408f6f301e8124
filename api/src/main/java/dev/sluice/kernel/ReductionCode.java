package dev.sluice.kernel;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Ast.Expr;
import dev.sluice.kernel.Ast.Role;
import dev.sluice.kernel.Ast.Statement;
import dev.sluice.kernel.Ast.Symbol;
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
    static final String PARTIALS = "sl_partials";

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
        Kernel.Builder b = Kernel.named(kernelName).entryPoint(CudaSource.entryPoint(kernelName));
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
                    .java(javaCode().java(kernelName, symbols, position, fromPartials, toPartials))
                    .build();
            case COLUMNS -> b.cudaSource(columnsCuda(kernelName, symbols, fromPartials, toPartials))
                    .java(javaCode().columnsJava(kernelName, symbols, position, fromPartials, toPartials))
                    .build();
            case NARROW_ROWS -> b.cudaSource(narrowRowsCuda(kernelName, symbols))
                    .java(javaCode().narrowRowsJava(kernelName, symbols, position))
                    .build();
            case ROW_CHUNKS -> b.cudaSource(rowPartialsCuda(kernelName, symbols))
                    .java(javaCode().rowPartialsJava(kernelName, symbols, position))
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
        StringBuilder out = new StringBuilder("\nextern \"C\" __global__ void ").append(CudaSource.entryPoint(kernelName))
                .append('(');
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
     * fewest that leave each lane at most {@link DeviceReduction#ELEMENTS_PER_LANE} elements) reduce a row, lane {@code p} taking its elements {@code p, p + lanes, ...}, and
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

    /** The Java half of the kernels, over the same expressions. */
    private ReductionJava javaCode() {
        return new ReductionJava(acc, map, reduce, identity, postMap, this::tooLarge);
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
