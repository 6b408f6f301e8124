package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DeviceFigure;
import dev.sluice.LaunchConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The stages in Spark jobs on a local executor with the plugin and two simulated devices; one SparkSession for all. */
class GpuPartitionStageTest {

    @RegisterExtension
    static final LocalSpark LOCAL = new LocalSpark("GpuPartitionStageTest", 2, 3);

    /**
     * No task run left, the plugin's two contexts held by it alone, no task running, and, once the lanes kept for the
     * next task ({@link StagePipelines}) are released, no pinned or device memory.
     */
    static void assertNothingLeftOfTasks() throws InterruptedException {
        assertEventually(() -> TaskRun.live() == 0, "every task's run ended");
        assertEquals(2, ExecutorDevices.openCount(), "the plugin's two contexts, no other");
        for (int d = 0; d < 2; d++) {
            assertEquals(1, ExecutorDevices.references(new ExecutorDevices.Key("cpu", d)),
                    "cpu:" + d + " is held by the plugin only");
            ExecutorDevices.Device dev = ExecutorDevices.open(new ExecutorDevices.Key("cpu", d));
            assertTrue(dev != null, "the plugin keeps cpu:" + d + " open");
            dev.pipelines.releaseIdle(30);
            assertEquals(0, dev.allocator.getAllocatedMemory(), "pinned Arrow memory left on cpu:" + d);
            assertEquals(0, dev.figures.value(DeviceFigure.MEMORY_ALLOCATED.metricName()), "device memory left on cpu:" + d);
            assertEquals(0, dev.figures.value(DeviceFigures.TASKS_RUNNING), "tasks running on cpu:" + d);
        }
    }

    private static Dataset<Row> numbers(long n, int partitions) {
        return LOCAL.spark().range(0, n, 1, partitions)
                .select(functions.col("id"), functions.col("id").mod(1000).divide(8).cast("float").as("x"));
    }

    private static GpuPartitionStage<Row, Row> quadratic(int batchRows) {
        return quadratic(batchRows, 2);
    }

    private static GpuPartitionStage<Row, Row> quadratic(int batchRows, int lanes) {
        return GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .carry(TestStages.ID).input(TestStages.X)
                .output(TestStages.Y)
                .batchRows(batchRows).lanes(lanes)
                .buildRows();
    }

    private static void checkQuadratic(List<Row> rows, long n) {
        assertEquals(n, rows.size());
        Set<Long> ids = new HashSet<>();
        for (Row r : rows) {
            long id = r.getLong(0);
            float x = (id % 1000) / 8f;
            assertEquals(TestStages.quadratic(x), r.getFloat(1), 1e-5f * Math.max(1, TestStages.quadratic(x)), "id " + id);
            assertTrue(ids.add(id), "id " + id + " twice");
        }
    }

    @Test
    void rowsThroughTheKernelEqualTheHostComputation() {
        GpuPartitionStage<Row, Row> stage = quadratic(1000);
        assertEquals("id", stage.outputSchema().fields()[0].name());
        long replays = replays();
        List<Row> rows = numbers(16_000, 4).mapPartitions(stage, stage.rowEncoder()).collectAsList();
        checkQuadratic(rows, 16_000);
        // 4 batches of 1,000 rows a partition over 2 lanes: a lane's second batch replays the graph of its first.
        assertTrue(replays() > replays, "lanes replayed their batches' device work as graphs");
    }

    @Test
    void aStagesNextTaskOnTheDeviceTakesTheLanesAndGraphsItsLastTaskLeft() {
        // One lane a task: lanes open as batches arrive, so with two a next task could open one the first never opened.
        GpuPartitionStage<Row, Row> stage = quadratic(1000, 1);
        long builds = builds();
        checkQuadratic(numbers(8000, 2).mapPartitions(stage, stage.rowEncoder()).collectAsList(), 8000);
        assertTrue(builds() > builds, "the first tasks built their lanes' graphs");
        for (int d = 0; d < 2; d++) {
            assertEquals(1, device(d).pipelines.idleCount(), "the task on cpu:" + d + " left its pipeline");
        }
        builds = builds();
        long replays = replays();
        checkQuadratic(numbers(8000, 2).mapPartitions(stage, stage.rowEncoder()).collectAsList(), 8000);
        assertEquals(builds, builds(), "the next tasks replayed the graphs their lanes had built");
        assertTrue(replays() >= replays + 8, "every batch of the next tasks replayed");

        // A task of another stage on the device releases them: the first stage's next tasks build afresh.
        GpuPartitionStage<Row, Row> other = quadratic(500, 1);
        checkQuadratic(numbers(4000, 2).mapPartitions(other, other.rowEncoder()).collectAsList(), 4000);
        builds = builds();
        checkQuadratic(numbers(8000, 2).mapPartitions(stage, stage.rowEncoder()).collectAsList(), 8000);
        assertTrue(builds() > builds, "the first stage's lanes had been released");
    }

