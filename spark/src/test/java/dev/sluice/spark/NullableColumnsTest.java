package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.InvalidArgumentException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nullable input columns through both stages, with SQL's semantics: an output row is null where the input is, and
 * equals the host's computation elsewhere. Batches of 64 rows; the nulls sit at a batch's start, middle and end, fill a
 * whole batch, and run across a batch boundary.
 */
class NullableColumnsTest {

    private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    private static final Field X = Field.nullable("x", F32);
    private static final Field Y = Field.nullable("y", F32);
    private static final int BATCH = 64;
    private static final int ROWS = 5 * BATCH - 24; // the last batch partial

    @RegisterExtension
    static final LocalSpark LOCAL = new LocalSpark("NullableColumnsTest", 2, 1);

    /**
     * Row {@code i} is null: the first, a middle and the last row of batch 0, all of batch 2 (rows 128 to 191), the
     * run 250 to 260 across the boundary of batches 3 and 4, and the partition's last row.
     */
    static boolean isNull(int i) {
        return i == 0 || i == 31 || i == BATCH - 1 || (i >= 2 * BATCH && i < 3 * BATCH) || (i >= 250 && i <= 260)
                || i == ROWS - 1;
    }

    private static float x(int i) {
        return (i % 100) / 8f;
    }

    @Test
    void rowsWithNullsComeBackNullInTheSameRowsAndEqualTheHostElsewhere() {
        StructType schema = DataTypes.createStructType(List.of(
                DataTypes.createStructField("id", DataTypes.LongType, false),
                DataTypes.createStructField("x", DataTypes.FloatType, true)));
        List<Row> data = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            data.add(RowFactory.create((long) i, isNull(i) ? null : x(i)));
        }
        Dataset<Row> df = LOCAL.spark().createDataFrame(data, schema).coalesce(1); // in order: batches of rows 64k to 64k + 63
        GpuPartitionStage<Row, Row> stage = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .carry(TestStages.ID).input(X).output(Y).batchRows(BATCH).lanes(2).buildRows();
        assertTrue(stage.outputSchema().fields()[1].nullable(), "y is nullable in the result's schema");
        List<Row> rows = df.mapPartitions(stage, stage.rowEncoder()).collectAsList();
        assertEquals(ROWS, rows.size());
        int nulls = 0;
        for (Row r : rows) {
            int id = (int) r.getLong(0);
            if (isNull(id)) {
                assertTrue(r.isNullAt(1), "row " + id + " is null in x, so in y: " + r);
                nulls++;
            } else {
                assertEquals(TestStages.quadratic(x(id)), r.getFloat(1), 1e-5f * TestStages.quadratic(x(id)), "row " + id);
            }
        }
        assertEquals(3 + BATCH + 11 + 1, nulls);
    }

    @Test
    void typedObjectsWhoseValueIsNullComeBackNull() {
        GpuPartitionStage<Long, Float> stage = GpuPartitionStage.<Long>kernel(() -> TestStages.QUADRATIC)
                .input(X, id -> isNull(id.intValue()) ? null : x(id.intValue()))
                .output(Y).batchRows(BATCH)
                .build((batch, row) -> batch.column(0).isNullAt(row) ? Float.NaN : batch.column(0).getFloat(row));
        List<Float> ys = LOCAL.spark().range(0, ROWS, 1, 1).mapPartitions(stage, Encoders.FLOAT()).collectAsList();
        assertEquals(ROWS, ys.size());
        for (int i = 0; i < ROWS; i++) {
            if (isNull(i)) {
                assertTrue(Float.isNaN(ys.get(i)), "row " + i + " is null: " + ys.get(i));
            } else {
                assertEquals(TestStages.quadratic(x(i)), ys.get(i), 1e-5f * TestStages.quadratic(x(i)), "row " + i);
            }
        }
    }

    @Test
    void arrowBatchesWithNullsComeBackAsColumnarBatchesWhoseVectorsReportThem() {
        GpuArrowStage stage = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .input(X).passThrough("x").output(Y).batchRows(BATCH).lanes(2).buildArrow();
        List<Integer> checked = LOCAL.spark().range(0, 1, 1, 1).mapPartitions((MapPartitionsFunction<Long, Integer>) in -> {
            List<Integer> out = new ArrayList<>();
            try (BufferAllocator a = new RootAllocator()) {
                List<VectorSchemaRoot> batches = batches(a, NullableColumnsTest::isNull);
                var results = stage.processColumnar(batches.iterator());
                int first = 0;
                while (results.hasNext()) {
                    try (ColumnarBatch c = results.next()) {
                        for (int r = 0; r < c.numRows(); r++) {
                            int i = first + r;
                            boolean isNull = isNull(i);
                            if (c.column(0).isNullAt(r) != isNull || c.column(1).isNullAt(r) != isNull) {
                                throw new AssertionError("row " + i + ": x null " + c.column(0).isNullAt(r) + ", y null "
                                        + c.column(1).isNullAt(r) + "; the input's x is " + (isNull ? "" : "not ") + "null");
                            }
                            // A null's slot reaches the device as 0 (the batch held 7 there): x passed through shows it.
                            float xs = ((Float4Vector) ((ArrowColumnVector) c.column(0)).getValueVector()).getDataBuffer()
                                    .getFloat((long) r * Float.BYTES);
                            float want = isNull ? 0f : TestStages.quadratic(x(i));
                            if (xs != (isNull ? 0f : x(i)) || !isNull && Math.abs(c.column(1).getFloat(r) - want) > 1e-5f * want) {
                                throw new AssertionError("row " + i + ": x " + xs + ", y " + c.column(1).getFloat(r));
                            }
                        }
                        out.add(c.numRows());
                        first += c.numRows();
                    }
                }
                batches.forEach(VectorSchemaRoot::close);
            }
            return out.iterator();
        }, Encoders.INT()).collectAsList();
        assertEquals(List.of(BATCH, BATCH, BATCH, BATCH, ROWS - 4 * BATCH), checked);
    }

    /** The rows 0 to ROWS - 1 in batches of BATCH rows of column x, null where {@code isNull} says (7 in the slot). */
    static List<VectorSchemaRoot> batches(BufferAllocator a, IntPredicate isNull) {
        List<VectorSchemaRoot> batches = new ArrayList<>();
        for (int first = 0; first < ROWS; first += BATCH) {
            int n = Math.min(BATCH, ROWS - first);
            VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(X)), a);
            Float4Vector x = (Float4Vector) root.getVector(0);
            x.allocateNew(n);
            for (int r = 0; r < n; r++) {
                x.set(r, isNull.test(first + r) ? 7f : x(first + r));
                if (isNull.test(first + r)) {
                    x.setNull(r);
                }
            }
            root.setRowCount(n);
            batches.add(root);
        }
        return batches;
    }

    @Test
    void anArrowStagesOwnBitmapIsAndedWithTheInputs() {
        StructType schema = DataTypes.createStructType(List.of(
                DataTypes.createStructField("z", DataTypes.FloatType, true),
                DataTypes.createStructField("x", DataTypes.FloatType, true)));
        List<Row> data = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            data.add(RowFactory.create(i % 5 == 0 ? null : (float) i, isNull(i) ? null : x(i)));
        }
        Dataset<Row> df = LOCAL.spark().createDataFrame(data, schema).coalesce(1);
        // z is carried: it makes no output null by itself, but the stage copies its bitmap into y's.
        GpuPartitionStage<Row, Row> stage = GpuPartitionStage.<Row>stage(new BitmapStage())
                .carry(Field.nullable("z", F32)).input(X).output(Y).batchRows(BATCH).buildRows();
        List<Row> rows = df.mapPartitions(stage, stage.rowEncoder()).collectAsList();
        assertEquals(ROWS, rows.size());
        for (int i = 0; i < ROWS; i++) {
            Row r = rows.get(i);
            assertEquals(i % 5 == 0, r.isNullAt(0), "z passed through with its nulls, row " + i);
            assertEquals(i % 5 == 0 || isNull(i), r.isNullAt(1), "y null where the stage or x says, row " + i);
            if (!r.isNullAt(1)) {
                assertEquals(TestStages.quadratic(x(i)), r.getFloat(1), 1e-5f * TestStages.quadratic(x(i)), "row " + i);
            }
        }
    }

    /** The quadratic kernel on x into y, and z's validity bitmap copied into y's: y is null where z is. */
    static final class BitmapStage implements ArrowStage {
        @Override
        public List<dev.sluice.Kernel> kernels() {
            return List.of(TestStages.QUADRATIC);
        }

        @Override
        public dev.sluice.DeviceFuture<?> enqueue(dev.sluice.reactive.Lane lane, dev.sluice.arrow.DeviceBatch in,
                dev.sluice.arrow.DeviceBatch out) {
            lane.stream().enqueueLaunch(lane.function(TestStages.QUADRATIC),
                    dev.sluice.LaunchConfig.forElements(in.rowCount()), in.column("x").data(), out.column("y").data(),
                    (long) in.rowCount());
            return lane.stream().enqueueCopy(java.util.Objects.requireNonNull(in.column("z").validity()),
                    java.util.Objects.requireNonNull(out.column("y").validity()));
        }
    }

    @Test
    void aNonNullableOutputBesideANullableInputIsRefusedAtBuildNamingTheFields() {
        var e = assertThrows(InvalidArgumentException.class, () -> GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .input(X).output(TestStages.Y).buildRows());
        assertTrue(e.getMessage().contains("output column(s) [y] are not nullable, but input column(s) [x] are"),
                e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .input(X).output(TestStages.Y).buildArrow());
        // A carried column makes no output null: a nullable one beside non-nullable outputs is fine.
        GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC).carry(Field.nullable("id", new ArrowType.Int(64, true)))
                .input(TestStages.X).output(TestStages.Y).buildRows();
    }

    @Test
    void aNullInAnArrowColumnNotDeclaredNullableStillFailsTheTask() {
        GpuArrowStage stage = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .input(TestStages.X).output(TestStages.Y).batchRows(BATCH).buildArrow();
        Exception e = assertThrows(Exception.class, () -> LOCAL.spark().range(0, 1, 1, 1)
                .mapPartitions((MapPartitionsFunction<Long, Long>) in -> {
                    try (BufferAllocator a = new RootAllocator()) {
                        List<VectorSchemaRoot> batches = batches(a, i -> i == 10);
                        try {
                            var results = stage.process(batches.iterator());
                            while (results.hasNext()) {
                                results.next().close();
                            }
                        } finally {
                            batches.forEach(VectorSchemaRoot::close);
                        }
                    }
                    return List.<Long>of().iterator();
                }, Encoders.LONG()).collectAsList());
        String m = e.getMessage();
        assertTrue(m.contains("batch 0 (task"), m);
        assertTrue(m.contains("rows 0 to 63 of the partition, on device cpu:0) has 1 null(s) in column x; the stage's"
                + " input columns have no nulls"), m);
    }
}
