package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.arrow.ArrowColumns;
import dev.sluice.arrow.ArrowPipeline;
import dev.sluice.arrow.DeviceColumn;
import dev.sluice.arrow.PinnedAllocationFactory;
import dev.sluice.kernel.Kernels;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.GpuPipeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/**
 * One float column through upload, kernel ({@code y = x * 2 + 1}) and download, three ways in one process, alternating
 * run by run: Arrow vectors of Sluice's pinned allocator ({@code arrow-pinned}), Sluice pinned host buffers
 * ({@code sluice-pinned}, the yardstick), and Arrow vectors of Arrow's default allocator copied through float arrays
 * ({@code arrow-arrays}, what a user without sluice-arrow does). Prints each way's median in ms and GiB/s of column,
 * and the ratios of arrow-pinned to the others.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.ArrowBench \
 *     [--api cuda|hip|cpu] [--mib 1024] [--reps 7] [--pipeline [--batch-rows 4194304] [--lanes 3]]
 * </pre>
 *
 * <p>With {@code --pipeline} the column goes through pipelines in batches of {@code --batch-rows} rows, three ways:
 * an {@code ArrowPipeline} over record batches of the pinned allocator ({@code arrow-pipeline}, uploaded straight from
 * their buffers), the same over batches of Arrow's default allocator ({@code arrow-pipeline-staged}, copied into the
 * lanes' staging buffers first), and a {@code GpuPipeline} over slices of one Sluice pinned buffer, downloading into
 * slices of another ({@code sluice-pipeline}, the yardstick). Both Arrow ways download each result into new vectors
 * of the pinned allocator, so their ratio is the staging copy's cost alone. It also prints how many buffers the pinned
 * allocator's factory pinned while warming up (a round, repeated while it still pinned, at most four times: the pool
 * grows to the most results alive at once) and in the measured rounds: its pool should serve every result of the
 * measured rounds.
 */
public final class ArrowBench {

    static final Kernel SCALE = Kernels.elementwise("scale_plus_one")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = x * 2.0f + 1.0f")
            .build();

    private ArrowBench() {
    }