    @Test
    void devicesThatKeepTwoStagesLetThemAlternateWithoutBuildingAgain() {
        // One lane a task: lanes open as batches arrive, so with two a later task could open one its stage's earlier
        // tasks never opened, and build its graph.
        GpuPartitionStage<Row, Row> first = quadratic(1000, 1);
        GpuPartitionStage<Row, Row> second = quadratic(500, 1);
        GpuPartitionStage<Row, Row> third = quadratic(250, 1);
        try {
            for (int d = 0; d < 2; d++) {
                device(d).pipelines.stagesKept(2);
            }
            checkQuadratic(numbers(4000, 2).mapPartitions(first, first.rowEncoder()).collectAsList(), 4000);
            checkQuadratic(numbers(4000, 2).mapPartitions(second, second.rowEncoder()).collectAsList(), 4000);
            long builds = builds();
            checkQuadratic(numbers(4000, 2).mapPartitions(first, first.rowEncoder()).collectAsList(), 4000);
            checkQuadratic(numbers(4000, 2).mapPartitions(second, second.rowEncoder()).collectAsList(), 4000);
            assertEquals(builds, builds(), "both stages' tasks took the lanes and graphs their last tasks left");
            for (int d = 0; d < 2; d++) {
                assertEquals(2, device(d).pipelines.idleCount(), "cpu:" + d + " keeps a pipeline of each stage");
            }

            // A third stage releases the lanes of the one used least recently (the first), not the second's.
            checkQuadratic(numbers(4000, 2).mapPartitions(third, third.rowEncoder()).collectAsList(), 4000);
            builds = builds();
            checkQuadratic(numbers(4000, 2).mapPartitions(second, second.rowEncoder()).collectAsList(), 4000);
            assertEquals(builds, builds(), "the second stage's lanes were kept");
            checkQuadratic(numbers(4000, 2).mapPartitions(first, first.rowEncoder()).collectAsList(), 4000);
            assertTrue(builds() > builds, "the first stage's lanes had been released");

            // None kept: every task's lanes are released at its end.
            for (int d = 0; d < 2; d++) {
                device(d).pipelines.stagesKept(0);
                assertEquals(0, device(d).pipelines.idleCount(), "cpu:" + d + " released what it kept");
            }
            checkQuadratic(numbers(4000, 2).mapPartitions(first, first.rowEncoder()).collectAsList(), 4000);
            for (int d = 0; d < 2; d++) {
                assertEquals(0, device(d).pipelines.idleCount(), "cpu:" + d + " keeps nothing");
            }
        } finally {
            for (int d = 0; d < 2; d++) {
                device(d).pipelines.stagesKept(1);
            }
        }
    }

    @Test
    void aTaskThatFailedLeavesNoLanesForTheNext() {
        TestStages.FAILURES_TO_INJECT.set(100); // every attempt fails
        try {
            GpuPartitionStage<Row, Row> stage = GpuPartitionStage.<Row>stage(new InjectingStage())
                    .carry(TestStages.ID).input(TestStages.X).output(TestStages.Y)
                    .batchRows(700).lanes(2).buildRows();
            assertThrows(Exception.class, () -> numbers(2000, 1).mapPartitions(stage, stage.rowEncoder()).count());
            for (int d = 0; d < 2; d++) {
                assertEquals(0, device(d).pipelines.idleCount(), "a failed task's lanes on cpu:" + d
                        + " may still have its device work: closed, not kept");
            }
        } finally {
            TestStages.FAILURES_TO_INJECT.set(0);
        }
    }

    @Test
    void aTaskThatStoppedReadingEarlyLeavesNoLanesForTheNext() {
        GpuPartitionStage<Row, Row> stage = quadratic(100);
        // limit(1) stops the task's iterator after one row: the batches read ahead are still in the lanes.
        assertEquals(1, numbers(5000, 1).mapPartitions(stage, stage.rowEncoder()).limit(1).collectAsList().size());
        for (int d = 0; d < 2; d++) {
            assertEquals(0, device(d).pipelines.idleCount(), "cpu:" + d + " keeps no lanes with batches in flight");
        }
    }

