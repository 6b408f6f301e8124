package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DeviceFigure;
import dev.sluice.cpu.InjectedCpuFaults;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sticky fault of one device (the CPU simulator faults its context as an illegal address faults a GPU's) fails the
 * tasks on that device naming it, now and for every later task sent there, while the other device keeps working.
 */
class StickyFaultTest {

    private static SparkSession spark;

    @BeforeAll
    static void start() {
        // The plugin opens cpu:0 first, on this thread (a local executor starts inside SparkSession.getOrCreate).
        InjectedCpuFaults.throwInKernelOfNextContext("quadratic", 0, 0);
        try {
            spark = TestStages.localSpark("StickyFaultTest", 2, 2).getOrCreate();
        } finally {
            InjectedCpuFaults.disarm();
        }
    }

    @AfterAll
    static void stop() {
        spark.stop();
        assertEquals(0, ExecutorDevices.openCount(), "the plugin's shutdown closes every context, a faulted one too");
    }

    private static Dataset<Row> numbers(int partitions) {
        return spark.range(0, 1000, 1, partitions)
                .select(functions.col("id"), functions.col("id").cast("float").as("x"));
    }

    @Test
    void aStickyFaultFailsTheTasksOnThatDeviceNamingItAndTheOtherDeviceGoesOn() throws Exception {
        GpuPartitionStage<Row, Row> stage = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .carry(TestStages.ID).input(TestStages.X).output(TestStages.Y).batchRows(100).buildRows();
        // Partition 0 runs on cpu:0, whose first launch faults it.
        Exception first = assertThrows(Exception.class,
                () -> numbers(1).mapPartitions(stage, stage.rowEncoder()).collectAsList());
        assertTrue(first.getMessage().contains("device cpu:0 of this executor has a sticky fault"), first.getMessage());
        ExecutorDevices.Device d0 = ExecutorDevices.open(new ExecutorDevices.Key("cpu", 0));
        assertEquals(1, d0.figures.value(DeviceFigure.FAULTS.metricName()));
        // Later tasks on cpu:0 fail at once, naming it.
        Exception again = assertThrows(Exception.class,
                () -> numbers(1).mapPartitions(stage, stage.rowEncoder()).collectAsList());
        assertTrue(again.getMessage().contains("device cpu:0 of this executor has a sticky fault"), again.getMessage());
        // Partition 1 runs on cpu:1, which goes on (partition 0 skips the stage here: its task would fail the job).
        MapPartitionsFunction<Row, Row> onlyPartition1 = rows -> TaskContext.getPartitionId() == 0
                ? java.util.Collections.emptyIterator() : stage.call(rows);
        assertEquals(500, numbers(2).mapPartitions(onlyPartition1, stage.rowEncoder()).count());
        ExecutorDevices.Device d1 = ExecutorDevices.open(new ExecutorDevices.Key("cpu", 1));
        assertEquals(0, d1.figures.value(DeviceFigure.FAULTS.metricName()));
        assertEquals(500, d1.figures.value(DeviceFigures.ROWS), "partition 1's rows went through cpu:1");
        GpuPartitionStageTest.assertEventually(() -> TaskRun.live() == 0, "every task's run ended");
    }
}
