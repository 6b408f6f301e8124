package dev.sluice.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.CompilationException;
import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Errors in kernel source are found when the kernel is built, at the position they are at; no device is touched. */
class KernelLanguageTest {

    private static ElementwiseBuilder axpb() {
        return Kernels.elementwise("axpb")
                .input(KernelParam.scalar("a", DType.F32))
                .input(KernelParam.pointer("x", DType.F32))
                .input(KernelParam.scalar("k", DType.I32))
                .output(KernelParam.pointer("y", DType.F32));
    }

    private static String error(String body) {
        CompilationException e = assertThrows(CompilationException.class, () -> axpb().body(body).build());
        return e.getMessage();
    }

    private static void assertError(String body, int line, int column, String expected) {
        String message = error(body);
        assertTrue(message.startsWith("kernel axpb, body, line " + line + ", column " + column + ": "),
                "position in: " + message);
        assertTrue(message.contains(expected), "'" + expected + "' in: " + message);
    }

    @Test
    void inputPointersAreReadsAndOutputsWritesForAutomaticOrdering() {
        Kernel k = axpb().body("y = a * x").build();
        assertEquals(KernelParam.Access.READ, k.params().get(1).access(), "x is an input pointer");
        assertEquals(KernelParam.Access.READ_WRITE, k.params().get(3).access(), "y is an output pointer");
    }

    @Test
    void aMissingOperandIsReportedWhereTheExpressionWasExpected() {
        assertError("y = a * ;", 1, 9, "expected an expression, found ';'");
    }

    @Test
    void positionsCountLinesAndColumnsFromOne() {
        assertError("f32 t = x;\n  y = t +* a", 2, 10, "expected an expression, found '*'");
    }

    @Test
    void anUnknownNameIsAnErrorThatListsTheKnownOnes() {
        assertError("y = a * z + 1.0f", 1, 9, "unknown name 'z'; the names here are [a, x, k, y, i, n]");
    }

    @Test
    void anUnknownFunctionIsAnErrorThatListsTheFunctions() {
        assertError("y = tanh(x)", 1, 5, "unknown function 'tanh'; the functions are [abs, ceil, cos, exp, floor, fma, log, max, min, pow, sin, sqrt]");
    }

    @Test
    void narrowingWithoutACastIsATypeError() {
        assertError("y = x * 2.0", 1, 1, "cannot assign a value of type f64 to the output y of type f32 without a cast, e.g. (f32) ...");
        assertError("y = (f32) k;\nf32 t = 1;\ni32 u = t", 3, 5, "cannot assign a value of type f32 to the local u of type i32");
    }

    @Test
    void floatFunctionsRefuseIntegers() {
        assertError("y = sqrt(k)", 1, 10, "sqrt takes f32 or f64, found i32; cast it");
    }

    @Test
    void arityAndOperandTypesAreChecked() {
        assertError("y = pow(x)", 1, 5, "pow takes 2 arguments, found 1");
        assertError("y = x < a + 1.0f", 1, 1, "cannot assign a value of type bool");
        assertError("y = (x && a) ? 1.0f : 0.0f", 1, 8, "operator && takes bools, found f32 and f32");
        assertError("y = k > 0 ? x : true", 1, 11, "the branches of ?: must both be numbers or both bools");
        assertError("y = x ? a : x", 1, 5, "the condition of ?: must be a bool, found f32");
    }

    @Test
    void inputsCannotBeAssignedNorNamesDeclaredTwice() {
        assertError("x = a", 1, 1, "cannot assign to 'x' (an input of type f32)");
        assertError("f32 x = a;\ny = x", 1, 5, "'x' is already declared (an input of type f32)");
    }

    @Test
    void badLiteralsAndCharactersAreReported() {
        assertError("y = x + 2147483648", 1, 9, "the literal 2147483648 does not fit i32 (add L for i64)");
        assertError("y = x # 1", 1, 7, "unexpected character '#'");
        assertError("y = x + 1.5q", 1, 12, "unexpected 'q' after the number 1.5");
    }

    @Test
    void aMissingSemicolonBetweenStatementsIsReported() {
        assertError("f32 t = x y = t", 1, 11, "expected ';' between statements, found 'y'");
    }