    private static ExecutorDevices.Device device(int ordinal) {
        return java.util.Objects.requireNonNull(ExecutorDevices.open(new ExecutorDevices.Key("cpu", ordinal)));
    }

    private static long builds() {
        return device(0).figures.value(DeviceFigures.GRAPH_BUILDS) + device(1).figures.value(DeviceFigures.GRAPH_BUILDS);
    }

    @Test
    void tasksSpreadOverBothDevicesAndTheirFiguresCount() {
        long[] before = new long[2];
        for (int d = 0; d < 2; d++) {
            before[d] = ExecutorDevices.open(new ExecutorDevices.Key("cpu", d)).figures.value(DeviceFigures.ROWS);
        }
        GpuPartitionStage<Row, Row> stage = quadratic(500);
        assertEquals(4000, numbers(4000, 4).mapPartitions(stage, stage.rowEncoder()).count());
        for (int d = 0; d < 2; d++) {
            long rows = ExecutorDevices.open(new ExecutorDevices.Key("cpu", d)).figures.value(DeviceFigures.ROWS) - before[d];
            assertEquals(2000, rows, "rows on cpu:" + d + " (partitions 0, 2 on cpu:0 and 1, 3 on cpu:1)");
        }
    }

    @Test
    void typedObjectsThroughAnEncoder() {
        Dataset<Float> xs = LOCAL.spark().range(0, 3000, 1, 3).map((MapFunctionLong) id -> (id % 100) / 4f, Encoders.FLOAT());
        GpuPartitionStage<Float, Float> stage = GpuPartitionStage.<Float>kernel(() -> TestStages.QUADRATIC)
                .input(TestStages.X, x -> x)
                .output(TestStages.Y)
                .batchRows(256)
                .build((batch, row) -> batch.column(0).getFloat(row));
        List<Float> ys = xs.mapPartitions(stage, Encoders.FLOAT()).collectAsList();
        assertEquals(3000, ys.size());
        for (int i = 0; i < ys.size(); i++) {
            assertEquals(TestStages.quadratic((i % 100) / 4f), ys.get(i), 1e-4f, "row " + i);
        }
    }

    /** {@code Dataset.map} over {@code range}'s boxed longs, as a serializable lambda. */
    interface MapFunctionLong extends org.apache.spark.api.java.function.MapFunction<Long, Float> {
    }

    @Test
    void aFailureInjectedInsideTheStageRetriesTheTaskAndEachRowComesOnce() {
        TestStages.FAILURES_TO_INJECT.set(1);
        GpuPartitionStage<Row, Row> stage = GpuPartitionStage.<Row>stage(new InjectingStage())
                .carry(TestStages.ID).input(TestStages.X).output(TestStages.Y)
                .batchRows(700).lanes(2).buildRows();
        List<Row> rows = numbers(6000, 3).mapPartitions(stage, stage.rowEncoder()).collectAsList();
        assertEquals(0, TestStages.FAILURES_TO_INJECT.get(), "the failure was injected");
        checkQuadratic(rows, 6000);
    }

    /** The quadratic kernel, after throwing as many times as {@link TestStages#FAILURES_TO_INJECT} says. */
    static final class InjectingStage implements ArrowStage {
        @Override
        public List<dev.sluice.Kernel> kernels() {
            return List.of(TestStages.QUADRATIC);
        }

        @Override
        public dev.sluice.DeviceFuture<?> enqueue(dev.sluice.reactive.Lane lane, dev.sluice.arrow.DeviceBatch in,
                dev.sluice.arrow.DeviceBatch out) {
            if (TestStages.FAILURES_TO_INJECT.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("injected failure");
            }
            return lane.stream().enqueueLaunch(lane.function(TestStages.QUADRATIC),
                    LaunchConfig.forElements(in.rowCount()), in.column("x").data(), out.column("y").data(),
                    (long) in.rowCount());
        }
    }

