package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Kernels;
import java.util.Iterator;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

/**
 * docs/spark.md's snippets that build stages on the driver, written out as a new user would from the page, the
 * defaults it states and the refusals it quotes (the stages run in GpuPartitionStageTest and the classes beside it).
 */
class SparkSnippetsTest {

    static final Kernel QUADRATIC = Kernels.elementwise("quadratic")          // (x, y, long n), written once
            .input(KernelParam.pointer("x", DType.F32)).output(KernelParam.pointer("y", DType.F32))
            .body("y = x * x + 0.5f * x + 1.0f").build();

    static final Kernel CHARS = Kernel.named("chars")                   // (offsets, bytes, count, long n)
            .param(KernelParam.pointer("offsets", DType.I32)).param(KernelParam.pointer("bytes", DType.U8))
            .param(KernelParam.pointer("count", DType.I32)).param(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                extern "C" __global__ void chars(const int* offsets, const unsigned char* bytes, int* count, long long n) {
                    long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                    if (i >= n) return;
                    int c = 0;
                    for (int k = offsets[i]; k < offsets[i + 1]; k++) c += (bytes[k] & 0xC0) != 0x80;
                    count[i] = c;
                }""")
            .java(t -> { /* the same, for the CPU simulator */ }).build();

    @Test
    void stagesBuild() {
        ArrowType f32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
        GpuPartitionStage<Row, Row> quadratic = GpuPartitionStage.<Row>kernel(() -> QUADRATIC)
                .carry(Field.notNullable("id", new ArrowType.Int(64, true)))     // into the result, not given to the kernel
                .input(Field.notNullable("x", f32))                              // the row's column x: the kernel's x
                .output(Field.notNullable("y", f32))                             // the kernel's y
                .batchRows(4096)                                                 // rows per batch (default 65536)
                .lanes(3)                                                        // lanes per task (default 3)
                .buildRows();
        Function<Dataset<Row>, Dataset<Row>> results0 = df -> df.mapPartitions(quadratic, quadratic.rowEncoder()); // columns id, y
        assertNotNull(results0);
        GpuPartitionStage<Float, Float> f = GpuPartitionStage.<Float>kernel(() -> QUADRATIC)
                .input(Field.notNullable("x", f32), x -> x)                      // ColumnValue<Float>
                .output(Field.notNullable("y", f32))
                .build((batch, row) -> batch.column(0).getFloat(row));           // RowReader<Float> over ColumnarBatch
        Function<Dataset<Float>, Dataset<Float>> ys = xs -> xs.mapPartitions(f, Encoders.FLOAT());
        assertNotNull(ys);
        GpuPartitionStage<Row, Row> q = GpuPartitionStage.<Row>kernel(() -> QUADRATIC)
                .carry(Field.notNullable("id", new ArrowType.Int(64, true))).input(Field.nullable("x", f32))
                .output(Field.nullable("y", f32))                                  // y is null where x is
                .buildRows();
        GpuPartitionStage<Row, Row> chars = GpuPartitionStage.<Row>kernel(() -> CHARS)
                .input(Field.nullable("name", ArrowType.Utf8.INSTANCE))
                .output(Field.nullable("count", new ArrowType.Int(32, true)))  // null where name is
                .buildRows();
        GpuArrowStage stage = GpuPartitionStage.<Row>kernel(() -> QUADRATIC)
                .input(Field.notNullable("x", f32)).output(Field.notNullable("y", f32)).batchRows(65536)
                .buildArrow();
        // inside a task (a mapPartitions, a Data Source V2 reader): the page's two calls, as methods a task would call
        Function<Iterator<VectorSchemaRoot>, Iterator<VectorSchemaRoot>> results = stage::process;   // VectorSchemaRoot in, out
        Function<Iterator<VectorSchemaRoot>, Iterator<ColumnarBatch>> columnar = stage::processColumnar;
        Function<VectorSchemaRoot, ColumnarBatch> wrap = ColumnarBatches::of;
        assertNotNull(results);
        assertNotNull(columnar);
        assertNotNull(wrap);
        assertNotNull(q);
        assertNotNull(chars);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> GpuPartitionStage.<Row>kernel(() -> QUADRATIC).input(Field.nullable("x", f32))
                        .output(Field.notNullable("y", f32)).buildRows());
        assertTrue(e.getMessage().startsWith("output: output column(s) [y] are not nullable, but input column(s) [x] are: "),
                e.getMessage());
        InvalidArgumentException d = assertThrows(InvalidArgumentException.class,
                () -> GpuPartitionStage.<Row>kernel(() -> QUADRATIC)
                        .input(Field.notNullable("price", new ArrowType.Decimal(10, 2, 128))));
        assertTrue(d.getMessage().startsWith("field: column price is of type Decimal(10, 2, 128) (Spark's DecimalType(10,2)), which the stages do not support"),
                d.getMessage());
        assertEquals(65536, GpuPartitionStage.Builder.DEFAULT_BATCH_ROWS);
        assertEquals(3, GpuPartitionStage.Builder.DEFAULT_LANES);
    }
}