    @Test
    void unsupportedTypesAndReservedNamesAreRefusedAtDeclaration() {
        InvalidArgumentException t = assertThrows(InvalidArgumentException.class,
                () -> Kernels.elementwise("k").input(KernelParam.pointer("h", DType.F16)));
        assertEquals("param", t.argument());
        assertTrue(t.getMessage().contains("has type F16, which generated kernels do not support"), t.getMessage());
        InvalidArgumentException r = assertThrows(InvalidArgumentException.class,
                () -> Kernels.elementwise("k").input(KernelParam.scalar("n", DType.I64)));
        assertTrue(r.getMessage().contains("the name 'n' is reserved"), r.getMessage());
        InvalidArgumentException s = assertThrows(InvalidArgumentException.class,
                () -> Kernels.elementwise("k").output(KernelParam.scalar("y", DType.F32)));
        assertTrue(s.getMessage().contains("is a scalar; outputs are pointers"), s.getMessage());
        InvalidArgumentException none = assertThrows(InvalidArgumentException.class,
                () -> Kernels.elementwise("k").input(KernelParam.pointer("x", DType.F32)).body("x").build());
        assertEquals("kernel", none.argument());
    }

    @Test
    void theGeneratedCudaSourceSpellsOutWhatCLeavesUndefined() {
        Kernel k = Kernels.elementwise("ops")
                .input(KernelParam.pointer("x", DType.I32))
                .input(KernelParam.pointer("f", DType.F32))
                .output(KernelParam.pointer("y", DType.I32))
                .body("y = x * x / x + (i32) f")
                .build();
        String cuda = k.cudaSource().orElseThrow();
        assertTrue(cuda.contains("extern \"C\" __global__ void sluice_ops(const int* p_x, const float* p_f, int* p_y, long long sl_n)"), cuda);
        assertTrue(cuda.contains("(unsigned int) p_x[sl_i] * (unsigned int) p_x[sl_i]"), "wrapping multiplication: " + cuda);
        assertTrue(cuda.contains("sl_div_i32("), "defined division: " + cuda);
        assertTrue(cuda.contains("sl_f2i((double) (p_f[sl_i]))"), "saturating conversion: " + cuda);
        assertTrue(cuda.contains("sl_i += sl_stride"), "grid-stride loop: " + cuda);
        assertTrue(cuda.contains("if (sl_stride >= sl_n) {"), "a thread per element without a loop: " + cuda);
        assertFalse(cuda.contains("__restrict__"), "an input may be the same buffer as an output: " + cuda);
        assertEquals(4, k.params().size());
        assertEquals(KernelParam.scalar("n", DType.I64), k.params().get(3));
    }

    private static ReductionBuilder sum() {
        return Kernels.reduction("total")
                .input(KernelParam.pointer("x", DType.F32))
                .output(KernelParam.pointer("y", DType.F32))
                .accumulator(DType.F32)
                .map("x")
                .reduce("a + b")
                .identity("0.0f")
                .postMap("y = a");
    }

    private static void assertReductionError(ReductionBuilder r, String part, int line, int column, String expected) {
        String message = assertThrows(CompilationException.class, r::build).getMessage();
        assertTrue(message.startsWith("kernel total, " + part + ", line " + line + ", column " + column + ": "),
                "position in: " + message);
        assertTrue(message.contains(expected), "'" + expected + "' in: " + message);
    }

    @Test
    void reductionErrorsNameThePartTheyAreIn() {
        assertReductionError(sum().map("x * q"), "map", 1, 5, "unknown name 'q'; the names here are [x, i, n]");
        assertReductionError(sum().map("y"), "map", 1, 1, "unknown name 'y'");
        assertReductionError(sum().reduce("a + x"), "reduce", 1, 5, "unknown name 'x'; the names here are [a, b]");
        assertReductionError(sum().reduce("a +"), "reduce", 1, 4, "expected an expression, found the end of the source");
        assertReductionError(sum().identity("0.0"), "identity", 1, 1, "the identity is of type f64 but the accumulator is f32");
        assertReductionError(sum().identity("0.0f 1"), "identity", 1, 6, "expected the end of the expression, found '1'");
        assertReductionError(sum().postMap("y = a;\ny = x"), "postMap", 2, 5, "unknown name 'x'");
    }

