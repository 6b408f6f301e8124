package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Speculation on, with one partition much slower than the others, so that Spark marks its task speculatable: the output
 * still has each row once and nothing of any task is left. (A local master has one executor on one host, where Spark
 * does not start a task's speculative copy beside the original; a cluster does, and each copy then runs with lanes and
 * pinned memory of its own, as any two tasks do.)
 */
class SpeculationTest {

    @RegisterExtension
    static final LocalSpark LOCAL = new LocalSpark("SpeculationTest", 2, 2, b -> b
            .config("spark.speculation", "true")
            .config("spark.speculation.interval", "20ms")
            .config("spark.speculation.multiplier", "1.5")
            .config("spark.speculation.quantile", "0.5")
            .config("spark.speculation.minTaskRuntime", "50ms"));

    @Test
    void withSpeculationOnEachRowComesOnce() throws Exception {
        GpuPartitionStage<Row, Row> stage = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .carry(TestStages.ID).input(TestStages.X).output(TestStages.Y).batchRows(200).buildRows();
        Dataset<Row> numbers = LOCAL.spark().range(0, 4000, 1, 4)
                .select(functions.col("id"), functions.col("id").mod(1000).divide(8).cast("float").as("x"));
        // Partition 3 waits 1 ms for each of its last 200 rows: far slower than the others.
        Dataset<Row> skewed = numbers.map((MapFunction<Row, Row>) r -> {
            if (r.getLong(0) >= 3800) {
                Thread.sleep(1);
            }
            return r;
        }, Encoders.row(numbers.schema()));
        List<Row> rows = skewed.mapPartitions(stage, stage.rowEncoder()).collectAsList();
        assertEquals(4000, rows.size());
        Set<Long> ids = new HashSet<>();
        for (Row r : rows) {
            float x = (r.getLong(0) % 1000) / 8f;
            assertEquals(TestStages.quadratic(x), r.getFloat(1), 1e-5f * TestStages.quadratic(x));
            assertTrue(ids.add(r.getLong(0)), "id " + r.getLong(0) + " twice");
        }
        GpuPartitionStageTest.assertEventually(() -> TaskRun.live() == 0, "every task's run ended");
    }
}
