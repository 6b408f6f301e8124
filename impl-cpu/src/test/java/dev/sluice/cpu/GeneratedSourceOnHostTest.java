package dev.sluice.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.HostData;
import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.DeviceReduction;
import dev.sluice.kernel.Kernels;
import dev.sluice.kernel.Reduction;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The CUDA C++ that {@link Kernels#elementwise} (and {@link Kernels#fuse}, {@link Kernels#reduction}) generates, compiled for the host by the machine's C++ compiler (with
 * CUDA's built-in names stubbed, the grid walked by a loop) and run on edge values, computes bit for bit what the Java
 * the CPU backend runs computes: so the C++ spells out wrapping, division by zero, saturating conversions and the rest
 * as the language defines them, even where no GPU is at hand. Skipped where there is no {@code c++} or {@code g++}.
 * Exactly rounded operations only: the host's {@code expf} and friends are not the GPU's.
 */
class GeneratedSourceOnHostTest {

    private static final String SHIM = """
            #include <math.h>
            #include <stdio.h>
            #include <string.h>
            #define __global__
            #define __device__
            #define __forceinline__ inline
            struct sl_dim3 { unsigned x, y, z; };
            static sl_dim3 threadIdx, blockIdx, blockDim, gridDim;
            """;

    /**
     * For running generated C++ on the host with the threads of a block as real threads: {@code __syncthreads} a barrier
     * of the block, {@code __shfl_down_sync} one of each warp of 32, {@code __shared__} memory static, and
     * {@code launch(gx, gy, threads, kernel)} running the blocks one after another. Blocks of a multiple of 32 threads.
     */
    private static final String THREADED_SHIM = """
            #include <math.h>
            #include <stdio.h>
            #include <pthread.h>
            #include <thread>
            #include <vector>
            #define __global__
            #define __device__
            #define __forceinline__ inline
            #define __shared__ static
            struct sl_dim3 { unsigned x, y, z; };
            static thread_local sl_dim3 threadIdx;
            static sl_dim3 blockIdx, blockDim, gridDim;
            static pthread_barrier_t sl_barrier;
            #define __syncthreads() pthread_barrier_wait(&sl_barrier)
            static const int warpSize = 32;
            static pthread_barrier_t sl_warp_barriers[32];
            // A warp's shuffle: each lane leaves its value, the warp meets, each takes the one offset lanes up (its
            // own past the warp's end), and the warp meets again before the slots are reused. Every lane of the warp
            // must call it, as __shfl_down_sync with a full mask requires: a kernel that diverges hangs here.
            template <class T> static T __shfl_down_sync(unsigned, T v, int offset) {
                static T slots[1024];
                const unsigned t = threadIdx.x;
                slots[t] = v;
                pthread_barrier_wait(&sl_warp_barriers[t / 32]);
                const T got = t % 32 + offset < 32 ? slots[t + offset] : v;
                pthread_barrier_wait(&sl_warp_barriers[t / 32]);
                return got;
            }
            template <class F> static void launch(unsigned gx, unsigned gy, unsigned threads, F kernel) {
                gridDim = {gx, gy, 1};
                blockDim = {threads, 1, 1};
                for (unsigned by = 0; by < gy; by++) {
                    for (unsigned bx = 0; bx < gx; bx++) {
                        blockIdx = {bx, by, 0};
                        pthread_barrier_init(&sl_barrier, nullptr, threads);
                        for (unsigned w = 0; w < threads / 32; w++) pthread_barrier_init(&sl_warp_barriers[w], nullptr, 32);
                        std::vector<std::thread> block;
                        for (unsigned t = 0; t < threads; t++) {
                            block.emplace_back([t, &kernel] { threadIdx = {t, 0, 0}; kernel(); });
                        }
                        for (std::thread& t : block) t.join();
                        pthread_barrier_destroy(&sl_barrier);
                        for (unsigned w = 0; w < threads / 32; w++) pthread_barrier_destroy(&sl_warp_barriers[w]);
                    }
                }
            }
            """;

    private static final List<DType> TYPES = List.of(DType.I8, DType.U8, DType.I16, DType.I32, DType.I64, DType.F32, DType.F64);

    private static final List<String> BODIES = List.of("z = x + y", "z = x - y", "z = x * y", "z = x / y", "z = x % y", "z = -x",
            "z = min(x, y)", "z = max(x, y)", "z = abs(x)", "z = x < y", "z = x != y", "z = x >= y ? x : y",
            "z = (i8) x", "z = (u8) x", "z = (i16) x", "z = (i32) x", "z = (i64) x", "z = (f32) x", "z = (f64) x", "z = (bool) x",
            // Chains of one operator group, which the C++ writes flat (integer ones as one unsigned run).
            "z = x + y - x * y * x + y - (x - y - x) * y", "z = x < y && x != y && y < x || x == y || y >= x && x != x");

    private static final List<String> FLOAT_BODIES = List.of("z = sqrt(x)", "z = floor(x)", "z = ceil(x)", "z = fma(x, y, x)");

    private record Case(String name, Kernel kernel, DType in, DType out, byte[] x, byte[] y, int n) {
    }

    @Test
    void theGeneratedCudaSourceComputesWhatTheCpuBackendComputes() throws Exception {
        String compiler = findCompiler();
        assumeTrue(compiler != null, "no c++ or g++ on the PATH");
        List<Case> cases = new ArrayList<>();
        for (DType t : TYPES) {
            List<String> bodies = new ArrayList<>(BODIES);
            if (t.isFloatingPoint()) {
                bodies.addAll(FLOAT_BODIES);
            }
            for (String body : bodies) {
                String name = "k" + cases.size();
                DType out = outputType(body, t);
                Kernel k = Kernels.elementwise(name).input(KernelParam.pointer("x", t)).input(KernelParam.pointer("y", t))
                        .output(KernelParam.pointer("z", out)).body(body).build();
                cases.add(pairs(name, k, t, out));
            }
            String name = "k" + cases.size();
            cases.add(pairs(name, fusedChain(name, t), t, t));
        }
        StringBuilder program = new StringBuilder(SHIM);
        StringBuilder main = new StringBuilder("int main() {\n    gridDim.x = 3; blockDim.x = 32;\n");
        boolean first = true;
        for (Case c : cases) {
            String source = c.kernel.cudaSource().orElseThrow();
            // The helpers come once; every kernel's source starts with the same ones.
            program.append(first ? source : source.substring(source.indexOf("extern \"C\"")));
            first = false;
            String in = c.in.cName();
            String out = c.out.cName();
            main.append("    {\n")
                    .append("        static const unsigned char xb[] = {").append(bytes(c.x)).append("};\n")
                    .append("        static const unsigned char yb[] = {").append(bytes(c.y)).append("};\n")
                    .append("        static ").append(in).append(" x[").append(c.n).append("], y[").append(c.n).append("];\n")
                    .append("        static ").append(out).append(" z[").append(c.n).append("];\n")
                    .append("        memcpy(x, xb, sizeof x); memcpy(y, yb, sizeof y);\n")
                    // A grid smaller than the elements (the grid-stride loop), then one covering them (a thread each).
                    .append("        const unsigned grids[2] = {3u, ").append((c.n + 31) / 32).append("u};\n")
                    .append("        for (int g = 0; g < 2; g++) {\n")
                    .append("            memset(z, 0, sizeof z); gridDim.x = grids[g];\n")
                    .append("            for (unsigned b = 0; b < grids[g]; b++) for (unsigned t = 0; t < 32; t++) {\n")
                    .append("                blockIdx.x = b; threadIdx.x = t; ").append(c.kernel.entryPoint()).append("(x, y, z, ").append(c.n).append(");\n")
                    .append("            }\n")
                    .append("            const unsigned char* zb = (const unsigned char*) z;\n")
                    .append("            printf(\"").append(c.name).append(" \");\n")
                    .append("            for (unsigned k = 0; k < sizeof z; k++) printf(\"%02x\", zb[k]);\n")
                    .append("            printf(\"\\n\");\n")
                    .append("        }\n")
                    .append("    }\n");
        }
        main.append("    return 0;\n}\n");
        program.append(main);
        Path dir = Files.createTempDirectory("sluice-generated-cuda");
        Path source = dir.resolve("kernels.cpp");
        Path binary = dir.resolve("kernels");
        Files.writeString(source, program);
        // No contraction of a * b + c into fma: the JVM rounds twice, and so may a GPU told --fmad=false.
        String compiled = run(List.of(compiler, "-std=c++14", "-O1", "-ffp-contract=off", "-fno-fast-math", "-w", "-o",
                binary.toString(), source.toString()));
        List<String> lines = run(List.of(binary.toString())).lines().toList();
        assertEquals(2 * cases.size(), lines.size(), "two lines per kernel: " + compiled);

        List<String> wrong = new ArrayList<>();
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            DeviceStream s = ctx.stream();
            for (int k = 0; k < cases.size(); k++) {
                Case c = cases.get(k);
                byte[] java;
                // Closed after each case: a buffer or function left to the context's close may meet a collection first,
                // and the leak detector would say so
                try (DeviceBuffer x = ctx.allocate(c.in, c.n); DeviceBuffer y = ctx.allocate(c.in, c.n);
                        DeviceBuffer z = ctx.allocate(c.out, c.n); DeviceFunction f = ctx.compile(c.kernel)) {
                    s.enqueueCopy(HostData.of(MemorySegment.ofArray(c.x)), x);
                    s.enqueueCopy(HostData.of(MemorySegment.ofArray(c.y)), y);
                    s.enqueueLaunch(f, LaunchConfig.of(3, 32), x, y, z, (long) c.n);
                    java = new byte[Math.toIntExact(z.byteSize())];
                    s.enqueueCopy(z, HostData.of(MemorySegment.ofArray(java))).get(30, TimeUnit.SECONDS);
                }
                String expected = c.name + " " + HexFormat.of().formatHex(java);
                for (int g = 0; g < 2; g++) {
                    String line = lines.get(2 * k + g);
                    if (!expected.equals(line)) {
                        wrong.add(c.in + " " + c.kernel.cudaSource().orElseThrow().lines()
                                .filter(l -> l.contains("p_z[sl_i] =")).findFirst().orElse("?").strip()
                                + (g == 0 ? " (grid-stride loop)" : " (a thread per element)")
                                + "\n  Java: " + expected + "\n  C++:  " + line);
                    }
                }
            }
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases.size() + " kernels differ:\n" + String.join("\n", wrong));
    }

    /**
     * The whole-buffer reduction's first pass strides the grid with several accumulators per thread: run with one
     * thread per block (so the warp and block folds are identities) over sizes around its unrolled step, a weighted
     * integer sum (exact in any order) shows that every element is counted once, at its own index.
     */
    @Test
    void theGeneratedWholeBufferReductionCountsEveryElementOnce() throws Exception {
        String compiler = findCompiler();
        assumeTrue(compiler != null, "no c++ or g++ on the PATH");
        Reduction weighted = Kernels.reduction("weighted").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I64)).accumulator(DType.I64).map("(i64) x * (i + 1)")
                .reduce("a + b").identity("0").postMap("y = a").build();
        int[] sizes = {1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 100, 1001};
        int[] grids = {1, 4, 7};
        int most = 1001;
        StringBuilder program = new StringBuilder(SHIM).append("""
                #define __shared__
                #define __syncthreads()
                #define __shfl_down_sync(mask, v, offset) (v)
                static const int warpSize = 32;
                """);
        String partials = weighted.kernels().get(0).cudaSource().orElseThrow();
        String last = weighted.kernels().get(1).cudaSource().orElseThrow();
        program.append(partials).append(last.substring(last.indexOf("extern \"C\""))).append("int main() {\n")
                .append("    static int x[").append(most).append("];\n")
                .append("    for (int k = 0; k < ").append(most).append("; k++) x[k] = (int) (2654435761u * (unsigned) k);\n")
                .append("    static long long partials[8], y[1];\n")
                .append("    blockDim.x = 1; threadIdx.x = 0;\n");
        for (int n : sizes) {
            for (int g : grids) {
                program.append("    gridDim.x = ").append(g).append(";\n")
                        .append("    for (unsigned b = 0; b < ").append(g).append("; b++) { blockIdx.x = b; sluice_weighted_partials(x, partials, ")
                        .append(g).append(", 0, 0, 1, ").append(n).append("); }\n")
                        .append("    gridDim.x = 1; blockIdx.x = 0; sluice_weighted_final(partials, y, 1, ").append(g).append(", 0, 1, ")
                        .append(g).append(");\n")
                        .append("    printf(\"%lld\\n\", y[0]);\n");
            }
        }
        program.append("    return 0;\n}\n");
        Path dir = Files.createTempDirectory("sluice-generated-reduction");
        Path source = dir.resolve("reduction.cpp");
        Path binary = dir.resolve("reduction");
        Files.writeString(source, program);
        String compiled = run(List.of(compiler, "-std=c++14", "-O1", "-w", "-o", binary.toString(), source.toString()));
        List<String> lines = run(List.of(binary.toString())).lines().toList();
        assertEquals(sizes.length * grids.length, lines.size(), "one line per launch: " + compiled);

        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0); DeviceReduction r = weighted.compile(ctx)) {
            DeviceStream s = ctx.stream();
            int[] values = new int[most];
            for (int k = 0; k < most; k++) {
                values[k] = (int) (2654435761L * k);
            }
            DeviceBuffer x = ctx.allocate(DType.I32, most);
            DeviceBuffer y = ctx.allocate(DType.I64, 1);
            s.enqueueCopy(HostData.of(MemorySegment.ofArray(values)), x);
            int line = 0;
            for (int n : sizes) {
                long[] java = new long[1];
                r.enqueue(s, n, x, y);
                s.enqueueCopy(y, HostData.of(MemorySegment.ofArray(java))).get(30, TimeUnit.SECONDS);
                for (int g : grids) {
                    assertEquals(Long.toString(java[0]), lines.get(line++), "n = " + n + " over " + g + " blocks");
                }
            }
        }
    }

    /**
     * The column kernels' C++ run on the host with the threads of a block as real threads ({@code __syncthreads} a
     * barrier, {@code __shared__} memory static) over shapes off the tile and warp sizes, in one pass and in two with
     * several chunk sizes and grids narrower than the tiles: a weighted integer sum (exact in any order) shows that each
     * column counts each of its elements once, at its own index.
     */
    @Test
    void theGeneratedColumnReductionCountsEveryElementOfEachColumnOnce() throws Exception {
        String compiler = findCompiler();
        assumeTrue(compiler != null, "no c++ or g++ on the PATH");
        Reduction weighted = Kernels.reduction("weighted").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I64)).accumulator(DType.I64).map("(i64) x * (i + 1)")
                .reduce("a + b").identity("0").postMap("y = a").build();
        // rows, cols, rows per chunk (rows: one pass), blocks across the tiles, threads per block
        long[][] launches = {{1, 1, 1, 1, 64}, {1, 70, 1, 3, 64}, {70, 1, 70, 1, 64}, {70, 1, 9, 1, 256},
            {33, 31, 33, 1, 64}, {33, 31, 5, 1, 96}, {257, 65, 64, 3, 64}, {257, 65, 64, 1, 64}, {500, 3, 7, 1, 128},
            {3, 100, 3, 2, 32}, {3, 100, 2, 4, 64}};
        StringBuilder program = new StringBuilder(THREADED_SHIM);
        List<Kernel> kernels = weighted.kernels();
        program.append(kernels.get(3).cudaSource().orElseThrow());
        for (Kernel k : kernels.subList(4, 6)) {
            String source = k.cudaSource().orElseThrow();
            program.append(source.substring(source.indexOf("extern \"C\"")));
        }
        program.append("int main() {\n");
        List<String> expected = new ArrayList<>();
        for (long[] l : launches) {
            int rows = (int) l[0];
            int cols = (int) l[1];
            long chunkRows = l[2];
            long chunks = Math.ceilDiv(rows, chunkRows);
            long total = (long) rows * cols;
            program.append("    {\n        static int x[").append(total).append("];\n")
                    .append("        static long long y[").append(cols).append("], partials[").append(chunks * cols).append("];\n")
                    .append("        for (int k = 0; k < ").append(total).append("; k++) x[k] = (int) (2654435761u * (unsigned) k);\n");
            if (chunks == 1) {
                program.append("        launch(").append(l[3]).append(", 1, ").append(l[4]).append(", [&] { sluice_weighted_columns(x, y, ")
                        .append(cols).append(", ").append(rows).append(", ").append(rows).append(", ").append(cols).append(", ")
                        .append(total).append("); });\n");
            } else {
                program.append("        launch(").append(l[3]).append(", ").append(chunks).append(", ").append(l[4])
                        .append(", [&] { sluice_weighted_column_partials(x, partials, ").append(cols).append(", ").append(rows)
                        .append(", ").append(chunkRows).append(", ").append(chunks * cols).append(", ").append(total)
                        .append("); });\n")
                        .append("        launch(").append(l[3]).append(", 1, ").append(l[4])
                        .append(", [&] { sluice_weighted_column_final(partials, y, ").append(cols).append(", ").append(chunks)
                        .append(", ").append(chunks).append(", ").append(cols).append(", ").append(chunks * cols)
                        .append("); });\n");
            }
            program.append("        for (int c = 0; c < ").append(cols)
                    .append("; c++) printf(c == 0 ? \"%lld\" : \",%lld\", y[c]);\n        printf(\"\\n\");\n    }\n");
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < cols; c++) {
                long sum = 0;
                for (int r = 0; r < rows; r++) {
                    long i = (long) r * cols + c;
                    sum += (long) (int) (2654435761L * i) * (i + 1);
                }
                line.append(c == 0 ? "" : ",").append(sum);
            }
            expected.add(line.toString());
        }
        program.append("    return 0;\n}\n");
        Path dir = Files.createTempDirectory("sluice-generated-columns");
        Path source = dir.resolve("columns.cpp");
        Path binary = dir.resolve("columns");
        Files.writeString(source, program);
        run(List.of(compiler, "-std=c++14", "-O1", "-w", "-pthread", "-o", binary.toString(), source.toString()));
        List<String> lines = run(List.of(binary.toString())).lines().toList();
        for (int k = 0; k < launches.length; k++) {
            assertEquals(expected.get(k), lines.get(k), "launch " + java.util.Arrays.toString(launches[k]));
        }
    }

    /**
     * The row kernels' C++ run on the host as the column kernels' is, its warp shuffles too: the narrow-row kernel with
     * every count of lanes, grids short of the rows (so that warps go round again) and past them, and the wide rows'
     * chunk pass with chunks off the block size, then the final pass over the chunks' partials. A weighted integer sum
     * (exact in any order) shows that each row counts each of its elements once, at its own index, and that a row's
     * shuffle tree takes no other row's lanes.
     */
    @Test
    void theGeneratedRowReductionCountsEveryElementOfEachRowOnce() throws Exception {
        String compiler = findCompiler();
        assumeTrue(compiler != null, "no c++ or g++ on the PATH");
        Reduction weighted = Kernels.reduction("weighted").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I64)).accumulator(DType.I64).map("(i64) x * (i + 1)")
                .reduce("a + b").identity("0").postMap("y = a").build();
        // rows, cols, lanes per row, blocks, threads per block
        long[][] narrow = {{1, 1, 1, 1, 32}, {1000, 1, 1, 2, 64}, {50, 2, 2, 1, 32}, {257, 3, 4, 4, 128}, {33, 5, 8, 1, 96},
            {40, 9, 16, 3, 32}, {100, 33, 32, 3, 64}, {7, 32, 32, 5, 256}, {10, 5, 32, 1, 64}, {9, 1000, 32, 1, 64}};
        // rows, cols, columns per chunk, blocks across the rows, threads per block
        long[][] chunked = {{1, 1000, 64, 1, 64}, {3, 1000, 100, 2, 96}, {5, 300, 32, 5, 32}, {2, 257, 256, 1, 256},
            {4, 70, 7, 3, 64}};
        List<Kernel> kernels = weighted.kernels();
        StringBuilder program = new StringBuilder(THREADED_SHIM);
        program.append(kernels.get(1).cudaSource().orElseThrow()); // the final pass, its helpers and the shuffle macro
        for (Kernel k : List.of(kernels.get(6), kernels.get(7))) {
            String source = k.cudaSource().orElseThrow();
            program.append(source.substring(source.indexOf("extern \"C\"")));
        }
        program.append("int main() {\n");
        List<String> expected = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (long[] l : narrow) {
            long total = l[0] * l[1];
            program.append(rowInput(l[0], l[1], 0)).append("        launch(").append(l[3]).append(", 1, ").append(l[4])
                    .append(", [&] { sluice_weighted_narrow_rows(x, y, ").append(l[0]).append(", ").append(l[1]).append(", ")
                    .append(l[2]).append(", ").append(total).append("); });\n").append(rowOutput(l[0]));
            expected.add(weightedRowSums((int) l[0], (int) l[1]));
            names.add("narrow rows " + java.util.Arrays.toString(l));
        }
        for (long[] l : chunked) {
            long total = l[0] * l[1];
            long chunks = Math.ceilDiv(l[1], l[2]);
            long values = l[0] * chunks;
            program.append(rowInput(l[0], l[1], values)).append("        launch(").append(l[3]).append(", ").append(chunks)
                    .append(", ").append(l[4]).append(", [&] { sluice_weighted_row_partials(x, partials, ").append(l[0]).append(", ")
                    .append(l[1]).append(", ").append(l[2]).append(", ").append(values).append(", ").append(total)
                    .append("); });\n")
                    .append("        launch(").append(l[3]).append(", 1, ").append(l[4])
                    .append(", [&] { sluice_weighted_final(partials, y, ").append(l[0]).append(", ").append(chunks).append(", ")
                    .append(chunks).append(", 1, ").append(values).append("); });\n").append(rowOutput(l[0]));
            expected.add(weightedRowSums((int) l[0], (int) l[1]));
            names.add("rows in chunks " + java.util.Arrays.toString(l));
        }
        program.append("    return 0;\n}\n");
        Path dir = Files.createTempDirectory("sluice-generated-rows");
        Path source = dir.resolve("rows.cpp");
        Path binary = dir.resolve("rows");
        Files.writeString(source, program);
        run(List.of(compiler, "-std=c++14", "-O1", "-w", "-pthread", "-o", binary.toString(), source.toString()));
        // A time limit: lanes of a warp that miss a shuffle the others make would wait at its barrier for ever.
        List<String> lines = run(List.of("timeout", "100", binary.toString())).lines().toList();
        for (int k = 0; k < expected.size(); k++) {
            assertEquals(expected.get(k), lines.get(k), names.get(k));
        }
    }

    /** C++ opening a block with x, the weighted sum's input of {@code rows * cols}, y of {@code rows}, and partials. */
    private static String rowInput(long rows, long cols, long partials) {
        long total = rows * cols;
        return "    {\n        static int x[" + total + "];\n"
                + "        static long long y[" + rows + "], partials[" + Math.max(1, partials) + "];\n"
                + "        for (int k = 0; k < " + total + "; k++) x[k] = (int) (2654435761u * (unsigned) k);\n";
    }

    /** C++ printing y's {@code rows} values on a line, and closing the block. */
    private static String rowOutput(long rows) {
        return "        for (int r = 0; r < " + rows + "; r++) printf(r == 0 ? \"%lld\" : \",%lld\", y[r]);\n"
                + "        printf(\"\\n\");\n    }\n";
    }

    /** Each row's sum of x[i] * (i + 1), as {@link #rowOutput} prints them. */
    private static String weightedRowSums(int rows, int cols) {
        StringBuilder line = new StringBuilder();
        for (int r = 0; r < rows; r++) {
            long sum = 0;
            for (int c = 0; c < cols; c++) {
                long i = (long) r * cols + c;
                sum += (long) (int) (2654435761L * i) * (i + 1);
            }
            line.append(r == 0 ? "" : ",").append(sum);
        }
        return line.toString();
    }

    /**
     * A fused chain (x, y, z, n) over {@code t}: an f32 intermediate, rounded as its buffer would round it, and an input
     * read by both stages; in the C++ the intermediate is a local declared apart from its assignment.
     */
    private static Kernel fusedChain(String name, DType t) {
        String word = t.name().toLowerCase(java.util.Locale.ROOT);
        var first = Kernels.elementwise("diff").input(KernelParam.pointer("x", t)).input(KernelParam.pointer("y", t))
                .output(KernelParam.pointer("q", DType.F32)).body("q = (f32) (x - y)");
        var second = Kernels.elementwise("third").input(KernelParam.pointer("u", DType.F32)).input(KernelParam.pointer("w", t))
                .output(KernelParam.pointer("z", t)).body("z = (" + word + ") ((" + word + ") (u / 3.0f) + w)");
        return Kernels.fuse(name).stage(first).stage(second).bind("third.u", "diff.q").bind("third.w", "diff.x")
                .output("third.z").build();
    }

    /** Every pair of edge values of {@code t}, as raw little-endian elements. */
    private static Case pairs(String name, Kernel kernel, DType t, DType out) {
        List<Double> edges = switch (t) {
            case I8 -> List.of(0d, 1d, -1d, 7d, -128d, 127d);
            case U8 -> List.of(0d, 1d, 7d, 128d, 255d);
            case I16 -> List.of(0d, 1d, -1d, 7d, -32768d, 32767d);
            case I32 -> List.of(0d, 1d, -1d, -7d, -2147483648d, 2147483647d);
            case I64 -> List.of(0d, 1d, -1d, 7d, (double) Long.MIN_VALUE, 1e18);
            default -> List.of(0d, -0d, 1.5d, -2.5d, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                    3e9, -1e20, 1e-40, Double.MIN_VALUE);
        };
        int n = edges.size() * edges.size();
        MemorySegment x = MemorySegment.ofArray(new byte[n * t.byteSize()]);
        MemorySegment y = MemorySegment.ofArray(new byte[n * t.byteSize()]);
        int k = 0;
        for (double a : edges) {
            for (double b : edges) {
                put(x, t, k, a);
                put(y, t, k, b);
                k++;
            }
        }
        return new Case(name, kernel, t, out, x.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                y.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), n);
    }

    private static void put(MemorySegment m, DType t, int k, double v) {
        switch (t) {
            case I8, U8 -> m.set(java.lang.foreign.ValueLayout.JAVA_BYTE, k, (byte) (long) v);
            case I16 -> m.setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, k, (short) (long) v);
            case I32 -> m.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, k, (int) (long) v);
            case I64 -> m.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, k, v == 1e18 ? Long.MAX_VALUE : (long) v);
            case F32 -> m.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, k, (float) v);
            default -> m.setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED, k, v);
        }
    }

    /** The output type of {@code body} over inputs of type {@code t}: as the language types it. */
    private static DType outputType(String body, DType t) {
        if (body.contains("<") || body.contains("!=") || body.contains("(bool)")) {
            return DType.BOOL;
        }
        for (DType d : TYPES) {
            if (body.contains("(" + d.name().toLowerCase(java.util.Locale.ROOT) + ")")) {
                return d;
            }
        }
        if (body.contains("?")) {
            return t;
        }
        return t == DType.I8 || t == DType.U8 || t == DType.I16 ? DType.I32 : t;
    }

    private static String bytes(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte v : b) {
            s.append(s.isEmpty() ? "" : ",").append(v & 0xFF);
        }
        return s.toString();
    }

    private static String findCompiler() {
        for (String name : List.of("c++", "g++")) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                if (Files.isExecutable(Path.of(dir, name))) {
                    return Path.of(dir, name).toString();
                }
            }
        }
        return null;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "took over 120 s: " + command);
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        return out;
    }
}