    public static void main(String[] args) throws Exception {
        String api = null;
        long mib = 1024;
        int reps = 7;
        boolean pipeline = false;
        int batchRows = 1 << 22;
        int lanes = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--api" -> api = args[++i];
                case "--mib" -> mib = Long.parseLong(args[++i]);
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--pipeline" -> pipeline = true;
                case "--batch-rows" -> batchRows = Integer.parseInt(args[++i]);
                case "--lanes" -> lanes = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: ArrowBench"
                        + " [--api cuda|hip|cpu] [--mib 1024] [--reps 7] [--pipeline [--batch-rows 4194304] [--lanes 3]]");
            }
        }
        try (DeviceContext ctx = api == null ? DeviceContext.open() : DeviceContext.open(api, 0)) {
            for (String line : pipeline ? runPipelines(ctx, mib, batchRows, lanes, reps) : run(ctx, mib, reps)) {
                System.out.println(line);
            }
        }
    }

    /** The report's lines: one per way, then the ratios. */
    static List<String> run(DeviceContext ctx, long mib, int reps) throws Exception {
        int n = Math.toIntExact(mib * (1 << 20) / 4);
        double[][] ms = new double[3][reps];
        String[] names = {"arrow-pinned", "sluice-pinned", "arrow-arrays"};
        try (RootAllocator pinned = PinnedAllocationFactory.of(ctx).newRootAllocator(Long.MAX_VALUE);
                RootAllocator plain = new RootAllocator();
                Float4Vector px = new Float4Vector("x", pinned); Float4Vector py = new Float4Vector("y", pinned);
                Float4Vector ax = new Float4Vector("x", plain); Float4Vector ay = new Float4Vector("y", plain);
                HostBuffer hx = ctx.allocateHost(DType.F32, n); HostBuffer hy = ctx.allocateHost(DType.F32, n);
                DeviceStream s = ctx.createStream(); DeviceFunction scale = ctx.compile(SCALE);
                DeviceBuffer dy = ctx.allocate(DType.F32, n)) {
            px.allocateNew(n);
            ax.allocateNew(n);
            for (int i = 0; i < n; i++) {
                px.set(i, i);
                ax.set(i, i);
                hx.setFloat(i, i);
            }
            px.setValueCount(n);
            ax.setValueCount(n);
            float[] array = new float[n];
            // One warm-up round, then reps rounds, the three ways in turn within each.
            for (int r = -1; r < reps; r++) {
                for (int way = 0; way < 3; way++) {
                    long t0 = System.nanoTime();
                    switch (way) {
                        case 0 -> {
                            try (DeviceColumn x = ArrowColumns.upload(s, px); DeviceColumn y = DeviceColumn.allocate(ctx, DType.F32, n, false)) {
                                s.enqueueLaunch(scale, LaunchConfig.forElements(n), x.data(), y.data(), (long) n);
                                ArrowColumns.download(s, y, py).get(600, TimeUnit.SECONDS);
                            }
                        }
                        case 1 -> {
                            try (DeviceBuffer dx = ctx.allocate(DType.F32, n)) {
                                s.enqueueCopy(hx, dx);
                                s.enqueueLaunch(scale, LaunchConfig.forElements(n), dx, dy, (long) n);
                                s.enqueueCopy(dy, hy).get(600, TimeUnit.SECONDS);
                            }
                        }
                        default -> {
                            for (int i = 0; i < n; i++) { // what a user without sluice-arrow writes
                                array[i] = ax.get(i);
                            }
                            try (DeviceBuffer dx = ctx.allocate(DType.F32, n)) {
                                s.enqueueCopy(HostData.of(array), dx);
                                s.enqueueLaunch(scale, LaunchConfig.forElements(n), dx, dy, (long) n);
                                s.enqueueCopy(dy, HostData.of(array)).get(600, TimeUnit.SECONDS);
                            }
                            ay.allocateNew(n);
                            for (int i = 0; i < n; i++) {
                                ay.set(i, array[i]);
                            }
                            ay.setValueCount(n);
                        }
                    }
                    if (r >= 0) {
                        ms[way][r] = (System.nanoTime() - t0) / 1e6;
                    }
                }
            }
            check(py, n);
            check(ay, n);
            for (int i = 0; i < n; i += Math.max(1, n / 64)) {
                if (hy.getFloat(i) != i * 2.0f + 1.0f) {
                    throw new IllegalStateException("sluice-pinned: y[" + i + "] = " + hy.getFloat(i));
                }
            }
        }
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "ArrowBench: %s, %d MiB float column (%d values), %d reps, upload -> kernel -> download",
                ctx.name(), mib, n, reps));
        double[] median = new double[3];
        for (int w = 0; w < 3; w++) {
            median[w] = median(ms[w]);
            out.add(String.format(Locale.ROOT, "%-14s median %10.2f ms  %7.2f GiB/s", names[w], median[w],
                    mib / 1024.0 / (median[w] / 1000)));
        }
        out.add(String.format(Locale.ROOT, "ratio arrow-pinned / sluice-pinned (throughput): %.3f", median[1] / median[0]));
        out.add(String.format(Locale.ROOT, "ratio arrow-pinned / arrow-arrays (throughput): %.3f", median[2] / median[0]));
        return out;
    }

    /**
     * The report of {@code --pipeline}: one line per way, the staging buffers each way allocated in its first round,
     * then the ratios.
     */
    static List<String> runPipelines(DeviceContext ctx, long mib, int batchRows, int lanes, int reps) throws Exception {
        long rows = mib * (1 << 20) / 4;
        int batches = Math.toIntExact((rows + batchRows - 1) / batchRows);
        double[][] ms = new double[3][reps];
        long[] staging = new long[3];
        String[] names = {"arrow-pipeline", "arrow-pipeline-staged", "sluice-pipeline"};
        ArrowType f32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
        Schema schema = new Schema(List.of(Field.notNullable("x", f32)));
        // A batch's buffers as the pipeline lays them out: the bitmap and the values, each rounded up to 64 bytes.
        long maxBatchBytes = align((batchRows + 7L) / 8) + align(batchRows * 4L);
        long[] pinnedAllocations = new long[3]; // before the warm-up round, after it, after the measured rounds
        try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx);
                RootAllocator pinned = factory.newRootAllocator(Long.MAX_VALUE);
                RootAllocator plain = new RootAllocator();
                HostBuffer hx = ctx.allocateHost(DType.F32, rows); HostBuffer hy = ctx.allocateHost(DType.F32, rows);
                ArrowPipeline arrow = ArrowPipeline.builder(ctx, pinned).lanes(lanes).capacity(batchRows, maxBatchBytes)
                        .output(Field.notNullable("y", f32)).kernel(SCALE)
                        .stage((lane, in, out) -> lane.stream().enqueueLaunch(lane.function(SCALE),
                                LaunchConfig.forElements(in.rowCount()), in.column("x").data(), out.column("y").data(),
                                (long) in.rowCount()))
                        .build();
                GpuPipeline<HostBuffer, HostBuffer> sluice = GpuPipeline.builder(ctx).lanes(lanes)
                        .chunkElements(batchRows, DType.F32).kernel(SCALE)
                        .stage((lane, in, out) -> lane.stream().enqueueLaunch(lane.function(SCALE),
                                LaunchConfig.forElements(lane.elements()), in, out, lane.elements()))
                        .buildInto(Chunks.hostBuffers(), (chunk, seq, n) -> hy.slice(seq * batchRows, n))) {
            List<VectorSchemaRoot> pinnedBatches = new ArrayList<>(batches);
            List<VectorSchemaRoot> plainBatches = new ArrayList<>(batches);
            try { // the batches are closed before their allocators
                List<HostBuffer> chunks = new ArrayList<>(batches);
                for (int b = 0; b < batches; b++) {
                    long first = (long) b * batchRows;
                    int n = (int) Math.min(batchRows, rows - first);
                    pinnedBatches.add(batch(schema, pinned, first, n));
                    plainBatches.add(batch(schema, plain, first, n));
                    chunks.add(hx.slice(first, n));
                }
                for (long i = 0; i < rows; i++) {
                    hx.setFloat(i, i);
                }
                // One warm-up round (it also opens the lanes), then reps rounds, the three ways in turn within each.
                pinnedAllocations[0] = factory.allocations();
                int extraWarmUps = 0;
                for (int r = -1; r < reps; r++) {
                    if (r == 0) {
                        pinnedAllocations[1] = factory.allocations();
                    }
                    long allocatedBefore = factory.allocations();
                    for (int way = 0; way < 3; way++) {
                        long t0 = System.nanoTime();
                        if (way < 2) {
                            arrow.process(Flux.fromIterable(way == 0 ? pinnedBatches : plainBatches)).index()
                                    .doOnNext(result -> {
                                        try (VectorSchemaRoot y = result.getT2()) {
                                            check((Float4Vector) y.getVector("y"), result.getT1() * batchRows, y.getRowCount());
                                        }
                                    })
                                    .blockLast(Duration.ofSeconds(600));
                        } else {
                            sluice.process(Flux.fromIterable(chunks)).blockLast(Duration.ofSeconds(600));
                        }
                        if (r >= 0) {
                            ms[way][r] = (System.nanoTime() - t0) / 1e6;
                        } else if (extraWarmUps == 0) { // a lane allocates its staging on its first staged batch: the first round shows it
                            staging[way] = way == 2 ? sluice.metrics().hostAllocations()
                                    : arrow.metrics().hostAllocations() - (way == 1 ? staging[0] : 0);
                        }
                    }
                    // The pool grows to the most results alive at once, which one round may not reach on a busy host:
                    // warm up again while a warm-up round still allocated (at most four), so measured rounds show reuse.
                    if (r == -1 && factory.allocations() > allocatedBefore && ++extraWarmUps < 4) {
                        r = -2;
                    }
                }
                pinnedAllocations[2] = factory.allocations();
            } finally {
                pinnedBatches.forEach(VectorSchemaRoot::close);
                plainBatches.forEach(VectorSchemaRoot::close);
            }
            for (long i = 0; i < rows; i += Math.max(1, rows / 64)) {
                if (hy.getFloat(i) != i * 2.0f + 1.0f) {
                    throw new IllegalStateException("sluice-pipeline: y[" + i + "] = " + hy.getFloat(i));
                }
            }
        }
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "ArrowBench --pipeline: %s, %d MiB float column (%d values) in %d batches of"
                + " %d rows, %d lanes, %d reps, upload -> kernel -> download", ctx.name(), mib, rows, batches, batchRows,
                lanes, reps));
        double[] median = new double[3];
        for (int w = 0; w < 3; w++) {
            median[w] = median(ms[w]);
            out.add(String.format(Locale.ROOT, "%-22s median %10.2f ms  %7.2f GiB/s", names[w], median[w],
                    mib / 1024.0 / (median[w] / 1000)));
        }
        out.add(String.format(Locale.ROOT, "staging buffers allocated in the first round: %s %d, %s %d, %s %d",
                names[0], staging[0], names[1], staging[1], names[2], staging[2]));
        out.add(String.format(Locale.ROOT, "pinned buffers allocated by the Arrow allocator: warm-up round %d, measured"
                + " rounds %d (the pool serves the rest)", pinnedAllocations[1] - pinnedAllocations[0],
                pinnedAllocations[2] - pinnedAllocations[1]));
        out.add(String.format(Locale.ROOT, "ratio arrow-pipeline / sluice-pipeline (throughput): %.3f", median[2] / median[0]));
        out.add(String.format(Locale.ROOT, "ratio arrow-pipeline / arrow-pipeline-staged (throughput): %.3f",
                median[1] / median[0]));
        return out;
    }

    /** A batch of one column x of {@code n} rows whose row i holds {@code first + i}. */
    private static VectorSchemaRoot batch(Schema schema, BufferAllocator allocator, long first, int n) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        Float4Vector x = (Float4Vector) root.getVector("x");
        x.allocateNew(n);
        for (int i = 0; i < n; i++) {
            x.set(i, first + i);
        }
        root.setRowCount(n);
        return root;
    }

    private static long align(long bytes) {
        return (bytes + 63) / 64 * 64;
    }

    /** Samples of y, row i of which is the column's row {@code first + i}. */
    private static void check(Float4Vector y, long first, int n) {
        for (int i = 0; i < n; i += Math.max(1, n / 64)) {
            float expected = (float) (first + i) * 2.0f + 1.0f;
            if (y.get(i) != expected) {
                throw new IllegalStateException(y.getName() + "[" + (first + i) + "] = " + y.get(i) + ", expected " + expected);
            }
        }
    }

    private static void check(Float4Vector y, int n) {
        for (int i = 0; i < n; i += Math.max(1, n / 64)) {
            if (y.get(i) != i * 2.0f + 1.0f) {
                throw new IllegalStateException(y.getName() + "[" + i + "] = " + y.get(i));
            }
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
