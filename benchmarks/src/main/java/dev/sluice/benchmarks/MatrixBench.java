package dev.sluice.benchmarks;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.EventFlag;
import dev.sluice.HostData;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.DeviceReduction;
import dev.sluice.kernel.Kernels;
import dev.sluice.kernel.Reduction;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import joptsimple.OptionParser;
import joptsimple.OptionSpec;

/**
 * Row-major F32 matrices, two ways:
 * <ul>
 * <li>row and column sums ({@link DeviceReduction#enqueueRows}, {@link DeviceReduction#enqueueColumns}) of a square
 * matrix, a tall and thin one and a short and wide one, each the same number of bytes, and (each path of a row
 * reduction) rows as wide as a warp's part of a row gets, rows just past that, and a single row: the median device
 * time (events)
 * of {@code --reps} runs, and the matrix's bytes read per second. On a GPU a kernel keeping the device busy for about a
 * millisecond precedes each timed start, so that the host's enqueue overlaps it;
 * <li>a pitched 2-D copy of a rectangle of a Java {@code float[]} (unpinned: staged by the backend) whose rows are
 * {@code 64} floats longer than the rectangle's, to a dense device buffer and back: the median wall time from the
 * enqueue to the future's completion, and the rectangle's bytes per second.
 * </ul>
 * Defaults on a GPU: 16384 × 16384, 4194304 × 64, 64 × 4194304, 262144 × 1024, 131072 × 2048 and 1 × 268435456 (1 GiB
 * each) for the sums, 8192 × 8192 for the copies, 10 runs; on the CPU simulator 1024 × 1024, 16384 × 64, 64 × 16384 and
 * 1 × 1048576 for the sums and 1024 × 1024 for the copies, 3 runs.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.MatrixBench
 *     [--api cuda|hip|cpu] [--reps 10]</pre>
 */
public final class MatrixBench {

    /** Floats each host row of the copied rectangle has past its end: the host side's pitch is width + this. */
    static final int HOST_ROW_PADDING = 64;

    private static final Reduction SUM = Kernels.reduction("matrix_sum")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .accumulator(DType.F32)
            .map("x")
            .reduce("a + b")
            .identity("0.0f")
            .postMap("y = a")
            .build();

    /** The options: the backend (null: the one {@code DeviceContext.open()} picks) and the timed runs (0: default). */
    record Options(String api, int reps) {

        static Options parse(String[] args) {
            OptionParser parser = CommandLine.parser();
            OptionSpec<String> api = parser.accepts("api").withRequiredArg();
            OptionSpec<Integer> reps = parser.accepts("reps").withRequiredArg().ofType(Integer.class);
            Options[] o = new Options[1];
            CommandLine.parse(parser, args, """
                    usage: MatrixBench [--api cuda|hip|cpu] [--reps N]
                      --api    backend (default: the best present, as DeviceContext.open() picks)
                      --reps   timed runs of each case, after two of warm-up (default 10 on a GPU, 3 on the CPU)""",
                    set -> o[0] = new Options(set.valueOf(api), set.has(reps) ? set.valueOf(reps) : 0));
            return o[0];
        }
    }

    private MatrixBench() {
    }

    /**
     * Runs the benchmark and prints its tables.
     *
     * @param args {@code --api}, {@code --reps}; {@code --help} lists them
     */
    public static void main(String[] args) {
        run(Options.parse(args));
    }

    static void run(Options o) {
        try (DeviceContext ctx = o.api() == null ? DeviceContext.open() : DeviceContext.open(Api.of(o.api()), 0)) {
            boolean gpu = ctx.api() != Api.CPU;
            int reps = o.reps() > 0 ? o.reps() : gpu ? 10 : 3;
            System.out.printf(Locale.ROOT, "device=%s%napi=%s%nreps=%d%n", ctx.name(), ctx.api().id(), reps);
            long[][] shapes = gpu ? new long[][] {{16384, 16384}, {4194304, 64}, {64, 4194304}, {262144, 1024},
                {131072, 2048}, {1, 268435456}}
                    : new long[][] {{1024, 1024}, {16384, 64}, {64, 16384}, {1, 1048576}};
            reductions(ctx, gpu, reps, shapes);
            int side = gpu ? 8192 : 1024;
            copies(ctx, reps, side, side);
        }
    }

