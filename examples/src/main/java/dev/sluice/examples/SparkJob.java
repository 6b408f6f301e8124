package dev.sluice.examples;

import static org.apache.spark.sql.functions.abs;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.lit;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Kernels;
import dev.sluice.spark.GpuPartitionStage;
import dev.sluice.spark.SluiceSparkPlugin;
import java.util.Locale;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark job with a GPU stage: {@code rows} numbers in {@code partitions} partitions, each row's
 * {@code y = x * x + 0.5 x + 1} computed on the device by a {@link GpuPartitionStage} in {@code Dataset.mapPartitions}
 * (batches of 4096 rows, 3 lanes a task, the row's id carried through), the executor's devices opened by
 * {@link SluiceSparkPlugin}; then Spark itself checks every row against the host's computation, and that each id came
 * once. Prints one line; a wrong result throws. Arguments: {@code [rows [partitions [threads]]]}, 200000, 4 and 2 by
 * default.
 *
 * <p>Run directly ({@code java}, {@code exec:exec}), it starts an embedded local Spark ({@code local[threads]}) with the
 * plugin on. Under {@code spark-submit}, which sets {@code spark.master}, the master, the plugin and every other setting
 * come from its {@code --master} and {@code --conf}, as for any job, and {@code threads} is not used
 * ({@code .ci/spark-cluster-check.sh} runs it so on a standalone cluster). See docs/spark.md.
 */
public final class SparkJob {

    /** {@code y = x * x + 0.5 x + 1} for every element; takes (x, y, n), the arguments a kernel stage passes. */
    static final Kernel QUADRATIC = Kernels.elementwise("quadratic")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = x * x + 0.5f * x + 1.0f")
            .build();

    private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

    private SparkJob() {
    }

    public static void main(String[] args) {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 200_000;
        int partitions = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        System.out.println(run(rows, partitions, threads));
    }

    /** Runs the job and returns its summary; a value that differs from the host's fails it, naming how many. */
    static String run(long rows, int partitions, int threads) {
        SparkSession.Builder builder = SparkSession.builder().appName("SparkJob");
        if (System.getProperty("spark.master") == null) {
            // Not under spark-submit: an embedded local Spark. Under it these come from its --conf alone, so that a
            // cluster run shows what the submitted settings do (a plugin set here would hide one missing there).
            builder.master("local[" + threads + "]")
                    .config("spark.plugins", SluiceSparkPlugin.class.getName()) // a context per device, for the executor
                    .config("spark.ui.enabled", "false")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1");
        }
        SparkSession spark = builder.getOrCreate();
        try {
            long start = System.nanoTime();
            Dataset<Row> numbers = spark.range(0, rows, 1, partitions)
                    .select(col("id"), col("id").mod(1000).divide(8).cast("float").as("x"));

            GpuPartitionStage<Row, Row> quadratic = GpuPartitionStage.<Row>kernel(() -> QUADRATIC)
                    .carry(Field.notNullable("id", new ArrowType.Int(64, true)))  // into the result, not the kernel
                    .input(Field.notNullable("x", F32))                           // the kernel's x
                    .passThrough("x")                                             // and into the result, for the check
                    .output(Field.notNullable("y", F32))                          // the kernel's y
                    .batchRows(4096)
                    .buildRows();
            Dataset<Row> results = numbers.mapPartitions(quadratic, quadratic.rowEncoder()); // id, x, y

            // The host's computation, by Spark, within a relative 1e-5 (a GPU may fuse the multiply and add).
            var expected = col("x").multiply(col("x")).plus(col("x").multiply(0.5)).plus(1);
            Row check = results.agg(
                    org.apache.spark.sql.functions.count(lit(1)),
                    countDistinct(col("id")),
                    org.apache.spark.sql.functions.sum(abs(col("y").minus(expected))
                            .gt(greatest(lit(1.0), abs(expected)).multiply(1e-5)).cast("long")))
                    .first();
            double seconds = (System.nanoTime() - start) / 1e9;
            long count = check.getLong(0);
            long distinct = check.getLong(1);
            long wrong = check.isNullAt(2) ? 0 : check.getLong(2);
            if (count != rows || distinct != rows || wrong != 0) {
                throw new IllegalStateException("SparkJob: " + count + " results of " + rows + " rows, " + distinct
                        + " distinct ids, " + wrong + " value(s) that differ from the host's");
            }
            return String.format(Locale.ROOT, "SparkJob: %d rows in %d partitions through y = x * x + 0.5 x + 1 on the"
                    + " device, %s, batches of 4096 rows, 3 lanes a task: every value equal to the host's, each row"
                    + " once (%.1f s)", rows, partitions, spark.sparkContext().master(), seconds);
        } finally {
            spark.stop();
        }
    }
}
