package dev.sluice.spark;

import java.io.Serial;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.jspecify.annotations.Nullable;

/**
 * The default reading of result rows ({@link GpuPartitionStage.Builder#buildRows()}): the rows of
 * {@link SparkTypes.Rows}, each value as Spark's {@code Encoders.row} takes it. The stage reads a batch through
 * {@link #bind}, which looks at each column once (its vector, whether it has nulls) and then reads the numbers straight
 * from the vectors' buffers: per row, what remains is the values, their array and the {@code Row} that Spark's encoder
 * takes. {@link #read} reads one row as {@link SparkTypes.Rows} does.
 */
final class ResultRows implements RowReader<Row> {

    @Serial
    private static final long serialVersionUID = 1L;

    /** One column's value at a row of the batch it was bound to. */
    @FunctionalInterface
    private interface Column {
        @Nullable Object value(int row);
    }

    /** The reading of other columns than numbers, and of single rows. */
    private final SparkTypes.Rows rows = new SparkTypes.Rows();

    @Override
    public Row read(ColumnarBatch batch, int row) {
        return rows.read(batch, row);
    }

    /** A reader of {@code batch}'s rows (its batch argument is not read), valid while {@code batch} is open. */
    RowReader<Row> bind(ColumnarBatch batch) {
        boolean java8 = rows.java8();
        Column[] columns = new Column[batch.numCols()];
        for (int c = 0; c < columns.length; c++) {
            columns[c] = column(batch.column(c), java8);
        }
        return (ignored, row) -> {
            Object[] values = new Object[columns.length];
            for (int c = 0; c < values.length; c++) {
                values[c] = columns[c].value(row);
            }
            return RowFactory.create(values);
        };
    }

    /**
     * The reading of {@code vector}: of the numeric Arrow vectors, from the data buffer, asking for a null only where the
     * batch has one; of any other, {@link SparkTypes#value}.
     */
    private static Column column(ColumnVector vector, boolean java8) {
        if (vector instanceof ArrowColumnVector a && a.getValueVector() instanceof BaseFixedWidthVector v) {
            ArrowBuf data = v.getDataBuffer();
            Column values = switch (v) {
                case Float4Vector f -> row -> data.getFloat(row * 4L);
                case Float8Vector f -> row -> data.getDouble(row * 8L);
                case IntVector f -> row -> data.getInt(row * 4L);
                case BigIntVector f -> row -> data.getLong(row * 8L);
                case SmallIntVector f -> row -> data.getShort(row * 2L);
                case TinyIntVector f -> row -> data.getByte(row);
                default -> null;
            };
            if (values != null) {
                return v.getNullCount() == 0 ? values : row -> v.isNull(row) ? null : values.value(row);
            }
        }
        return row -> SparkTypes.value(vector, row, java8);
    }
}