    @Test
    void aNullFailsTheTaskNamingTheRowsAndTheDevice() {
        StructType schema = DataTypes.createStructType(List.of(
                DataTypes.createStructField("id", DataTypes.LongType, false),
                DataTypes.createStructField("x", DataTypes.FloatType, true)));
        List<Row> data = new ArrayList<>();
        for (long i = 0; i < 100; i++) {
            data.add(RowFactory.create(i, i == 42 ? null : (float) i));
        }
        Dataset<Row> df = LOCAL.spark().createDataFrame(data, schema).coalesce(1); // in order: row 42 is the 43rd read
        GpuPartitionStage<Row, Row> stage = quadratic(64);
        Exception e = assertThrows(Exception.class, () -> df.mapPartitions(stage, stage.rowEncoder()).collectAsList());
        String m = e.getMessage();
        assertTrue(m.contains("row 42 has a null in column x"), m);
        assertTrue(m.contains("rows 0 to 42 of the partition, on device cpu:"), m);
    }

    @Test
    void rowsWhoseSchemaChangesWithinThePartitionAreReadByName() {
        StructType idX = DataTypes.createStructType(List.of(DataTypes.createStructField("id", DataTypes.LongType, false),
                DataTypes.createStructField("x", DataTypes.FloatType, false)));
        StructType xId = DataTypes.createStructType(List.of(idX.fields()[1], idX.fields()[0]));
        GpuPartitionStage<Row, Row> stage = quadratic(100);
        // Three rows of one schema, three of the other: the columns' positions are found anew at each change.
        List<Row> rows = LOCAL.spark().range(0, 1, 1, 1).mapPartitions((MapPartitionsFunction<Long, Row>) in -> {
            List<Row> mixed = new ArrayList<>();
            for (long id = 0; id < 1000; id++) {
                float x = (id % 1000) / 8f;
                mixed.add((id / 3) % 2 == 0 ? new GenericRowWithSchema(new Object[] {id, x}, idX)
                        : new GenericRowWithSchema(new Object[] {x, id}, xId));
            }
            return stage.call(mixed.iterator());
        }, stage.rowEncoder()).collectAsList();
        checkQuadratic(rows, 1000);
    }

    @Test
    void aBatchOfTheWrongWidthFailsTheTaskNamingTheRowsAndTheDevice() {
        GpuArrowStage stage = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .input(TestStages.X).output(TestStages.Y).batchRows(128).buildArrow();
        Dataset<Long> one = LOCAL.spark().range(0, 1, 1, 1);
        Exception e = assertThrows(Exception.class, () -> one.mapPartitions((MapPartitionsFunction<Long, Long>) in -> {
            BufferAllocator a = new RootAllocator();
            Schema two = new Schema(List.of(TestStages.X, TestStages.Y));
            VectorSchemaRoot bad = VectorSchemaRoot.create(two, a);
            bad.allocateNew();
            bad.setRowCount(10);
            try {
                stage.process(List.of(bad).iterator()).hasNext();
            } finally {
                bad.close();
                a.close();
            }
            return List.<Long>of().iterator();
        }, Encoders.LONG()).collectAsList());
        String m = e.getMessage();
        assertTrue(m.contains("batch 0 (task"), m);
        assertTrue(m.contains("rows 0 to 9 of the partition, on device cpu:0) has 2 column(s)"), m);
    }

    @Test
    void aClosedBatchFailsTheTaskNamingItBeforeItsBuffersAreRead() {
        GpuArrowStage stage = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .carry(org.apache.arrow.vector.types.pojo.Field.notNullable("s",
                        org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE))
                .input(TestStages.X).output(TestStages.Y).batchRows(128).buildArrow();
        Dataset<Long> one = LOCAL.spark().range(0, 1, 1, 1);
        // A closed root keeps its row count while its vectors hold nothing: the string column's offsets were read
        // past their (empty) buffer.
        Exception e = assertThrows(Exception.class, () -> one.mapPartitions((MapPartitionsFunction<Long, Long>) in -> {
            try (BufferAllocator a = new RootAllocator()) {
                VectorSchemaRoot closed = VectorSchemaRoot.create(new Schema(List.of(stage.resultFields().get(0),
                        TestStages.X)), a);
                closed.allocateNew();
                closed.setRowCount(10);
                closed.close();
                stage.process(List.of(closed).iterator()).hasNext();
            }
            return List.<Long>of().iterator();
        }, Encoders.LONG()).collectAsList());
        String m = e.getMessage();
        assertTrue(m.contains("GpuTaskException") && m.contains("batch 0 (task"), m);
        assertTrue(m.contains("has 0 values in column s but 10 rows (a closed vector has 0)"), m);
    }