    @Test
    void reductionDeclarationsAreChecked() {
        InvalidArgumentException acc = assertThrows(InvalidArgumentException.class,
                () -> Kernels.reduction("r").accumulator(DType.I16));
        assertEquals("type", acc.argument());
        InvalidArgumentException incomplete = assertThrows(InvalidArgumentException.class,
                () -> Kernels.reduction("r").input(KernelParam.pointer("x", DType.F32)).map("x").build());
        assertTrue(incomplete.getMessage().contains("call accumulator(...), reduce(...), identity(...), postMap(...), output(...)"),
                incomplete.getMessage());
        InvalidArgumentException reserved = assertThrows(InvalidArgumentException.class,
                () -> Kernels.reduction("r").input(KernelParam.pointer("a", DType.F32)));
        assertTrue(reserved.getMessage().contains("the name 'a' is reserved"), reserved.getMessage());
    }

    @Test
    void onlyPointersNoWrittenPointerCanAliasAreRestricted() {
        List<Kernel> kernels = sum().build().kernels();
        String partials = kernels.get(0).cudaSource().orElseThrow();
        String last = kernels.get(1).cudaSource().orElseThrow();
        String segments = kernels.get(2).cudaSource().orElseThrow();
        String columnPartials = kernels.get(4).cudaSource().orElseThrow();
        String columnFinal = kernels.get(5).cudaSource().orElseThrow();
        assertTrue(columnPartials.contains("total_column_partials(const float* __restrict__ p_x, float* __restrict__"
                + " p_sl_partials,"), columnPartials);
        assertTrue(columnFinal.contains("total_column_final(const float* __restrict__ p_sl_partials, float* p_y,"),
                columnFinal);
        assertTrue(kernels.get(3).cudaSource().orElseThrow().contains("total_columns(const float* p_x, float* p_y,"));
        assertTrue(partials.contains("total_partials(const float* __restrict__ p_x, float* __restrict__ p_sl_partials,"),
                partials);
        assertTrue(last.contains("total_final(const float* __restrict__ p_sl_partials, float* p_y,"), last);
        assertTrue(segments.contains("total_segments(const float* p_x, float* p_y,"), segments);
        String narrow = kernels.get(6).cudaSource().orElseThrow();
        String rowPartials = kernels.get(7).cudaSource().orElseThrow();
        assertTrue(narrow.contains("total_narrow_rows(const float* p_x, float* p_y,"), narrow);
        assertTrue(rowPartials.contains("total_row_partials(const float* __restrict__ p_x, float* __restrict__"
                + " p_sl_partials,"), rowPartials);
    }

