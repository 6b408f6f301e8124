package dev.sluice.spark;

import static dev.sluice.testing.Attacks.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.InvalidArgumentException;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

/**
 * The builders and the calls of {@link GpuPartitionStage}, {@link GpuArrowStage} and {@link ColumnarBatches} that need
 * no running Spark, with bad arguments: each refused at the call by an {@link InvalidArgumentException} naming the
 * argument, its value and the limit, on the driver, before Spark ships the stage.
 */
class GpuPartitionStageArgumentsTest {

    private static final Field NAME = Field.nullable("name", ArrowType.Utf8.INSTANCE);


    private static GpuPartitionStage.Builder<Row> quadratic() {
        return GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC).input(TestStages.X);
    }

    @Test
    void startingWithoutDeviceWorkIsRefused() {
        assertRefused("kernel", () -> GpuPartitionStage.kernel(null), "must not be null");
        assertRefused("stage", () -> GpuPartitionStage.stage(null), "must not be null");
    }

    @Test
    void sizesOutsideTheirLimitsAreRefusedNamingValueAndLimit() {
        GpuPartitionStage.Builder<Row> b = quadratic();
        assertRefused("rows", () -> b.batchRows(0), "value 0", "1 to " + (1 << 28));
        assertRefused("rows", () -> b.batchRows((1 << 28) + 1), "value " + ((1 << 28) + 1));
        assertRefused("rows", () -> b.batchRows(Integer.MIN_VALUE), "value " + Integer.MIN_VALUE);
        assertRefused("bytes", () -> b.maxBatchBytes(63), "value 63", "below 64");
        assertRefused("bytes", () -> b.maxBatchBytes(Long.MIN_VALUE), "value " + Long.MIN_VALUE);
        assertRefused("n", () -> b.lanes(0), "value 0", "1 to 64");
        assertRefused("n", () -> b.lanes(65), "value 65", "1 to 64");
        assertRefused("api", () -> b.api(null), "must name a backend");
        assertRefused("api", () -> b.api(" "), "must name a backend");
        assertRefused("api", () -> b.api("cu da"), "'cu da' is no backend's name");
        assertRefused("api", () -> b.api("2cuda"), "'2cuda'", "starting with a letter");
        assertRefused("api", () -> b.api("cuda;rm"), "'cuda;rm'");
        b.api(" CUDA ").api("level-zero").api("my_backend"); // a name's form is all the driver can check
    }

    @Test
    void columnsOfBadTypesOrTakenNamesAreRefusedNamingTheField() {
        GpuPartitionStage.Builder<Row> b = quadratic();
        assertRefused("field", () -> b.input(null), "must not be null");
        assertRefused("field", () -> b.input(TestStages.X), "already has an input column x");
        assertRefused("value", () -> b.input(TestStages.Y, null), "must not be null");
        assertRefused("field", () -> b.carry(null), "must not be null");
        assertRefused("field", () -> b.output(null), "must not be null");
        assertRefused("field", () -> b.output(NAME), "column name", "fixed-width");
        assertRefused("field", () -> b.input(Field.nullable("d", new ArrowType.Decimal(10, 2, 128))), "Decimal");
        assertRefused("field", () -> b.input(new Field("l", FieldType.nullable(new ArrowType.List()),
                List.of(TestStages.X))), "nested");
        b.output(TestStages.Y);
        assertRefused("field", () -> b.output(TestStages.Y), "already has a column y");
    }

    @Test
    void passingThroughANameTheResultHasIsRefusedNamingTheColumn() {
        assertRefused("column", () -> quadratic().passThrough(null), "must not be null");
        assertRefused("column", () -> quadratic().passThrough("nope"), "nope", "[x]");
        assertRefused("column", () -> quadratic().passThrough("x").passThrough("x"), "x is passed through already");
        // An input named as an output: passed through, the result would have two columns y, refused only on the executor.
        assertRefused("column", () -> quadratic().input(Field.notNullable("y", TestStages.X.getType()))
                .output(TestStages.Y).passThrough("y"), "already has a column y");
        GpuPartitionStage.Builder<Row> b = quadratic().output(TestStages.Y);
        assertRefused("field", () -> b.carry(Field.notNullable("y", TestStages.X.getType())), "already has a column y");
        b.input(Field.notNullable("y", TestStages.X.getType())); // the refused carry left no input y behind
    }

    @Test
    void buildingWithoutColumnsOrReaderIsRefused() {
        assertRefused("input", () -> GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC).output(TestStages.Y)
                .buildRows(), "no input column");
        assertRefused("output", () -> quadratic().buildRows(), "no column");
        assertRefused("output", () -> quadratic().buildArrow(), "no column");
        assertRefused("reader", () -> quadratic().output(TestStages.Y).build(null), "must not be null");
        assertRefused("output", () -> GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC)
                .input(Field.nullable("x", TestStages.X.getType())).output(TestStages.Y).buildRows(), "not nullable");
    }

    @Test
    void callsOutsideATaskNameTheNullArgumentFirst() {
        GpuPartitionStage<Row, Row> stage = quadratic().output(TestStages.Y).buildRows();
        assertRefused("rows", () -> stage.call(null), "must not be null");
        assertThrows(IllegalStateException.class, () -> stage.call(List.<Row>of().iterator()));
        GpuArrowStage arrow = quadratic().output(TestStages.Y).buildArrow();
        assertRefused("batches", () -> arrow.process(null), "must not be null");
        assertRefused("batches", () -> arrow.processColumnar(null), "must not be null");
        Iterator<VectorSchemaRoot> none = List.<VectorSchemaRoot>of().iterator();
        assertThrows(IllegalStateException.class, () -> arrow.process(none));
    }

    /** An Arrow stage whose {@link ArrowStage#kernels()} gives {@code kernels}. */
    private static ArrowStage withKernels(java.util.List<dev.sluice.Kernel> kernels) {
        return new ArrowStage() {
            @Override
            public dev.sluice.DeviceFuture<?> enqueue(dev.sluice.reactive.Lane lane, dev.sluice.arrow.DeviceBatch in,
                    dev.sluice.arrow.DeviceBatch out) {
                return null;
            }

            @Override
            public java.util.List<dev.sluice.Kernel> kernels() {
                return kernels;
            }
        };
    }

    @Test
    void anArrowStageWhoseKernelsAreNullOrHoldANullIsRefusedNamingThem() {
        // What a task's pipeline is built with: a null list failed the task with a NullPointerException.
        for (java.util.List<dev.sluice.Kernel> bad : java.util.Arrays.asList(null,
                java.util.Arrays.asList(TestStages.QUADRATIC, null))) {
            StageSpec spec = new StageSpec(List.of(TestStages.X), List.of(TestStages.Y), List.of(), List.of(), null,
                    withKernels(bad), 1024, 0, 1, null);
            assertRefused("kernels", spec::kernels, "kernels() gave", "List.of() for none");
        }
        assertEquals(List.of(TestStages.QUADRATIC), new StageSpec(List.of(TestStages.X), List.of(TestStages.Y),
                List.of(), List.of(), null, withKernels(List.of(TestStages.QUADRATIC)), 1024, 0, 1, null).kernels());
    }

    @Test
    void columnarBatchesRefuseARootWhoseVectorsDoNotHoldItsRows() {
        assertRefused("root", () -> ColumnarBatches.of(null), "must not be null");
        try (RootAllocator a = new RootAllocator()) {
            VectorSchemaRoot root = VectorSchemaRoot.create(new org.apache.arrow.vector.types.pojo.Schema(
                    List.of(TestStages.X, NAME)), a);
            root.allocateNew();
            ((Float4Vector) root.getVector("x")).setSafe(0, 1f);
            ((VarCharVector) root.getVector("name")).setSafe(0, new byte[] {'a'});
            root.setRowCount(1);
            try (ColumnarBatch ok = ColumnarBatches.of(root)) {
                assertEquals(1f, ok.column(0).getFloat(0));
            }
            // The batch closed the root's vectors: their value count is 0, the root's row count still 1.
            assertRefused("root", () -> ColumnarBatches.of(root), "column x has 0 values but the root has 1 rows");
            root.close();
        }
    }
}
