package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.HostData;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.Dim;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.DeviceReduction;
import dev.sluice.kernel.Kernels;
import dev.sluice.kernel.Reduction;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Kernels generated from one definition ({@link Kernels#elementwise}) compute, on this backend, what a reference
 * written on the host in plain Java computes: a table of bodies covering every operator, every function and every
 * element type of the kernel language, over edge values (NaN, infinities, negative zero, the limits of each integer
 * type, so that overflow wraps, and zero divisors). Integers and exactly rounded float operations must match bit for
 * bit; the transcendental functions ({@code exp}, {@code log}, {@code sin}, {@code cos}, {@code pow}) within a few
 * units in the last place, since GPU math libraries round them differently from the JDK. Reductions
 * ({@link Kernels#reduction}) over whole buffers, rows and columns match exactly for integers and within rounding for
 * float sums, whose order of combination differs between backends.
 */
public abstract class AbstractGeneratedKernelTest extends ConformanceBase {

    private static final List<DType> NUMBERS = List.of(DType.I8, DType.U8, DType.I16, DType.I32, DType.I64, DType.F32, DType.F64);
    private static final List<DType> TYPES = List.of(DType.BOOL, DType.I8, DType.U8, DType.I16, DType.I32, DType.I64, DType.F32,
            DType.F64);

    /** A body over inputs x (and y) of one type, the output z's type, and the host reference for one element. */
    private record Case(String body, DType in, int inputs, DType out, Function<Number[], Number> reference, boolean approximate) {
        @Override
        public String toString() {
            return in + " -> " + out + ": " + body;
        }
    }

    @TestFactory
    Stream<DynamicTest> everyOperatorFunctionAndTypeMatchesTheHostReference() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> run(c)));
    }

    private static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (DType t : NUMBERS) {
            DType p = promoted(t);
            for (String op : List.of("+", "-", "*", "/", "%")) {
                cases.add(new Case("z = x " + op + " y", t, 2, p, v -> arithmetic(op, p, v[0], v[1]), false));
            }
            for (String op : List.of("<", "<=", ">", ">=", "==", "!=")) {
                cases.add(new Case("z = x " + op + " y", t, 2, DType.BOOL, v -> compare(op, v[0], v[1]) ? 1L : 0L, false));
            }
            cases.add(new Case("z = -x", t, 1, p, v -> negate(p, v[0]), false));
            cases.add(new Case("z = x > y ? x : y", t, 2, t, v -> compare(">", v[0], v[1]) ? v[0] : v[1], false));
            cases.add(new Case("z = min(x, y)", t, 2, p, v -> minMax(true, p, v[0], v[1]), false));
            cases.add(new Case("z = max(x, y)", t, 2, p, v -> minMax(false, p, v[0], v[1]), false));
            cases.add(new Case("z = abs(x)", t, 1, p, v -> p.isFloatingPoint() ? (Number) Math.abs(v[0].doubleValue())
                    : wrap(p, Math.abs(v[0].longValue())), false));
            for (DType to : TYPES) {
                cases.add(new Case("z = (" + word(to) + ") x", t, 1, to, v -> convert(v[0], to), false));
            }
        }
        for (DType f : List.of(DType.F32, DType.F64)) {
            boolean single = f == DType.F32;
            cases.add(new Case("z = sqrt(x)", f, 1, f, v -> round(f, Math.sqrt(v[0].doubleValue())), false));
            cases.add(new Case("z = floor(x)", f, 1, f, v -> Math.floor(v[0].doubleValue()), false));
            cases.add(new Case("z = ceil(x)", f, 1, f, v -> Math.ceil(v[0].doubleValue()), false));
            cases.add(new Case("z = exp(x)", f, 1, f, v -> round(f, Math.exp(v[0].doubleValue())), true));
            cases.add(new Case("z = log(x)", f, 1, f, v -> round(f, Math.log(v[0].doubleValue())), true));
            cases.add(new Case("z = sin(x)", f, 1, f, v -> round(f, Math.sin(v[0].doubleValue())), true));
            cases.add(new Case("z = cos(x)", f, 1, f, v -> round(f, Math.cos(v[0].doubleValue())), true));
            cases.add(new Case("z = pow(x, y)", f, 2, f, v -> round(f, cPow(v[0].doubleValue(), v[1].doubleValue())), true));
            cases.add(new Case("z = fma(x, y, x)", f, 2, f, v -> single
                    ? (Number) (double) Math.fma(v[0].floatValue(), v[1].floatValue(), v[0].floatValue())
                    : Math.fma(v[0].doubleValue(), v[1].doubleValue(), v[0].doubleValue()), false));
        }
        // Logic on bools, and locals, literals and the index.
        cases.add(new Case("z = x && y", DType.BOOL, 2, DType.BOOL, v -> v[0].longValue() & v[1].longValue(), false));
        cases.add(new Case("z = x || y", DType.BOOL, 2, DType.BOOL, v -> v[0].longValue() | v[1].longValue(), false));
        cases.add(new Case("z = !x", DType.BOOL, 1, DType.BOOL, v -> 1 - v[0].longValue(), false));
        cases.add(new Case("z = x == y", DType.BOOL, 2, DType.BOOL, v -> v[0].longValue() == v[1].longValue() ? 1L : 0L, false));
        cases.add(new Case("z = x ? 2 : -3", DType.BOOL, 1, DType.I32, v -> v[0].longValue() != 0 ? 2L : -3L, false));
        for (DType to : TYPES) {
            cases.add(new Case("z = (" + word(to) + ") x", DType.BOOL, 1, to, v -> convert(v[0], to), false));
        }
        cases.add(new Case("i32 t = x * 3 + 2147483647; // wraps\ni64 u = (i64) t * 5L;\nz = u - 9223372036854775807L - 1L",
                DType.I32, 1, DType.I64, v -> {
                    long t = (int) (v[0].longValue() * 3 + Integer.MAX_VALUE);
                    return t * 5L - Long.MAX_VALUE - 1L;
                }, false));
        cases.add(new Case("f32 h = 0.5f;\nf64 d = x * h + 1.5e300;\nz = (f32) (d - 1.5e300) + -2147483648", DType.F32, 1,
                DType.F32, v -> (double) ((float) ((v[0].floatValue() * 0.5f + 1.5e300) - 1.5e300) + -2147483648f), false));
        cases.add(new Case("z = x + (i64) i * n - n * n", DType.I64, 1, DType.I64, null, false));
        cases.add(new Case("z = !(x < y) && x == x || false ? 1.0 : -0.0", DType.F64, 2, DType.F64,
                v -> (!(v[0].doubleValue() < v[1].doubleValue()) && v[0].doubleValue() == v[0].doubleValue()) ? 1.0 : -0.0, false));
        return cases;
    }

    private void run(Case c) {
        List<Number> xs = new ArrayList<>();
        List<Number> ys = new ArrayList<>();
        List<Number> edges = edges(c.in);
        for (Number a : edges) {
            for (Number b : c.inputs == 2 ? edges : List.<Number>of(0L)) {
                xs.add(normalise(c.in, a));
                ys.add(normalise(c.in, b));
            }
        }
        int n = xs.size();
        var builder = Kernels.elementwise("table").input(KernelParam.pointer("x", c.in));
        if (c.inputs == 2) {
            builder.input(KernelParam.pointer("y", c.in));
        }
        Kernel kernel = builder.output(KernelParam.pointer("z", c.out)).body(c.body).build();
        DeviceStream s = ctx.stream();
        DeviceBuffer x = upload(s, c.in, xs);
        DeviceBuffer y = upload(s, c.in, ys);
        DeviceBuffer z = closeLater(ctx.allocate(c.out, n));
        DeviceFunction f = fn(kernel);
        // A small grid, so that threads also take the grid-stride loop's later turns.
        LaunchConfig config = LaunchConfig.of(3, 32);
        await(c.inputs == 2 ? s.enqueueLaunch(f, config, x, y, z, (long) n) : s.enqueueLaunch(f, config, x, z, (long) n));
        List<Number> got = download(s, z);
        List<String> wrong = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Number expected = c.reference == null ? (Number) (xs.get(k).longValue() + (long) k * n - (long) n * n)
                    : c.reference.apply(new Number[] {xs.get(k), ys.get(k)});
            expected = normalise(c.out, expected);
            if (!same(c, expected, got.get(k))) {
                wrong.add("x=" + xs.get(k) + (c.inputs == 2 ? " y=" + ys.get(k) : "") + ": expected " + expected + ", got " + got.get(k));
            }
        }
        assertTrue(wrong.isEmpty(), c + " differs from the host reference in " + wrong.size() + " of " + n + " elements:\n"
                + String.join("\n", wrong.subList(0, Math.min(20, wrong.size()))) + "\nCUDA C++:\n" + kernel.cudaSource().orElse(""));
    }

    @Test
    void elementsBeyondOneThreadPerElementAreAllWritten() {
        Kernel iota = Kernels.elementwise("iota").output(KernelParam.pointer("y", DType.I64)).body("y = i * 2L + n").build();
        int n = 10_000;
        DeviceBuffer y = closeLater(ctx.allocate(DType.I64, n));
        DeviceStream s = ctx.stream();
        for (LaunchConfig config : List.of(LaunchConfig.forElements(n), LaunchConfig.of(1, 1), LaunchConfig.of(7, 64))) {
            await(s.enqueueMemset(y, (byte) 0));
            await(s.enqueueLaunch(fn(iota), config, y, (long) n));
            List<Number> got = download(s, y);
            for (int k = 0; k < n; k++) {
                assertEquals(k * 2L + n, got.get(k).longValue(), "element " + k + " with " + config);
            }
        }
    }

    @Test
    void anInputThatIsAlsoAnOutputIsReadAfterItsAssignmentAsAssigned() {
        Kernel inPlace = Kernels.elementwise("in_place").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I32)).output(KernelParam.pointer("z", DType.I32))
                .body("y = x + 1; z = x * 2").build();
        int n = 1_000;
        List<Number> start = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            start.add((long) k);
        }
        DeviceStream s = ctx.stream();
        for (LaunchConfig config : List.of(LaunchConfig.forElements(n), LaunchConfig.of(3, 64))) {
            DeviceBuffer xy = upload(s, DType.I32, start);
            DeviceBuffer z = closeLater(ctx.allocate(DType.I32, n));
            await(s.enqueueLaunch(fn(inPlace), config, xy, xy, z, (long) n)); // x and y the same buffer
            List<Number> updated = download(s, xy);
            List<Number> doubled = download(s, z);
            for (int k = 0; k < n; k++) {
                assertEquals(k + 1, updated.get(k).intValue(), "x = y, element " + k + " with " + config);
                assertEquals((k + 1) * 2, doubled.get(k).intValue(), "z reads x after y = x + 1, element " + k + " with " + config);
            }
        }
    }

    @Test
    void scalarsAreBroadcastAndTheSyncFacadeLaunchesGeneratedKernels() {
        Kernel axpb = Kernels.elementwise("axpb")
                .input(KernelParam.scalar("a", DType.F32))
                .input(KernelParam.pointer("x", DType.F32))
                .input(KernelParam.scalar("b", DType.I8))
                .output(KernelParam.pointer("y", DType.F32))
                .body("y = a * x + b")
                .build();
        int n = 1000;
        DeviceStream s = ctx.stream();
        List<Number> xs = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            xs.add((double) (k * 0.25f));
        }
        DeviceBuffer x = upload(s, DType.F32, xs);
        DeviceBuffer y = closeLater(ctx.allocate(DType.F32, n));
        ctx.sync().launch(fn(axpb), LaunchConfig.forElements(n), 3f, x, (byte) -5, y, (long) n);
        List<Number> got = download(s, y);
        for (int k = 0; k < n; k++) {
            assertEquals(3f * (k * 0.25f) + -5, got.get(k).floatValue(), "element " + k);
        }
    }

    /**
     * Names a kernel written once may have: the kernel language's own functions, what CUDA's and HIP's headers and
     * compilers declare (math, runtime, built-in variables, vector types, keywords, qualifiers), and the generated
     * code's own helpers and variables. The generated code exports another symbol, so each must compile and run on
     * every backend under the user's name.
     */
    static final List<String> KERNEL_NAMES_OF_LIBRARY_FUNCTIONS = List.of(
            "sqrt", "exp", "log", "sin", "cos", "abs", "min", "max", "pow", "fma", "floor", "ceil",
            "sinf", "expf", "fmaf", "fabs", "fabsf", "fminf", "fmaxf", "rsqrt", "rsqrtf", "tanh", "erf", "lgamma", "round",
            "trunc", "exp2", "log2", "log10", "hypot", "cbrt", "fmod", "copysign", "nan", "isnan", "isinf", "signbit",
            "norm3d", "__fmaf_rn", "__expf", "__float2int_rn",
            "printf", "malloc", "free", "memcpy", "memset", "assert", "abort", "atomicAdd", "atomicMax", "atomicCAS",
            "__syncthreads", "__shfl_sync", "__ldg", "clock", "clock64",
            "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "float2", "int4", "half", "size_t",
            "uint32_t", "INFINITY", "NAN", "NULL", "CUDART_INF_F", "HIP_DYNAMIC_SHARED",
            "int", "float", "return", "class", "template", "operator", "new", "delete", "this", "namespace", "main",
            "__global__", "__device__", "__forceinline__", "__restrict__", "__shared__", "__launch_bounds__",
            "sl_div_i32", "sl_min_f32", "sl_f2i", "sl_i", "sl_n", "sl_first", "sl_stride", "p_x", "x", "n");

    @Test
    void kernelsNamedAfterWhatCompilersDeclareBuildAndRunUnderTheirNames() {
        int n = 64;
        float[] xs = new float[n];
        float[] zs = new float[n];
        for (int k = 0; k < n; k++) {
            xs[k] = k - 20;
            zs[k] = 3 * k;
        }
        DeviceStream s = ctx.stream();
        DeviceBuffer x = closeLater(ctx.allocate(DType.F32, n));
        DeviceBuffer z = closeLater(ctx.allocate(DType.F32, n));
        DeviceBuffer y = closeLater(ctx.allocate(DType.F32, n));
        await(s.enqueueCopy(HostData.of(xs), x));
        await(s.enqueueCopy(HostData.of(zs), z));
        List<String> failed = new ArrayList<>();
        for (String name : KERNEL_NAMES_OF_LIBRARY_FUNCTIONS) {
            try {
                Kernel k = Kernels.elementwise(name).input(KernelParam.pointer("x", DType.F32))
                        .input(KernelParam.pointer("z", DType.F32)).output(KernelParam.pointer("y", DType.F32))
                        .body("y = fma(x, abs(x), min(z, 100.0f))").build();
                assertEquals(name, k.name());
                DeviceFunction f = fn(k);
                assertTrue(f.toString().contains("[" + name + " on "), f.toString());
                await(s.enqueueMemset(y, (byte) 0));
                await(s.enqueueLaunch(f, LaunchConfig.forElements(n), x, z, y, (long) n));
                float[] got = readFloats(s, y);
                for (int i = 0; i < n; i++) {
                    float expected = xs[i] * Math.abs(xs[i]) + Math.min(zs[i], 100f);
                    if (got[i] != expected) {
                        failed.add(name + ": element " + i + " is " + got[i] + ", expected " + expected);
                        break;
                    }
                }
            } catch (RuntimeException e) {
                failed.add(name + ": " + e);
            }
        }
        assertTrue(failed.isEmpty(), "kernels named after library functions failed:\n" + String.join("\n", failed));
    }

    @Test
    void reductionsNamedAfterWhatCompilersDeclareRunUnderTheirNames() {
        int n = 1000;
        List<Number> values = new ArrayList<>();
        long expected = 0;
        for (int k = 0; k < n; k++) {
            values.add((long) (k % 17 - 8));
            expected += k % 17 - 8;
        }
        DeviceStream s = ctx.stream();
        DeviceBuffer x = upload(s, DType.I32, values);
        DeviceBuffer total = closeLater(ctx.allocate(DType.I32, 1));
        for (String name : List.of("max", "fma", "atomicAdd", "printf", "__syncthreads", "sl_rem_i64")) {
            Reduction sum = Kernels.reduction(name).input(KernelParam.pointer("x", DType.I32))
                    .output(KernelParam.pointer("total", DType.I32)).accumulator(DType.I32)
                    .map("x").reduce("a + b").identity("0").postMap("total = a").build();
            try (DeviceReduction r = sum.compile(ctx)) {
                await(r.enqueue(s, n, x, total));
            }
            assertEquals(expected, download(s, total).getFirst().longValue(), "reduction named " + name);
        }
    }

    // ---------------------------------------------------------------- reductions

    private static final Reduction SUM_OF_SQUARES = Kernels.reduction("sumsq")
            .input(KernelParam.pointer("x", DType.F32))
            .input(KernelParam.scalar("scale", DType.F32))
            .output(KernelParam.pointer("norm", DType.F32))
            .output(KernelParam.pointer("sum", DType.F64))
            .accumulator(DType.F32)
            .map("x * x * scale")
            .reduce("a + b")
            .identity("0.0f")
            .postMap("norm = sqrt(a);\nsum = a")
            .build();

    private static final Reduction MAX_AND_WRAPPING_SUM = Kernels.reduction("extremes")
            .input(KernelParam.pointer("x", DType.I32))
            .output(KernelParam.pointer("biggest", DType.I32))
            .accumulator(DType.I32)
            .map("x > 0 ? x : -x")
            .reduce("max(a, b)")
            .identity("-2147483647 - 1")
            .postMap("biggest = a")
            .build();

    private static final Reduction INTEGER_SUM = Kernels.reduction("isum")
            .input(KernelParam.pointer("x", DType.I32))
            .output(KernelParam.pointer("total", DType.I32))
            .output(KernelParam.pointer("wide", DType.I64))
            .accumulator(DType.I32)
            .map("x")
            .reduce("a + b")
            .identity("0")
            .postMap("total = a; wide = a")
            .build();

    @Test
    void aWholeBufferFloatSumMatchesTheHostWithinRounding() {
        for (int n : new int[] {1, 255, 256, 257, 100_003, 1_000_000}) {
            float[] values = new float[n];
            double expected = 0;
            java.util.Random random = new java.util.Random(n);
            for (int k = 0; k < n; k++) {
                values[k] = random.nextFloat() * 2 - 1;
                expected += (double) values[k] * values[k] * 0.5;
            }
            DeviceStream s = ctx.stream();
            DeviceBuffer x = closeLater(ctx.allocate(DType.F32, n));
            await(s.enqueueCopy(HostData.of(MemorySegment.ofArray(values)), x));
            DeviceBuffer norm = closeLater(ctx.allocate(DType.F32, 1));
            DeviceBuffer sum = closeLater(ctx.allocate(DType.F64, 1));
            try (DeviceReduction r = SUM_OF_SQUARES.compile(ctx)) {
                await(r.enqueue(s, n, x, 0.5f, norm, sum));
            }
            double got = download(s, sum).get(0).doubleValue();
            // Float partial sums are combined in a backend's own order: compare within a bound on their rounding.
            assertEquals(expected, got, 1e-5 * expected + 1e-6, "sum of squares of " + n + " floats");
            assertEquals((float) Math.sqrt((float) got), download(s, norm).get(0).floatValue(), "the post-map's sqrt");
        }
    }

    @Test
    void integerReductionsAreExactAndWrapOnOverflow() {
        int n = 70_001;
        List<Number> xs = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            xs.add((long) (k % 7 == 0 ? Integer.MAX_VALUE - k : -k * 31));
        }
        xs.set(n / 2, (long) Integer.MIN_VALUE); // |MIN| wraps to MIN in the map, as in C and Java
        long sum = 0;
        long biggest = Long.MIN_VALUE;
        for (Number x : xs) {
            int v = x.intValue();
            sum += v;
            biggest = Math.max(biggest, v > 0 ? v : -v);
        }
        DeviceStream s = ctx.stream();
        DeviceBuffer x = upload(s, DType.I32, xs);
        DeviceBuffer total = closeLater(ctx.allocate(DType.I32, 1));
        DeviceBuffer wide = closeLater(ctx.allocate(DType.I64, 1));
        DeviceBuffer max = closeLater(ctx.allocate(DType.I32, 1));
        try (DeviceReduction r = INTEGER_SUM.compile(ctx); DeviceReduction m = MAX_AND_WRAPPING_SUM.compile(ctx)) {
            await(r.enqueue(s, n, x, total, wide));
            await(m.enqueue(s, n, x, max));
        }
        assertEquals((int) sum, download(s, total).get(0).intValue(), "the i32 sum wraps");
        assertEquals((long) (int) sum, download(s, wide).get(0).longValue(), "the wrapped sum, widened");
        assertEquals(biggest, download(s, max).get(0).longValue(), "max of |x|");
    }

    @Test
    void oneReductionServesBackToBackCallsOnTwoStreamsWithoutMixingTheirPartials() {
        // Sizes launching different numbers of blocks, so a final pass reading another call's partials is wrong.
        int[] sizes = {70_001, 1, 256 * 1024 + 3, 999, 300_000};
        DeviceStream[] streams = {closeLater(ctx.createStream()), closeLater(ctx.createStream())};
        List<DeviceBuffer> inputs = new ArrayList<>();
        List<Integer> expected = new ArrayList<>();
        for (int n : sizes) {
            List<Number> xs = new ArrayList<>();
            int sum = 0;
            for (int k = 0; k < n; k++) {
                int v = (k * 7919 + n) % 1000 - 500;
                xs.add((long) v);
                sum += v;
            }
            inputs.add(upload(ctx.stream(), DType.I32, xs));
            expected.add(sum);
        }
        List<DeviceBuffer> totals = new ArrayList<>();
        List<DeviceBuffer> wides = new ArrayList<>();
        List<dev.sluice.DeviceFuture<Void>> done = new ArrayList<>();
        try (DeviceReduction r = INTEGER_SUM.compile(ctx)) {
            for (int round = 0; round < 2; round++) {
                for (int k = 0; k < sizes.length; k++) {
                    DeviceStream s = streams[(k + round) % 2];
                    DeviceBuffer total = closeLater(ctx.allocate(DType.I32, 1));
                    DeviceBuffer wide = closeLater(ctx.allocate(DType.I64, 1));
                    done.add(r.enqueue(s, sizes[k], inputs.get(k), total, wide));
                    totals.add(total);
                    wides.add(wide);
                }
            }
        } // closed with its passes in flight: the kept scratch buffer is freed after them
        done.forEach(ConformanceBase::await);
        for (int j = 0; j < totals.size(); j++) {
            int k = j % sizes.length;
            assertEquals(expected.get(k), download(ctx.stream(), totals.get(j)).get(0).intValue(), "sum of " + sizes[k]);
            assertEquals((long) expected.get(k), download(ctx.stream(), wides.get(j)).get(0).longValue(), "sum of " + sizes[k]);
        }
    }

    @Test
    void rowsAndColumnsOfARowMajorBufferReduceSeparately() {
        Reduction sum = Kernels.reduction("axis_sum")
                .input(KernelParam.pointer("x", DType.F64))
                .output(KernelParam.pointer("y", DType.F64))
                .accumulator(DType.F64)
                .map("x + (f64) (i % 3L)")
                .reduce("a + b")
                .identity("0.0")
                .postMap("y = a")
                .build();
        int rows = 37;
        int cols = 1029;
        List<Number> xs = new ArrayList<>();
        double[] rowSums = new double[rows];
        double[] colSums = new double[cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                long i = (long) r * cols + c;
                double v = r * 1000 + c; // integers: every order of summation is exact
                xs.add(v);
                rowSums[r] += v + i % 3;
                colSums[c] += v + i % 3;
            }
        }
        DeviceStream s = ctx.stream();
        DeviceBuffer x = upload(s, DType.F64, xs);
        DeviceBuffer byRow = closeLater(ctx.allocate(DType.F64, rows));
        DeviceBuffer byColumn = closeLater(ctx.allocate(DType.F64, cols));
        try (DeviceReduction r = sum.compile(ctx)) {
            await(r.enqueueRows(s, rows, cols, x, byRow));
            await(r.enqueueColumns(s, rows, cols, x, byColumn));
        }
        List<Number> gotRows = download(s, byRow);
        for (int r = 0; r < rows; r++) {
            assertEquals(rowSums[r], gotRows.get(r).doubleValue(), "row " + r);
        }
        List<Number> gotCols = download(s, byColumn);
        for (int c = 0; c < cols; c++) {
            assertEquals(colSums[c], gotCols.get(c).doubleValue(), "column " + c);
        }
    }

    /**
     * Shapes for the row and column kernels: single rows and columns, sizes off the warp and block sizes, tall, wide. Rows
     * take each of their paths: narrow rows a part of a warp each (1 to 32 lanes: 1 for 3 columns, 2 for 12, 4 for 31,
     * 8 for 33, 16 for 65 and 100, 32 for 1,000), a few wide rows split into chunks
     * of columns ({1, 1,000,003} into 489, {3, 300,000} into 147), and a block per row ({1100, 1030}).
     */
    private static final long[][] AXIS_SHAPES = {
        {1, 1}, {1, 1000}, {1000, 1}, {33, 31}, {31, 33}, {257, 65}, {5000, 3}, {70_001, 2}, {3, 40_000}, {2, 100_003},
        {1, 1_000_003}, {3, 300_000}, {100_000, 5}, {100_000, 33}, {1100, 1030}, {4099, 12}, {2049, 100},
    };

    /** Shapes taking each path of a row reduction, as in {@link #AXIS_SHAPES}. */
    private static final long[][] ROW_PATH_SHAPES = {{1, 1}, {1, 1_000_003}, {3, 300_000}, {100_000, 5}, {100_000, 33},
        {1100, 1030}, {4099, 12}, {2049, 100}};

    @TestFactory
    Stream<DynamicTest> rowSumsInEveryAccumulatorTypeMatchTheHostExactlyOnEveryPath() {
        List<DynamicTest> tests = new ArrayList<>();
        for (DType t : List.of(DType.I32, DType.I64, DType.F32, DType.F64)) {
            for (long[] shape : ROW_PATH_SHAPES) {
                tests.add(DynamicTest.dynamicTest(t + " " + shape[0] + " x " + shape[1], () -> rowSums(t, (int) shape[0],
                        (int) shape[1])));
            }
        }
        return tests.stream();
    }

    /**
     * Row sums of {@code t} in {@code t}: integers large enough to wrap, floats small integers (exact in any order, so
     * that every backend's sum is the host's), each row with a value of its own index so that a row read twice, or
     * another's, shows.
     */
    private void rowSums(DType t, int rows, int cols) {
        String word = word(t);
        Reduction sum = Kernels.reduction("row_sum_" + word).input(KernelParam.pointer("x", t))
                .output(KernelParam.pointer("y", t)).accumulator(t).map("x").reduce("a + b")
                .identity("(" + word + ") 0").postMap("y = a").build();
        int n = rows * cols;
        MemorySegment values = MemorySegment.ofArray(new byte[n * t.byteSize()]);
        long[] exact = new long[rows];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                int k = r * cols + c;
                long v = switch (t) {
                    case I32 -> (int) (k * 2654435761L) ^ r;
                    case I64 -> k * 0x9E3779B97F4A7C15L ^ r;
                    default -> (k * 7L + r) % 9 - 4 + (c == 0 ? r % 1000 : 0);
                };
                exact[r] = t == DType.I32 ? (int) (exact[r] + v) : exact[r] + v;
                switch (t) {
                    case I32 -> values.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, k, (int) v);
                    case I64 -> values.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k, v);
                    case F32 -> values.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, k, v);
                    default -> values.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, k, v);
                }
            }
        }
        DeviceStream s = ctx.stream();
        DeviceBuffer x = closeLater(ctx.allocate(t, n));
        await(s.enqueueCopy(HostData.of(values), x));
        DeviceBuffer y = closeLater(ctx.allocate(t, rows));
        try (DeviceReduction r = sum.compile(ctx)) {
            await(r.enqueueRows(s, rows, cols, x, y));
        }
        List<Number> got = download(s, y);
        for (int r = 0; r < rows; r++) {
            boolean same = t.isFloatingPoint() ? got.get(r).doubleValue() == exact[r] : got.get(r).longValue() == exact[r];
            if (!same) {
                fail(t + " sum of row " + r + " of " + rows + " x " + cols + ": expected " + exact[r] + ", got " + got.get(r));
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> rowAndColumnIntegerReductionsWrapAndMatchTheHostExactly() {
        return Stream.of(AXIS_SHAPES).map(shape -> DynamicTest.dynamicTest(shape[0] + " x " + shape[1], () -> {
            int rows = (int) shape[0];
            int cols = (int) shape[1];
            int[] xs = new int[rows * cols];
            int[] rowSums = new int[rows];
            int[] colSums = new int[cols];
            int[] rowMax = new int[rows];
            int[] colMax = new int[cols];
            java.util.Arrays.fill(rowMax, Integer.MIN_VALUE);
            java.util.Arrays.fill(colMax, Integer.MIN_VALUE);
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    int k = r * cols + c;
                    // Large values, so that the i32 sums overflow and wrap; MIN_VALUE, whose |x| wraps to itself.
                    int v = k % 9973 == 5 ? Integer.MIN_VALUE : (int) ((k * 2654435761L) >>> 1) ^ (r << 8);
                    xs[k] = v;
                    rowSums[r] += v;
                    colSums[c] += v;
                    int magnitude = v > 0 ? v : -v;
                    rowMax[r] = Math.max(rowMax[r], magnitude);
                    colMax[c] = Math.max(colMax[c], magnitude);
                }
            }
            DeviceStream s = ctx.stream();
            DeviceBuffer x = closeLater(ctx.allocate(DType.I32, xs.length));
            await(s.enqueueCopy(HostData.of(MemorySegment.ofArray(xs)), x));
            DeviceBuffer rowTotals = closeLater(ctx.allocate(DType.I32, rows));
            DeviceBuffer rowWides = closeLater(ctx.allocate(DType.I64, rows));
            DeviceBuffer colTotals = closeLater(ctx.allocate(DType.I32, cols));
            DeviceBuffer colWides = closeLater(ctx.allocate(DType.I64, cols));
            DeviceBuffer rowBiggest = closeLater(ctx.allocate(DType.I32, rows));
            DeviceBuffer colBiggest = closeLater(ctx.allocate(DType.I32, cols));
            try (DeviceReduction sum = INTEGER_SUM.compile(ctx); DeviceReduction max = MAX_AND_WRAPPING_SUM.compile(ctx)) {
                sum.enqueueRows(s, rows, cols, x, rowTotals, rowWides);
                sum.enqueueColumns(s, rows, cols, x, colTotals, colWides);
                max.enqueueRows(s, rows, cols, x, rowBiggest);
                await(max.enqueueColumns(s, rows, cols, x, colBiggest));
            }
            assertIntegers(rowSums, download(s, rowTotals), "i32 sum of row");
            assertIntegers(rowSums, download(s, rowWides), "wrapped sum, widened, of row");
            assertIntegers(colSums, download(s, colTotals), "i32 sum of column");
            assertIntegers(colSums, download(s, colWides), "wrapped sum, widened, of column");
            assertIntegers(rowMax, download(s, rowBiggest), "max |x| of row");
            assertIntegers(colMax, download(s, colBiggest), "max |x| of column");
        }));
    }

    private static void assertIntegers(int[] expected, List<Number> got, String what) {
        assertEquals(expected.length, got.size(), what + ": count");
        for (int k = 0; k < expected.length; k++) {
            if (expected[k] != got.get(k).longValue()) {
                assertEquals(expected[k], got.get(k).longValue(), what + " " + k);
            }
        }
    }

    private static final Reduction FLOAT_SUM = Kernels.reduction("fsum")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .accumulator(DType.F32)
            .map("x")
            .reduce("a + b")
            .identity("0.0f")
            .postMap("y = a")
            .build();

    @TestFactory
    Stream<DynamicTest> rowAndColumnFloatSumsPropagateNaNAndRepeatBitForBit() {
        return Stream.of(AXIS_SHAPES).map(shape -> DynamicTest.dynamicTest(shape[0] + " x " + shape[1], () -> {
            int rows = (int) shape[0];
            int cols = (int) shape[1];
            float[] xs = new float[rows * cols];
            java.util.Random random = new java.util.Random(rows * 31L + cols);
            for (int k = 0; k < xs.length; k++) {
                xs[k] = random.nextFloat() * 2 - 1;
            }
            int nanRow = rows / 2;
            int nanCol = cols / 3;
            xs[nanRow * cols + nanCol] = Float.NaN;
            double[] rowSums = new double[rows];
            double[] colSums = new double[cols];
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    rowSums[r] += xs[r * cols + c];
                    colSums[c] += xs[r * cols + c];
                }
            }
            DeviceStream s = ctx.stream();
            DeviceBuffer x = closeLater(ctx.allocate(DType.F32, xs.length));
            await(s.enqueueCopy(HostData.of(MemorySegment.ofArray(xs)), x));
            float[][] byRow = new float[2][rows];
            float[][] byCol = new float[2][cols];
            try (DeviceReduction sum = FLOAT_SUM.compile(ctx)) {
                for (int run = 0; run < 2; run++) {
                    DeviceBuffer y = closeLater(ctx.allocate(DType.F32, rows));
                    DeviceBuffer z = closeLater(ctx.allocate(DType.F32, cols));
                    sum.enqueueRows(s, rows, cols, x, y);
                    sum.enqueueColumns(s, rows, cols, x, z);
                    await(s.enqueueCopy(y, HostData.of(MemorySegment.ofArray(byRow[run]))));
                    await(s.enqueueCopy(z, HostData.of(MemorySegment.ofArray(byCol[run]))));
                }
            }
            assertFloatSums(rowSums, byRow[0], nanRow, cols, "row");
            assertFloatSums(colSums, byCol[0], nanCol, rows, "column");
            // The order values are combined in depends on the sizes only: a second run gives the same bits.
            assertTrue(java.util.Arrays.equals(byRow[0], byRow[1]), "row sums repeat bit for bit");
            assertTrue(java.util.Arrays.equals(byCol[0], byCol[1]), "column sums repeat bit for bit");
        }));
    }

    /** NaN in segment {@code nan} only; the others within float rounding of the double sum of {@code length} values. */
    private static void assertFloatSums(double[] expected, float[] got, int nan, int length, String what) {
        for (int k = 0; k < expected.length; k++) {
            if (k == nan) {
                assertTrue(Float.isNaN(got[k]), what + " " + k + " holds the NaN: " + got[k]);
            } else {
                double tolerance = 1e-6 * length + 1e-6;
                if (!(Math.abs(expected[k] - got[k]) <= tolerance)) {
                    fail(what + " " + k + ": expected " + expected[k] + " within " + tolerance + ", got " + got[k]);
                }
            }
        }
    }

    @Test
    void reductionArgumentsAreCheckedBeforeAnyLaunch() {
        DeviceStream s = ctx.stream();
        DeviceBuffer x = closeLater(ctx.allocate(DType.I32, 10));
        DeviceBuffer y = closeLater(ctx.allocate(DType.I32, 1));
        try (DeviceReduction r = MAX_AND_WRAPPING_SUM.compile(ctx)) {
            assertInvalid("arguments", s, () -> r.enqueue(s, 10, x), "1 given", "takes 2");
            assertInvalid("arguments", s, () -> r.enqueue(s, 11, x, y), "holds 10 elements", "reads 11");
            assertInvalid("n", s, () -> r.enqueue(s, 0, x, y), "value 0");
            assertInvalid("arguments", s, () -> r.enqueueRows(s, 2, 5, x, y), "holds 1 elements", "writes 2");
            assertInvalid("cols", s, () -> r.enqueueColumns(s, 2, 0, x, y), "value 0");
        }
    }

    @Test
    void anElementCountPastABufferIsRefusedBeforeTheLaunch() {
        Kernel copy = Kernels.elementwise("copy_n").input(KernelParam.pointer("x", DType.F32))
                .output(KernelParam.pointer("y", DType.F32)).body("y = x").build();
        DeviceFunction f = fn(copy);
        DeviceStream s = ctx.stream();
        DeviceBuffer x = closeLater(ctx.allocate(DType.F32, 8));
        DeviceBuffer wide = closeLater(ctx.allocate(DType.F32, 16));
        DeviceBuffer y = wide.slice(8, 8); // a view: its own 8 elements count, not the 16 of its buffer
        assertInvalid("arguments[2] (long long n)", s, () -> s.enqueueLaunch(f, LaunchConfig.forElements(9), x, y, 9L),
                "value 9 exceeds the 8 elements of arguments[0] (const float* x)");
        DeviceBuffer big = closeLater(ctx.allocate(DType.F32, 9));
        assertInvalid("arguments[2] (long long n)", s, () -> s.enqueueLaunch(f, LaunchConfig.forElements(9), big, y, 9L),
                "value 9 exceeds the 8 elements of arguments[1] (float* y)");
        assertInvalid("arguments[2] (long long n)", s, () -> s.enqueueLaunch(f, LaunchConfig.of(1, 32), x, y, -1L),
                "value -1 is negative");
        // The context is unharmed, and a count within the buffers runs.
        List<Number> values = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            values.add((double) k + 0.5);
        }
        DeviceBuffer source = upload(s, DType.F32, values);
        await(s.enqueueLaunch(f, LaunchConfig.forElements(8), source, y, 8L));
        List<Number> got = download(s, y);
        for (int k = 0; k < 8; k++) {
            assertEquals(k + 0.5, got.get(k).doubleValue(), "element " + k);
        }
    }

    @Test
    void aReductionsKernelsLaunchedDirectlyRefuseBuffersSmallerThanTheirGeometry() {
        List<Kernel> kernels = MAX_AND_WRAPPING_SUM.kernels();
        DeviceFunction segments = fn(kernels.get(2));
        DeviceFunction partials = fn(kernels.getFirst());
        DeviceStream s = ctx.stream();
        DeviceBuffer x = closeLater(ctx.allocate(DType.I32, 10));
        DeviceBuffer y = closeLater(ctx.allocate(DType.I32, 1));
        // x, biggest, then segments, length, outer stride, inner stride, elements
        assertInvalid("arguments[6] (long long sl_total)", s,
                () -> s.enqueueLaunch(segments, LaunchConfig.of(1, 256), x, y, 1L, 11L, 0L, 1L, 11L),
                "value 11 exceeds the 10 elements of arguments[0] (const int* x)");
        assertInvalid("arguments[2] (long long sl_count)", s,
                () -> s.enqueueLaunch(segments, LaunchConfig.of(2, 256), x, y, 2L, 5L, 5L, 1L, 10L),
                "value 2 exceeds the 1 elements of arguments[1] (int* biggest)");
        assertInvalid("arguments[2] (long long sl_count)", s,
                () -> s.enqueueLaunch(partials, LaunchConfig.of(4, 256), x, y, 4L, 3L, 3L, 1L, 10L),
                "value 4 exceeds the 1 elements of arguments[1] (int* sl_partials)");
        // A negative stride stays inside the buffer: such an index is past the end, and nothing is read.
        await(s.enqueueLaunch(segments, LaunchConfig.of(1, 256), x, y, 1L, 5L, 0L, -1L, 10L));
    }

    @Test
    void aReductionsColumnKernelsLaunchedDirectlyRefuseBuffersSmallerThanTheirGeometry() {
        List<Kernel> kernels = MAX_AND_WRAPPING_SUM.kernels();
        DeviceFunction columns = fn(kernels.get(3));
        DeviceFunction columnPartials = fn(kernels.get(4));
        DeviceStream s = ctx.stream();
        List<Number> values = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            values.add((long) (k * 7 % 10)); // [2][5]: rows 0 7 4 1 8 and 5 2 9 6 3
        }
        DeviceBuffer x = upload(s, DType.I32, values);
        DeviceBuffer y = closeLater(ctx.allocate(DType.I32, 5));
        // x, biggest, then columns, rows, rows per chunk, values written, elements
        assertInvalid("arguments[6] (long long sl_total)", s,
                () -> s.enqueueLaunch(columns, LaunchConfig.of(1, 256), x, y, 5L, 3L, 3L, 5L, 15L),
                "value 15 exceeds the 10 elements of arguments[0] (const int* x)");
        assertInvalid("arguments[5] (long long sl_count)", s,
                () -> s.enqueueLaunch(columnPartials, LaunchConfig.of(Dim.of(1, 2), Dim.of(256)), x, y, 5L, 2L, 1L, 10L, 10L),
                "value 10 exceeds the 5 elements of arguments[1] (int* sl_partials)");
        // A one-pass launch with a second row of blocks: those have no rows of their own, and write nothing.
        await(s.enqueueLaunch(columns, LaunchConfig.of(Dim.of(1, 2), Dim.of(256)), x, y, 5L, 2L, 2L, 5L, 10L));
        assertEquals(List.<Number>of(5L, 7L, 9L, 6L, 8L), download(s, y));
    }

    @Test
    void rowsTimesColumnsPastALongIsRefused() {
        DeviceStream s = ctx.stream();
        DeviceBuffer x = closeLater(ctx.allocate(DType.I32, 10));
        DeviceBuffer y = closeLater(ctx.allocate(DType.I32, 10));
        try (DeviceReduction r = MAX_AND_WRAPPING_SUM.compile(ctx)) {
            assertInvalid("cols", s, () -> r.enqueueRows(s, 1L << 32, 1L << 32, x, y), "value 4294967296 times rows 4294967296");
            assertInvalid("cols", s, () -> r.enqueueColumns(s, 3, Long.MAX_VALUE / 2, x, y), "more elements than a long");
        }
    }

    @Test
    void aReductionsOutputOfAnotherTypeContextOrClosedIsRefusedBeforeItsFirstPassNamingItsPlace() {
        DeviceStream s = ctx.stream();
        DeviceBuffer x = closeLater(ctx.allocate(DType.I32, 4096));
        DeviceBuffer wrongType = closeLater(ctx.allocate(DType.F32, 4096));
        DeviceBuffer closed = ctx.allocate(DType.I32, 4096);
        closed.close();
        DeviceBuffer elsewhere = closeLater(open(dev.sluice.ContextOptions.defaults()).allocate(DType.I32, 4096));
        try (DeviceReduction r = MAX_AND_WRAPPING_SUM.compile(ctx)) {
            // Each call's first pass (partials, or rows' chunks) would be enqueued before its last pass refused the output.
            assertInvalid("arguments", s, () -> r.enqueue(s, 4096, x, wrongType), "argument 1 (int* biggest)", "F32");
            assertInvalid("arguments", s, () -> r.enqueueRows(s, 1, 4096, x, wrongType), "argument 1", "F32");
            assertInvalid("arguments", s, () -> r.enqueueColumns(s, 4096, 1, x, wrongType), "argument 1", "F32");
            assertInvalid("arguments", s, () -> r.enqueue(s, 4096, x, 7), "argument 1 (int* biggest)", "Integer");
            assertInvalid("arguments", s, () -> r.enqueue(s, 4096, x, null), "argument 1 (int* biggest)", "null");
            assertInvalid("arguments", s, () -> r.enqueue(s, 4096, x, elsewhere), "argument 1", "context");
            assertRejected(dev.sluice.ClosedResourceException.class, s, () -> r.enqueue(s, 4096, x, closed), "argument 1");
            assertRejected(dev.sluice.ClosedResourceException.class, s, () -> r.enqueueRows(s, 1, 4096, x, closed),
                    "argument 1");
            assertInvalid("arguments", s, () -> r.enqueue(s, 4096, wrongType, x), "argument 0 (int* x)", "F32");
        }
    }

    @Test
    void aClosedReductionIsRefusedNamingItWithNothingEnqueued() {
        DeviceStream s = ctx.stream();
        DeviceBuffer x = closeLater(ctx.allocate(DType.I32, 4096));
        DeviceBuffer y = closeLater(ctx.allocate(DType.I32, 4096));
        DeviceReduction r = MAX_AND_WRAPPING_SUM.compile(ctx);
        r.close();
        r.close();
        assertRejected(dev.sluice.ClosedResourceException.class, s, () -> r.enqueue(s, 4096, x, y), "extremes");
        assertRejected(dev.sluice.ClosedResourceException.class, s, () -> r.enqueueRows(s, 1, 4096, x, y), "extremes");
        assertRejected(dev.sluice.ClosedResourceException.class, s, () -> r.enqueueRows(s, 4, 8, x, y), "extremes");
        assertRejected(dev.sluice.ClosedResourceException.class, s, () -> r.enqueueColumns(s, 4096, 1, x, y), "extremes");
    }

    // ---------------------------------------------------------------- the host reference

    private static String word(DType t) {
        return t == DType.BOOL ? "bool" : t.name().toLowerCase(java.util.Locale.ROOT);
    }

    private static DType promoted(DType t) {
        return t == DType.I8 || t == DType.U8 || t == DType.I16 ? DType.I32 : t;
    }

    private static List<Number> edges(DType t) {
        return switch (t) {
            case BOOL -> List.of(0L, 1L);
            case I8 -> List.of(0L, 1L, -1L, 7L, -7L, 127L, -128L, 100L);
            case U8 -> List.of(0L, 1L, 7L, 128L, 200L, 255L);
            case I16 -> List.of(0L, 1L, -1L, 7L, -7L, 32767L, -32768L, 300L);
            case I32 -> List.of(0L, 1L, -1L, 7L, -7L, (long) Integer.MAX_VALUE, (long) Integer.MIN_VALUE, 65536L, 123456789L);
            case I64 -> List.of(0L, 1L, -1L, 7L, -7L, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 32, -(1L << 40) + 3);
            case F32 -> List.of(0.0, -0.0, 1.0, -1.0, 2.5, -0.75, (double) Float.NaN, (double) Float.POSITIVE_INFINITY,
                    (double) Float.NEGATIVE_INFINITY, (double) Float.MAX_VALUE, (double) Float.MIN_VALUE, 3.0e9, -2.5e10, 1e-3f + 0.0);
            case F64 -> List.of(0.0, -0.0, 1.0, -1.0, 2.5, -0.75, Double.NaN, Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY, Double.MAX_VALUE, Double.MIN_VALUE, 3.0e9, -1e19, 1e-3);
            default -> throw new AssertionError(t);
        };
    }

    /** {@code v} wrapped to integer type {@code t}, two's complement. */
    private static long wrap(DType t, long v) {
        return switch (t) {
            case BOOL -> v != 0 ? 1 : 0;
            case I8 -> (byte) v;
            case U8 -> v & 0xFF;
            case I16 -> (short) v;
            case I32 -> (int) v;
            default -> v;
        };
    }

    private static Number round(DType f, double v) {
        return f == DType.F32 ? (double) (float) v : v;
    }

    private static Number normalise(DType t, Number v) {
        return t.isFloatingPoint() ? round(t, v.doubleValue()) : wrap(t, v.longValue());
    }

    private static Number arithmetic(String op, DType t, Number x, Number y) {
        if (t.isFloatingPoint()) {
            if (t == DType.F32) {
                float a = x.floatValue();
                float b = y.floatValue();
                return (double) switch (op) {
                    case "+" -> a + b;
                    case "-" -> a - b;
                    case "*" -> a * b;
                    case "/" -> a / b;
                    default -> a % b;
                };
            }
            double a = x.doubleValue();
            double b = y.doubleValue();
            return switch (op) {
                case "+" -> a + b;
                case "-" -> a - b;
                case "*" -> a * b;
                case "/" -> a / b;
                default -> a % b;
            };
        }
        long a = x.longValue();
        long b = y.longValue();
        // Division by zero is defined: the quotient is 0 and the remainder the dividend.
        return wrap(t, switch (op) {
            case "+" -> a + b;
            case "-" -> a - b;
            case "*" -> a * b;
            case "/" -> b == 0 ? 0 : a / b;
            default -> b == 0 ? a : a % b;
        });
    }

    private static boolean compare(String op, Number x, Number y) {
        if (x instanceof Double || y instanceof Double) {
            double a = x.doubleValue();
            double b = y.doubleValue();
            return switch (op) {
                case "<" -> a < b;
                case "<=" -> a <= b;
                case ">" -> a > b;
                case ">=" -> a >= b;
                case "==" -> a == b;
                default -> a != b;
            };
        }
        long a = x.longValue();
        long b = y.longValue();
        return switch (op) {
            case "<" -> a < b;
            case "<=" -> a <= b;
            case ">" -> a > b;
            case ">=" -> a >= b;
            case "==" -> a == b;
            default -> a != b;
        };
    }

    private static Number negate(DType t, Number x) {
        return t.isFloatingPoint() ? (Number) (-x.doubleValue()) : wrap(t, -x.longValue());
    }

    /** C's fmin/fmax for floats: a NaN operand is ignored unless both are NaN. */
    private static Number minMax(boolean min, DType t, Number x, Number y) {
        if (t.isFloatingPoint()) {
            double a = x.doubleValue();
            double b = y.doubleValue();
            return Double.isNaN(a) ? b : Double.isNaN(b) ? a : min ? Math.min(a, b) : Math.max(a, b);
        }
        return min ? Math.min(x.longValue(), y.longValue()) : Math.max(x.longValue(), y.longValue());
    }

    /** C's pow: 1 to any power, and -1 to an infinite one, is 1 (Java's Math.pow says NaN for some of them). */
    private static double cPow(double x, double y) {
        if (x == 1 || y == 0 || (x == -1 && Double.isInfinite(y))) {
            return 1;
        }
        return Math.pow(x, y);
    }

    /** A value of a language type converted to {@code to}: float-to-integer saturates, NaN gives 0, integers wrap. */
    private static Number convert(Number v, DType to) {
        boolean fromFloat = v instanceof Double;
        if (to == DType.BOOL) {
            return fromFloat ? (v.doubleValue() != 0 ? 1L : 0L) : (v.longValue() != 0 ? 1L : 0L);
        }
        if (to.isFloatingPoint()) {
            double d = fromFloat ? v.doubleValue() : (to == DType.F32 ? (double) (float) v.longValue() : (double) v.longValue());
            return round(to, d);
        }
        if (fromFloat) {
            return to == DType.I64 ? (long) v.doubleValue() : wrap(to, (int) v.doubleValue());
        }
        return wrap(to, v.longValue());
    }

    private static boolean same(Case c, Number expected, Number got) {
        if (!c.out.isFloatingPoint()) {
            return expected.longValue() == got.longValue();
        }
        double e = expected.doubleValue();
        double g = got.doubleValue();
        if (Double.isNaN(e) || Double.isNaN(g)) {
            return Double.isNaN(e) && Double.isNaN(g);
        }
        if (!c.approximate || Double.isInfinite(e) || e == g) {
            return Double.doubleToLongBits(e) == Double.doubleToLongBits(g);
        }
        double tolerance = c.out == DType.F32 ? 4e-6 : 1e-14;
        return Math.abs(e - g) <= tolerance * Math.max(1, Math.abs(e));
    }

    // ---------------------------------------------------------------- moving values

    private DeviceBuffer upload(DeviceStream s, DType t, List<Number> values) {
        byte[] bytes = new byte[values.size() * t.byteSize()];
        MemorySegment m = MemorySegment.ofArray(bytes);
        for (int k = 0; k < values.size(); k++) {
            Number v = values.get(k);
            switch (t) {
                case BOOL, I8, U8 -> m.set(ValueLayout.JAVA_BYTE, k, (byte) v.longValue());
                case I16 -> m.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, k, (short) v.longValue());
                case I32 -> m.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, k, (int) v.longValue());
                case I64 -> m.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k, v.longValue());
                case F32 -> m.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, k, v.floatValue());
                case F64 -> m.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, k, v.doubleValue());
                default -> fail("no upload of " + t);
            }
        }
        DeviceBuffer b = closeLater(ctx.allocate(t, values.size()));
        await(s.enqueueCopy(HostData.of(m), b));
        return b;
    }

    private static List<Number> download(DeviceStream s, DeviceBuffer b) {
        DType t = b.dtype();
        byte[] bytes = new byte[Math.toIntExact(b.byteSize())];
        MemorySegment m = MemorySegment.ofArray(bytes);
        await(s.enqueueCopy(b, HostData.of(m)));
        List<Number> out = new ArrayList<>();
        for (int k = 0; k < b.count(); k++) {
            out.add(switch (t) {
                case BOOL, U8 -> (long) (m.get(ValueLayout.JAVA_BYTE, k) & 0xFF);
                case I8 -> (long) m.get(ValueLayout.JAVA_BYTE, k);
                case I16 -> (long) m.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, k);
                case I32 -> (long) m.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, k);
                case I64 -> m.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k);
                case F32 -> (double) m.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, k);
                case F64 -> m.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, k);
                default -> throw new AssertionError(t);
            });
        }
        return out;
    }
}
