package dev.sluice.spark;

import java.io.Serializable;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Makes the output object of one result row: reads row {@code row} of {@code batch}, whose columns are
 * {@code ArrowColumnVector}s over the result's pinned memory (the pass-through columns, then the outputs, as the stage
 * declares them). A column reads as Spark's type of it: {@code getBoolean} for a boolean, {@code getInt} (days since
 * 1970-01-01) for a date, {@code getLong} (microseconds since 1970-01-01T00:00 UTC) for a timestamp,
 * {@code getUTF8String} and {@code getBinary} for a string and a binary. Spark ships it with the job, so it is {@link Serializable} (a lambda assigned to this type is). The
 * batch is valid only during the call: copy out what the object keeps.
 *
 * @param <R> the output type
 */
@FunctionalInterface
public interface RowReader<R> extends Serializable {

    /** The object of row {@code row} (0 to {@code batch.numRows() - 1}) of {@code batch}. */
    R read(ColumnarBatch batch, int row);
}