    @Test
    void theWholeBufferPassKeepsFourAccumulatorsCombinedInAFixedOrder() {
        String partials = Kernels.reduction("total").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I64)).accumulator(DType.I64).map("(i64) x * i").reduce("max(a, b)")
                .identity("0").postMap("y = a").build().kernels().getFirst().cudaSource().orElseThrow();
        assertTrue(partials.contains("for (; sl_i + 3 * sl_stride < sl_total; sl_i += 4 * sl_stride) {"), partials);
        assertTrue(partials.contains("const long long sl_i3 = sl_i + 3 * sl_stride;"), partials);
        // The map sees each accumulator's own index, for the element and for i.
        assertTrue(partials.contains("p_x[sl_i3]"), partials);
        assertTrue(partials.contains("sl_i3))"), partials);
        assertTrue(partials.contains("sl_a3 = sl_max_i64(sl_a3, sl_b3);"), partials);
        assertTrue(partials.contains("sl_a0 = sl_max_i64(sl_a0, sl_a1);\n    sl_a2 = sl_max_i64(sl_a2, sl_a3);\n"
                + "    sl_a0 = sl_max_i64(sl_a0, sl_a2);\n"), partials);
        assertFalse(partials.contains("sl_o * sl_outer"), "no per-element chunk arithmetic: " + partials);
    }

    @Test
    void theReductionSourceSpellsTheWarpShuffleForBothCompilers() {
        String cuda = sum().build().kernels().getFirst().cudaSource().orElseThrow();
        assertTrue(cuda.contains("__shfl_down_sync(0xffffffffu, (v), (offset))"), cuda);
        assertTrue(cuda.contains("#if defined(__HIPCC_RTC__) || defined(__HIP__)"), cuda);
        assertTrue(cuda.contains("__shfl_down((v), (offset))"), cuda);
        assertEquals(List.of("total_partials", "total_final", "total_segments", "total_columns", "total_column_partials",
                "total_column_final", "total_narrow_rows", "total_row_partials"),
                sum().build().kernels().stream().map(Kernel::name).toList());
        for (Kernel k : sum().build().kernels()) {
            assertTrue(k.cudaSource().orElseThrow().contains("#define SL_SHFL_DOWN") || k.name().contains("column"),
                    "every kernel that shuffles defines the shuffle: " + k.name());
        }
    }

    @Test
    void aColumnKernelsWarpReadsAdjacentColumnsOfOneRow() {
        List<Kernel> kernels = sum().build().kernels();
        for (Kernel k : kernels.subList(3, 6)) {
            String cuda = k.cudaSource().orElseThrow();
            // Lane x of a warp takes column 32t + x; a warp's rows are the same: its loads are one run of a row.
            assertTrue(cuda.contains("const int sl_x = threadIdx.x % 32;"), cuda);
            assertTrue(cuda.contains("const int sl_y = threadIdx.x / 32;"), cuda);
            assertTrue(cuda.contains("const long long sl_j = sl_t * 32 + sl_x;"), cuda);
            assertTrue(cuda.contains("for (long long sl_r = sl_first + sl_y; sl_r < sl_end; sl_r += sl_warps) {"), cuda);
            assertTrue(cuda.contains("const long long sl_i = sl_r * sl_cols + sl_j;"), cuda);
            assertFalse(cuda.contains("sl_inner"), "no thread walks down a column: " + cuda);
        }
        assertTrue(kernels.get(3).cudaSource().orElseThrow().contains("p_x[sl_i]"), "the one-pass kernel maps the input");
        assertTrue(kernels.get(4).cudaSource().orElseThrow().contains("p_sl_partials[sl_o] = sl_a;"), "partials stored");
        assertTrue(kernels.get(5).cudaSource().orElseThrow().contains("sl_b = p_sl_partials[sl_i];"), "partials read");
        // The row kernel: a block per row, its threads striding along the row, thread k at element k of each stride.
        String rows = kernels.get(2).cudaSource().orElseThrow();
        assertTrue(rows.contains("for (long long sl_k = threadIdx.x; sl_k < sl_length; sl_k += blockDim.x) {"), rows);
    }

    @Test
    void aNarrowRowIsReducedByLanesOfOneWarpWithoutABlockBarrier() {
        String cuda = sum().build().kernels().get(6).cudaSource().orElseThrow();
        // Lane p of a row's group takes elements p, p + lanes, ...; a warp goes round the loop as a whole.
        assertTrue(cuda.contains("for (long long sl_k = sl_part; sl_k < sl_length; sl_k += sl_lanes) {"), cuda);
        assertTrue(cuda.contains("const long long sl_o = sl_first + sl_lane / sl_lanes;"), cuda);
        assertTrue(cuda.contains("for (int sl_d = (int) sl_lanes / 2; sl_d > 0; sl_d /= 2) {"), cuda);
        assertTrue(cuda.contains("float sl_b = SL_SHFL_DOWN(sl_a, sl_d);\n            sl_a = (sl_a + sl_b);"), cuda);
        assertFalse(cuda.contains("__syncthreads"), "no block barrier: " + cuda);
        assertFalse(cuda.contains("unsigned long long) sl_i"), "no test per element: " + cuda);
    }

    @Test
    void aWideRowsChunkIsReducedByABlockIntoItsPartial() {
        String cuda = sum().build().kernels().get(7).cudaSource().orElseThrow();
        assertTrue(cuda.contains("const long long sl_column = (long long) blockIdx.y * sl_chunk_cols;"), cuda);
        assertTrue(cuda.contains("for (long long sl_k = threadIdx.x; sl_k < sl_length; sl_k += blockDim.x) {"), cuda);
        assertTrue(cuda.contains("const long long sl_v = sl_o * sl_chunks + blockIdx.y;"), cuda);
        assertTrue(cuda.contains("p_sl_partials[sl_v] = sl_a;"), cuda);
    }

    @Test
    void rowsPickTheirKernelByShapeAlone() {
        assertEquals(List.of(1L, 1L, 2L, 2L, 4L, 4L, 8L, 8L, 16L, 32L, 32L),
                java.util.stream.LongStream.of(1, 8, 9, 16, 17, 32, 33, 64, 65, 129, 1024)
                        .map(DeviceReduction::lanesPerRow).boxed().toList(),
                "lanes: the fewest powers of two leaving at most 8 elements a lane, 32 at most");
        // 64 rows of 4 Mi: 16 chunks a row, 1,024 blocks in all.
        assertEquals(262_144, DeviceReduction.rowChunkCols(64, 4_194_304));
        // One row: as many chunks of 2,048 columns (a multiple of 32) as the row holds, up to 1,024.
        assertEquals(2048, DeviceReduction.rowChunkCols(1, 1_000_003));
        assertEquals(4096, DeviceReduction.rowChunkCols(1, 1024 * 4096));
        assertEquals(2048, DeviceReduction.rowChunkCols(3, 300_000));
        // Enough rows, or too few columns for two chunks: one pass.
        assertEquals(1_000_000, DeviceReduction.rowChunkCols(1024, 1_000_000));
        assertEquals(1025, DeviceReduction.rowChunkCols(1000, 1025));
        assertEquals(2048, DeviceReduction.rowChunkCols(2, 2048));
        assertEquals(1504, DeviceReduction.rowChunkCols(2, 3000));
    }

    // ---------------------------------------------------------------- sources at and past the limits

    /** {@code count} copies of {@code part}, joined by {@code separator}. */
    private static String repeat(String part, String separator, int count) {
        return String.join(separator, java.util.Collections.nCopies(count, part));
    }

    /**
     * Runs {@code build} on a thread with a 256 KiB stack (a quarter of the JVM's default), so that a builder recursing
     * once per term of a long chain fails here rather than only on threads with smaller stacks than the test's.
     */
    private static void onSmallStack(Runnable build) throws InterruptedException {
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(null, () -> {
            try {
                build.run();
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, "small-stack", 256 * 1024);
        t.start();
        t.join();
        if (failure[0] != null) {
            throw new AssertionError("failed on a 256 KiB stack: " + failure[0], failure[0]);
        }
    }

    @Test
    void aSumOfTwoThousandTermsCompiles() throws InterruptedException {
        onSmallStack(() -> {
            Kernel k = axpb().body("y = " + repeat("x", " + ", 2_000)).build();
            assertTrue(k.java().isPresent());
            String cuda = k.cudaSource().orElseThrow();
            assertTrue(cuda.contains("(" + repeat("p_x[sl_i]", " + ", 2_000) + ")"), "a flat chain in C++: " + cuda);
            // Each operator level, and the short-circuit ones, is a long left-associative chain too.
            axpb().body("y = " + repeat("x * a", " - ", 1_000)).build();
            axpb().body("y = " + repeat("x < a", " && ", 500) + " ? 1.0f : 0.0f").build();
            axpb().body("y = (f32) (" + repeat("k", " / ", 2_000) + ")").build();
            sum().map(repeat("x", " + ", 2_000)).build();
        });
    }

    @Test
    void aLongIntegerChainIsOneUnsignedRunInCuda() {
        String cuda = axpb().body("y = (f32) (" + repeat("k", " + ", 3) + " - k * k * k)").build().cudaSource().orElseThrow();
        assertTrue(cuda.contains("((int) ((unsigned int) p_k + (unsigned int) p_k + (unsigned int) p_k - (unsigned int) "
                + "((int) ((unsigned int) p_k * (unsigned int) p_k * (unsigned int) p_k))))"), cuda);
    }

    @Test
    void tenThousandNestedParenthesesAreRefusedAtTheFirstOneTooDeep() {
        int limit = Parser.MAX_NESTING;
        assertError("y = " + "(".repeat(10_000) + "x" + ")".repeat(10_000), 1, 5 + limit,
                "expression nested deeper than " + limit + " levels");
        axpb().body("y = " + "(".repeat(limit) + "x" + ")".repeat(limit)).build(); // at the limit: compiles
    }

    @Test
    void tenThousandUnaryOperatorsAreRefusedAtTheFirstOneTooDeep() {
        int limit = Parser.MAX_NESTING;
        assertError("y = " + "- ".repeat(10_000) + "x", 1, 5 + 2 * limit, "expression nested deeper than " + limit);
        assertError("y = " + "!".repeat(10_000) + "(x < a) ? x : a", 1, 5 + limit, "expression nested deeper than " + limit);
        assertError("y = " + "(f32) ".repeat(10_000) + "x", 1, 5 + 6 * limit, "expression nested deeper than " + limit);
        axpb().body("y = " + "- ".repeat(limit) + "x").build();
    }

    @Test
    void deepTernaryChainsAndNestedCallsAreRefusedOnALaterLine() {
        int limit = Parser.MAX_NESTING;
        // An else-chain: each ?: nests the next; the first one too deep is on line limit + 1.
        assertError("y = " + repeat("x > a ? x :", "\n", 10_000) + " a", limit + 1, 7,
                "expression nested deeper than " + limit);
        String message = error("y = " + "x > a ? (".repeat(10_000) + "x" + " : a)".repeat(10_000));
        assertTrue(message.contains("expression nested deeper than " + limit), message);
        message = error("y = " + "min(".repeat(10_000) + "x" + ", a)".repeat(10_000));
        assertTrue(message.contains("expression nested deeper than " + limit), message);
        axpb().body("y = " + repeat("x > a ? x :", "\n", limit) + " a").build();
    }

    @Test
    void deepNestingInReductionPartsIsRefusedToo() {
        int limit = Parser.MAX_NESTING;
        String deep = "(".repeat(10_000) + "a" + ")".repeat(10_000);
        assertReductionError(sum().reduce(deep + " + b"), "reduce", 1, 1 + limit, "expression nested deeper than " + limit);
        assertReductionError(sum().postMap("y = " + deep), "postMap", 1, 5 + limit, "expression nested deeper than " + limit);
    }

    @Test
    void aBodyOverTheJvmsCodeSizeIsACompilationErrorNamingTheLimit() {
        String message = error(repeat("y = x * a + (f32) k", ";\n", 5_000));
        assertTrue(message.startsWith("kernel axpb, body, line 1, column 1: "), message);
        assertTrue(message.contains("64 KiB"), message);
        String reduction = assertThrows(CompilationException.class,
                () -> sum().postMap(repeat("y = a * a", ";\n", 10_000)).build()).getMessage();
        assertTrue(reduction.contains("64 KiB"), reduction);
    }

    @Test
    void manyLocalsAreACompilationErrorNamingALimit() {
        StringBuilder body = new StringBuilder();
        for (int l = 0; l < 40_000; l++) {
            body.append("f64 t").append(l).append(" = 1.0;\n");
        }
        body.append("y = (f32) t0");
        String message = error(body.toString());
        assertTrue(message.contains("64 KiB") || message.contains("65,535 local"), message);
    }

    @Test
    void anElementCountNamesADeclaredIntegerScalarAndDeclaredPointers() {
        Kernel.Builder k = Kernel.named("k").param(KernelParam.pointer("x", DType.F32)).param(KernelParam.scalar("f", DType.F32))
                .param(KernelParam.scalar("n", DType.I64));
        InvalidArgumentException notInteger = assertThrows(InvalidArgumentException.class, () -> k.elementCount("f", "x"));
        assertEquals("count", notInteger.argument());
        assertTrue(notInteger.getMessage().contains("no I32 or I64 scalar parameter named 'f'"), notInteger.getMessage());
        InvalidArgumentException unknown = assertThrows(InvalidArgumentException.class, () -> k.elementCount("n", "x", "z"));
        assertEquals("pointers", unknown.argument());
        assertTrue(unknown.getMessage().contains("no pointer parameter named 'z'"), unknown.getMessage());
        assertEquals("pointers", assertThrows(InvalidArgumentException.class, () -> k.elementCount("n")).argument());
        k.elementCount("n", "x").java(t -> { }).build();
    }
}