    private static void reductions(DeviceContext ctx, boolean gpu, int reps, long[][] shapes) {
        DeviceStream s = ctx.stream();
        DeviceFunction busy = gpu ? ctx.compile(FusionBench.BUSY) : null;
        System.out.println("| F32 sum | rows | cols | median ms | GB/s of the matrix |");
        System.out.println("|---|---|---|---|---|");
        try (DeviceReduction sum = SUM.compile(ctx); DeviceEvent start = ctx.createEvent(EventFlag.TIMING);
                DeviceEvent end = ctx.createEvent(EventFlag.TIMING)) {
            for (long[] shape : shapes) {
                long rows = shape[0];
                long cols = shape[1];
                try (DeviceBuffer x = ctx.allocate(DType.F32, rows * cols);
                        DeviceBuffer byRow = ctx.allocate(DType.F32, rows);
                        DeviceBuffer byColumn = ctx.allocate(DType.F32, cols)) {
                    s.enqueueFill(x, 1.0f).join();
                    double[][] ms = new double[2][reps];
                    for (int r = -2; r < reps; r++) { // two rounds of warm-up
                        for (int k = 0; k < 2; k++) {
                            int axis = (k + Math.max(r, 0)) % 2; // rows and columns go first in turn
                            if (busy != null) {
                                s.enqueueLaunch(busy, LaunchConfig.of(1, 1), 2_000_000L); // about 1 ms at 2 GHz
                            }
                            s.enqueueRecord(start);
                            if (axis == 0) {
                                sum.enqueueRows(s, rows, cols, x, byRow);
                            } else {
                                sum.enqueueColumns(s, rows, cols, x, byColumn);
                            }
                            s.enqueueRecord(end).join();
                            if (r >= 0) {
                                ms[axis][r] = start.elapsed(end).toNanos() / 1e6;
                            }
                        }
                    }
                    double bytes = rows * cols * (double) Float.BYTES;
                    reductionRow("rows", rows, cols, Samples.median(ms[0]), bytes);
                    reductionRow("columns", rows, cols, Samples.median(ms[1]), bytes);
                }
            }
        } finally {
            if (busy != null) {
                busy.close();
            }
        }
    }

    private static void reductionRow(String axis, long rows, long cols, double ms, double bytes) {
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %.3f | %.1f |%n", axis, rows, cols, ms, bytes / ms / 1e6);
    }

    private static void copies(DeviceContext ctx, int reps, int height, int width) {
        DeviceStream s = ctx.stream();
        int pitch = width + HOST_ROW_PADDING;
        float[] host = new float[height * pitch];
        for (int k = 0; k < host.length; k++) {
            host[k] = k;
        }
        float[] back = new float[height * pitch];
        System.out.println("| 2-D copy, unpinned float[] | rows | cols | host pitch | median ms | GB/s of the rectangle |");
        System.out.println("|---|---|---|---|---|---|");
        try (DeviceBuffer d = ctx.allocate(DType.F32, (long) height * width)) {
            double[][] ms = new double[2][reps];
            for (int r = -2; r < reps; r++) {
                long t0 = System.nanoTime();
                s.enqueueCopy2D(HostData.of(MemorySegment.ofArray(host)), pitch, d, width, width, height).join();
                long t1 = System.nanoTime();
                s.enqueueCopy2D(d, width, HostData.of(MemorySegment.ofArray(back)), pitch, width, height).join();
                long t2 = System.nanoTime();
                if (r >= 0) {
                    ms[0][r] = (t1 - t0) / 1e6;
                    ms[1][r] = (t2 - t1) / 1e6;
                }
            }
            for (int row = 0; row < height; row += Math.max(1, height / 64)) { // a sample of rows came back whole
                for (int c = 0; c < width; c += Math.max(1, width / 64)) {
                    if (back[row * pitch + c] != host[row * pitch + c]) {
                        throw new IllegalStateException("row " + row + ", column " + c + " came back as " + back[row * pitch + c]);
                    }
                }
            }
            double bytes = (double) height * width * Float.BYTES;
            copyRow("host to device", height, width, pitch, Samples.median(ms[0]), bytes);
            copyRow("device to host", height, width, pitch, Samples.median(ms[1]), bytes);
        }
    }

    private static void copyRow(String direction, int rows, int cols, int pitch, double ms, double bytes) {
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %.3f | %.2f |%n", direction, rows, cols, pitch, ms, bytes / ms / 1e6);
    }
}
