package dev.sluice.examples;

import static org.apache.spark.sql.functions.col;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.SluiceProperties;
import dev.sluice.arrow.DeviceBatch;
import dev.sluice.kernel.Kernels;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.GpuPipeline;
import dev.sluice.reactive.Lane;
import dev.sluice.spark.ArrowStage;
import dev.sluice.spark.GpuPartitionStage;
import dev.sluice.spark.SluiceSparkPlugin;
import java.io.Serial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.metrics.source.Source;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Throughput of a GPU stage in a Spark job against the plain {@link GpuPipeline}, in one process on the same load:
 * {@code --rows} floats in batches of {@code --batch-rows}, each batch uploaded, run through an elementwise kernel of
 * {@value SpinLoad#FMAS_PER_PASS} dependent FMAs per element {@code --work} times ({@link Kernels#elementwise}, written once),
 * and downloaded. Transfer-bound with little work (0: copies only), compute-bound with much: each setting of
 * {@code --work} (a comma-separated list) is measured in turn.
 *
 * <p>The ways:
 * <ul>
 * <li><b>pipeline</b>: a {@link GpuPipeline} of {@code --lanes} lanes per device over {@code --devices} devices,
 * {@code float[]} chunks ({@link Chunks#floats()}), results unordered, each checked;
 * <li><b>spark</b>: a job in embedded local mode ({@code local[--threads]}, the executor's devices opened by
 * {@link SluiceSparkPlugin}) over a cached {@code Dataset} of one float column in {@code --threads} partitions per
 * device: {@code mapPartitions} through a {@link GpuPartitionStage} of {@code --lanes} lanes per task, then a count and
 * a sum of the results, which are checked. It pays what a Spark stage pays: rows read into Arrow batches, results read
 * back into rows by the encoder, the aggregation.
 * <li><b>floor</b>: the same job with the identity function in place of the stage (the same cached rows, encoders,
 * count and sum, checked against the input's): what Spark itself costs, below which no stage goes. The spark way's time
 * beyond it is the stage's: its host work and the device's.
 * </ul>
 * Every way runs once to warm up, then {@code --runs} times, each run starting with another way; the figures are
 * medians. Prints a {@code key=value} line per figure ({@code sparkbench_work<W>_pipeline_ms}, {@code ..._spark_ms},
 * {@code ..._spark_floor_ms}, {@code ..._spark_over_pipeline}: the job's throughput over the pipeline's, and
 * {@code ..._spark_over_floor}: the job's throughput over the floor's). Options (defaults for the CPU simulator, then
 * for a GPU):
 * <pre>
 * --api cpu|cuda|hip   the backend (default: sluice.api, SLUICE_API, else the best present)
 * --rows N             floats per run (131072; 67108864)
 * --batch-rows B       floats per batch (4096; 1048576)
 * --work W[,W...]      passes of the kernel per batch (1; 0,128): W x 128 dependent FMAs per element
 * --runs K             timed runs of each way (2; 5)
 * --threads T          Spark's task slots, local[T] (2; 4)
 * --devices D          1 or 2 (2 where the backend has two; the CPU simulator is given two)
 * --lanes L            lanes per device (pipeline) and per task (Spark) (2; 4)
 * </pre>
 * On the CPU simulator its figures say nothing of GPUs: it is the smoke test of the benchmark. See docs/spark.md.
 */
public final class SparkBench {




    private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    /** The ways measured, in the order of the first timed run. */
    private static final List<String> WAYS = List.of("pipeline", "spark", "floor");

    /** The options, resolved: see the class comment. */
    record Options(Api api, int rows, int batchRows, List<Integer> work, int runs, int threads, int devices, int lanes) {
    }

    private SparkBench() {
    }

    public static void main(String[] args) throws Exception {
        run(args).forEach(System.out::println);
    }

    /** Runs the benchmark; returns the lines it prints. */
    static List<String> run(String[] args) {
        Options o = options(args);
        List<String> out = new ArrayList<>();
        List<DeviceContext> contexts = new ArrayList<>();
        SparkSession spark = SparkSession.builder()
                .master("local[" + o.threads() + "]")
                .appName("SparkBench")
                .config("spark.plugins", SluiceSparkPlugin.class.getName())
                .config(SluiceSparkPlugin.API, o.api().id())
                .config(SluiceSparkPlugin.DEVICES, o.devices() == 1 ? "0" : "0,1")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .getOrCreate();
        try {
            for (int d = 0; d < o.devices(); d++) {
                contexts.add(DeviceContext.open(o.api(), d));
            }
            int partitions = o.threads() * o.devices();
            Dataset<Row> input = spark.range(0, o.rows(), 1, partitions)
                    .select(col("id").divide(o.batchRows()).cast("long").mod(SpinLoad.POOL).plus(1).cast("float").as("x"))
                    .cache();
            input.count(); // cached before any run is timed
            out.add(String.format(Locale.ROOT, "sparkbench_devices=%s", String.join(" | ",
                    contexts.stream().map(DeviceContext::name).toList())));
            out.add(String.format(Locale.ROOT, "sparkbench_rows=%d batch_rows=%d threads=%d partitions=%d lanes=%d",
                    o.rows(), o.batchRows(), o.threads(), partitions, o.lanes()));
            for (int work : o.work()) {
                measure(o, work, contexts, input, out);
            }
            input.unpersist();
        } finally {
            spark.stop();
            contexts.forEach(DeviceContext::close);
        }
        return out;
    }

    private static void measure(Options o, int work, List<DeviceContext> contexts, Dataset<Row> input, List<String> out) {
        String key = "sparkbench_work" + work + "_";
        float[] expected = SpinLoad.expected(work);
        double expectedSum = expectedSum(o, expected);
        GpuPartitionStage<Row, Row> stage = GpuPartitionStage.<Row>stage(new Spin(work))
                .input(Field.notNullable("x", F32)).output(Field.notNullable("y", F32))
                .batchRows(o.batchRows()).lanes(o.lanes()).buildRows();
        Dataset<Row> job = input.mapPartitions(stage, stage.rowEncoder())
                .agg(functions.count(functions.lit(1)), functions.sum(col("y")));
        // Spark's own cost of the same stage shape: the same rows, encoders and aggregation, the rows handed on as they
        // come (the result's column y holds the input's x); what the GPU stage costs beyond it is Sluice's.
        Dataset<Row> floor = input.mapPartitions((MapPartitionsFunction<Row, Row>) rows -> rows, stage.rowEncoder())
                .agg(functions.count(functions.lit(1)), functions.sum(col("y")));
        double floorSum = expectedSum(o, SpinLoad.expected(0));
        Map<String, List<Double>> ms = new LinkedHashMap<>();
        Map<String, Long> stageFigures = new LinkedHashMap<>();
        for (String way : WAYS) {
            ms.put(way, new ArrayList<>());
        }
        try (GpuPipeline<float[], float[]> pipeline = GpuPipeline.builder(contexts).lanes(o.lanes())
                .chunkElements(o.batchRows(), DType.F32).inPlace().kernel(SpinLoad.SPIN)
                .stage((lane, in, outBuffer) -> SpinLoad.spin(lane.stream(), lane.function(SpinLoad.SPIN), in, in, lane.elements(), work))
                .build(Chunks.floats())) {
            List<float[]> pool = new ArrayList<>();
            for (int k = 0; k < SpinLoad.POOL; k++) {
                float[] a = new float[o.batchRows()];
                Arrays.fill(a, k + 1);
                pool.add(a);
            }
            for (int r = -1; r < o.runs(); r++) { // run -1 warms up
                for (int i = 0; i < WAYS.size(); i++) { // each run starts with another way
                    String way = WAYS.get(Math.floorMod(r + i, WAYS.size()));
                    Map<String, Long> before = stageFigures();
                    double t = switch (way) {
                        case "pipeline" -> runPipeline(pipeline, o, pool, expected);
                        case "spark" -> runSpark("spark", job, o, expectedSum);
                        default -> runSpark("spark floor", floor, o, floorSum);
                    };
                    if (r == o.runs() - 1 && way.equals("pipeline")) {
                        out.add(String.format(Locale.ROOT, "%spipeline_total graphReplays=%d graphBuilds=%d", key,
                                pipeline.metrics().graphReplays(), pipeline.metrics().graphBuilds()));
                    }
                    if (r >= 0) {
                        ms.get(way).add(t);
                        if (way.equals("spark")) {
                            stageFigures().forEach((k, v) -> stageFigures.merge(k, v - before.getOrDefault(k, 0L), Long::sum));
                        }
                    }
                }
            }
        }
        double pipelineMs = median(ms.get("pipeline"));
        double sparkMs = median(ms.get("spark"));
        double floorMs = median(ms.get("floor"));
        out.add(String.format(Locale.ROOT, "%sfmas_per_element=%d", key, work * SpinLoad.FMAS_PER_PASS));
        out.add(String.format(Locale.ROOT, "%spipeline_ms=%.1f", key, pipelineMs));
        out.add(String.format(Locale.ROOT, "%sspark_ms=%.1f", key, sparkMs));
        out.add(String.format(Locale.ROOT, "%sspark_over_pipeline=%.3f", key, pipelineMs / sparkMs));
        out.add(String.format(Locale.ROOT, "%sspark_floor_ms=%.1f", key, floorMs));
        // What the stage's runs did on the executor's devices, per run: tells replayed batches from rebuilt or plain ones.
        StringBuilder figures = new StringBuilder(key + "spark_per_run");
        stageFigures.forEach((k, v) -> figures.append(' ').append(k).append('=').append(v / Math.max(1, o.runs())));
        out.add(figures.toString());
        out.add(String.format(Locale.ROOT, "%sspark_over_floor=%.3f", key, floorMs / sparkMs));
        double mb = o.rows() * 4.0 / 1e6;
        out.add(String.format(Locale.ROOT, "%spipeline_MBps=%.2f spark_MBps=%.2f", key, mb / (pipelineMs / 1e3),
                mb / (sparkMs / 1e3)));
    }

    /** A job's run: milliseconds; fails unless its count and sum are the host's. */
    private static double runSpark(String way, Dataset<Row> job, Options o, double expectedSum) {
        long t0 = System.nanoTime();
        Row r = job.first();
        double ms = (System.nanoTime() - t0) / 1e6;
        long count = r.getLong(0);
        double sum = r.getDouble(1);
        if (count != o.rows() || Math.abs(sum - expectedSum) > 1e-6 * expectedSum) {
            throw new IllegalStateException(way + ": " + count + " rows summing to " + sum + "; expected " + o.rows()
                    + " summing to " + expectedSum);
        }
        return ms;
    }

    /** The pipeline's run: milliseconds; fails unless every result is the host's. */
    private static double runPipeline(GpuPipeline<float[], float[]> p, Options o, List<float[]> pool, float[] expected) {
        List<float[]> batches = new ArrayList<>();
        int full = o.rows() / o.batchRows();
        for (int i = 0; i < full; i++) {
            batches.add(pool.get(i % SpinLoad.POOL));
        }
        if (o.rows() % o.batchRows() != 0) {
            batches.add(Arrays.copyOf(pool.get(full % SpinLoad.POOL), o.rows() % o.batchRows()));
        }
        LongAdder values = new LongAdder();
        long t0 = System.nanoTime();
        p.processUnordered(Flux.fromIterable(batches)).doOnNext(r -> {
            float y = r[0];
            boolean known = false;
            for (float e : expected) {
                known |= e == y && r[r.length - 1] == y;
            }
            if (!known) {
                throw new IllegalStateException("pipeline: a result begins with " + y + " and ends with "
                        + r[r.length - 1] + "; expected one of " + Arrays.toString(expected) + " at both ends");
            }
            values.add(r.length);
        }).blockLast(Duration.ofMinutes(10));
        double ms = (System.nanoTime() - t0) / 1e6;
        if (values.sum() != o.rows()) {
            throw new IllegalStateException("pipeline: " + values.sum() + " values of " + o.rows());
        }
        return ms;
    }

    /** The Spark stage's device work: {@code work} passes of {@link SpinLoad#SPIN}, x into y then y in place (0: a copy). */
    record Spin(int work) implements ArrowStage {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public List<Kernel> kernels() {
            return List.of(SpinLoad.SPIN);
        }

        @Override
        public @Nullable DeviceFuture<?> enqueue(Lane lane, DeviceBatch in, DeviceBatch out) {
            DeviceBuffer x = java.util.Objects.requireNonNull(in.column("x").data());
            DeviceBuffer y = java.util.Objects.requireNonNull(out.column("y").data());
            if (work == 0) {
                return lane.stream().enqueueCopy(x, y);
            }
            return SpinLoad.spin(lane.stream(), lane.function(SpinLoad.SPIN), x, y, in.rowCount(), work);
        }
    }



    /**
     * The executor plugin's figures that say how the stage's batches ran (summed over the executor's devices): batches,
     * graph replays and builds, operations enqueued, kernels compiled or loaded and their milliseconds. Local mode only:
     * the executor is this JVM, so its metric sources are the driver's {@link SparkEnv}'s.
     */
    private static Map<String, Long> stageFigures() {
        Map<String, Long> sums = new LinkedHashMap<>();
        String source = "plugin." + SluiceSparkPlugin.class.getName();
        for (Source s : CollectionConverters.asJava(SparkEnv.get().metricsSystem().getSourcesByName(source))) {
            s.metricRegistry().getGauges().forEach((name, gauge) -> {
                for (String figure : List.of("batches", "graphReplays", "graphBuilds", "sluice.operations.enqueued")) {
                    if (name.endsWith("." + figure) && gauge.getValue() instanceof Number n) {
                        sums.merge(figure, n.longValue(), Long::sum);
                    }
                }
            });
            s.metricRegistry().getHistograms().forEach((name, h) -> {
                if (name.endsWith(".sluice.kernel.compilations")) {
                    sums.merge("kernelLoads", h.getCount(), Long::sum);
                    sums.merge("kernelLoadMs", Math.round(h.getSnapshot().getMean() * h.getSnapshot().size() / 1e6),
                            Long::sum);
                }
            });
        }
        return sums;
    }

    /** The sum of the job's results: row {@code i} holds {@code expected[(i / batchRows) % SpinLoad.POOL]}. */
    private static double expectedSum(Options o, float[] expected) {
        double sum = 0;
        for (long start = 0; start < o.rows(); start += o.batchRows()) {
            long n = Math.min(o.batchRows(), o.rows() - start);
            sum += n * (double) expected[(int) ((start / o.batchRows()) % SpinLoad.POOL)];
        }
        return sum;
    }

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    // ---------------------------------------------------------------- options

    private static final List<String> OPTIONS = List.of("--api", "--rows", "--batch-rows", "--work", "--runs",
            "--threads", "--devices", "--lanes");

    /** Parses the options (see the class comment); the defaults depend on the backend. */
    static Options options(String[] args) {
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (!OPTIONS.contains(name)) {
                throw new InvalidArgumentException(name, "no such option; the options: " + String.join(", ", OPTIONS));
            }
            if (i + 1 == args.length) {
                throw new InvalidArgumentException(name, "needs a value");
            }
            given.put(name, args[++i]);
        }
        if (System.getProperty(SluiceProperties.CPU_DEVICES) == null) {
            System.setProperty(SluiceProperties.CPU_DEVICES, "2"); // before any context opens, which reads it
        }
        Api api;
        if (given.containsKey("--api")) {
            api = Api.of(given.get("--api"));
        } else {
            try (DeviceContext probe = DeviceContext.open()) {
                api = probe.api();
            }
        }
        boolean gpu = api != Api.CPU;
        int present = DeviceContext.deviceCount(api);
        int rows = number(given, "--rows", gpu ? 1 << 26 : 1 << 17, 1, Integer.MAX_VALUE);
        int batchRows = number(given, "--batch-rows", gpu ? 1 << 20 : 4096, 1, 1 << 28);
        List<Integer> work = new ArrayList<>();
        for (String w : given.getOrDefault("--work", gpu ? "0,128" : "1").split(",")) {
            work.add(parse("--work", w.strip(), 0, 100_000));
        }
        int runs = number(given, "--runs", gpu ? 5 : 2, 1, 1000);
        int threads = number(given, "--threads", gpu ? 4 : 2, 1, 256);
        int devices = number(given, "--devices", Math.min(2, present), 1, 2);
        if (devices > present) {
            throw new InvalidArgumentException("--devices", devices + ", but " + api.id() + " has " + present
                    + " device(s) here");
        }
        int lanes = number(given, "--lanes", gpu ? 4 : 2, 1, 64);
        return new Options(api, rows, batchRows, List.copyOf(work), runs, threads, devices, lanes);
    }

    private static int number(Map<String, String> given, String name, int byDefault, int min, int max) {
        String v = given.get(name);
        return v == null ? byDefault : parse(name, v, min, max);
    }

    private static int parse(String name, String value, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new InvalidArgumentException(name, "'" + value + "' is not a whole number");
        }
        if (n < min || n > max) {
            throw new InvalidArgumentException(name, "value " + n + " is outside " + min + " to " + max);
        }
        return n;
    }
}
