package dev.sluice.spark;

import dev.sluice.InvalidArgumentException;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Arrow record batches as Spark's {@link ColumnarBatch}: each vector wrapped in an {@link ArrowColumnVector}, which
 * reads the vector's own memory (for a {@link GpuArrowStage}'s result, the pinned memory the device downloaded into):
 * no copy. Closing the batch closes the vectors, and so frees the memory.
 *
 * <p>Where Spark takes a {@code ColumnarBatch} as it is, nothing is copied: a Data Source V2 reader's
 * {@code PartitionReader<ColumnarBatch>}, and Spark's own columnar operators reading it. {@code Dataset.mapPartitions}
 * has no columnar form in Spark's public API: its output goes through an {@code Encoder}, which copies each row into
 * Spark's row format ({@code UnsafeRow}); {@link GpuPartitionStage} reads its results through these vectors for that
 * one copy.
 */
public final class ColumnarBatches {

    private ColumnarBatches() {
    }

    /**
     * {@code root}'s vectors as a {@link ColumnarBatch} of {@code root.getRowCount()} rows; the batch takes over the
     * vectors (closing it closes them, and {@code root} with them).
     *
     * @throws InvalidArgumentException naming {@code root} if it is null, or a vector of it holds fewer values than its
     *                                  row count (a closed vector holds none): reading such a batch would read past the
     *                                  vector's memory
     */
    public static ColumnarBatch of(VectorSchemaRoot root) {
        if (root == null) {
            throw new InvalidArgumentException("root", "must not be null");
        }
        List<FieldVector> vectors = root.getFieldVectors();
        for (FieldVector v : vectors) {
            if (v.getValueCount() < root.getRowCount()) {
                throw new InvalidArgumentException("root", "column " + v.getName() + " has " + v.getValueCount()
                        + " values but the root has " + root.getRowCount() + " rows"
                        + (v.getValueCount() == 0 ? " (a closed vector has 0)" : ""));
            }
        }
        ColumnVector[] columns = new ColumnVector[vectors.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = new ArrowColumnVector(vectors.get(i));
        }
        return new ColumnarBatch(columns, root.getRowCount());
    }
}