    @Test
    void arrowBatchesComeBackAsColumnarBatchesOfTheResult() {
        GpuArrowStage stage = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .input(TestStages.X).output(TestStages.Y).batchRows(1000).buildArrow();
        List<Float> sums = LOCAL.spark().range(0, 2, 1, 2).mapPartitions((MapPartitionsFunction<Long, Float>) in -> {
            List<Float> out = new ArrayList<>();
            try (BufferAllocator a = new RootAllocator()) {
                List<VectorSchemaRoot> batches = new ArrayList<>();
                for (int b = 0; b < 5; b++) {
                    VectorSchemaRoot r = VectorSchemaRoot.create(new Schema(List.of(TestStages.X)), a);
                    Float4Vector x = (Float4Vector) r.getVector(0);
                    x.allocateNew(1000);
                    for (int i = 0; i < 1000; i++) {
                        x.set(i, b + i / 1000f);
                    }
                    r.setRowCount(1000);
                    batches.add(r);
                }
                var results = stage.processColumnar(batches.iterator());
                int b = 0;
                while (results.hasNext()) {
                    try (ColumnarBatch c = results.next()) {
                        for (int i = 0; i < c.numRows(); i++) {
                            float expected = TestStages.quadratic(b + i / 1000f);
                            if (Math.abs(c.column(0).getFloat(i) - expected) > 1e-4f * expected) {
                                throw new AssertionError("batch " + b + " row " + i + ": " + c.column(0).getFloat(i));
                            }
                        }
                        out.add((float) c.numRows());
                    }
                    b++;
                }
                batches.forEach(VectorSchemaRoot::close);
            }
            return out.iterator();
        }, Encoders.FLOAT()).collectAsList();
        assertEquals(List.of(1000f, 1000f, 1000f, 1000f, 1000f, 1000f, 1000f, 1000f, 1000f, 1000f), sums);
    }

    @Test
    void aJobCancelledMidStageLeavesNothingBehindAndAnotherJobKeepsItsRows() throws Exception {
        GpuPartitionStage<Row, Row> stage = quadratic(100);
        long rowsBefore = ExecutorDevices.open(new ExecutorDevices.Key("cpu", 0)).figures.value(DeviceFigures.ROWS)
                + ExecutorDevices.open(new ExecutorDevices.Key("cpu", 1)).figures.value(DeviceFigures.ROWS);
        // Slow rows upstream of the stage: the tasks are in the middle of the stage when the job is cancelled.
        Dataset<Row> slow = numbers(1_000_000, 2).map((org.apache.spark.api.java.function.MapFunction<Row, Row>) r -> {
            Thread.sleep(0, 200_000);
            return r;
        }, Encoders.row(numbers(1, 1).schema()));
        CompletableFuture<Object> cancelled = CompletableFuture.supplyAsync(() -> {
            LOCAL.spark().sparkContext().setJobGroup("to-cancel", "cancelled mid-stage", true);
            try {
                return slow.mapPartitions(stage, stage.rowEncoder()).count();
            } catch (Throwable e) { // SparkException is checked, thrown from Scala
                return e;
            } finally {
                LOCAL.spark().sparkContext().clearJobGroup();
            }
        });
        assertEventually(() -> ExecutorDevices.open(new ExecutorDevices.Key("cpu", 0)).figures.value(DeviceFigures.ROWS)
                + ExecutorDevices.open(new ExecutorDevices.Key("cpu", 1)).figures.value(DeviceFigures.ROWS)
                > rowsBefore + 1000, "the job's tasks are in the stage");
        LOCAL.spark().sparkContext().cancelJobGroup("to-cancel");
        Object outcome = cancelled.get(60, TimeUnit.SECONDS);
        assertTrue(outcome instanceof Exception e && String.valueOf(e.getMessage()).contains("cancel"),
                "the job was cancelled: " + outcome);
        // Another job after it, on the same devices, gets all its rows.
        checkQuadratic(numbers(3000, 2).mapPartitions(stage, stage.rowEncoder()).collectAsList(), 3000);
    }

    private static long replays() {
        return ExecutorDevices.open(new ExecutorDevices.Key("cpu", 0)).figures.value(DeviceFigures.GRAPH_REPLAYS)
                + ExecutorDevices.open(new ExecutorDevices.Key("cpu", 1)).figures.value(DeviceFigures.GRAPH_REPLAYS);
    }

    static void assertEventually(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
