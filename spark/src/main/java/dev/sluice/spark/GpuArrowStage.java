package dev.sluice.spark;

import dev.sluice.InvalidArgumentException;
import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.jspecify.annotations.Nullable;

/**
 * A GPU stage over Arrow record batches, for code that already holds Arrow data inside a Spark task (a
 * {@code mapPartitions} that reads Arrow files, a Data Source V2 reader): each {@link VectorSchemaRoot} runs through
 * the task's lanes on its device as {@link GpuPartitionStage}'s batches do, and its result comes back as a
 * {@code VectorSchemaRoot} of the device's pinned memory ({@link #process}) or as a Spark {@link ColumnarBatch} of
 * {@code ArrowColumnVector}s over that memory, with no host copy ({@link #processColumnar}). Built by
 * {@link GpuPartitionStage.Builder#buildArrow()}; serializable, so a function shipped to the executors may hold it.
 *
 * <p>A batch has exactly the declared input columns, in order, of their types (a timestamp with a time zone in any
 * zone), each holding the batch's row count of values (a closed batch's hold none), nulls only in the columns declared
 * nullable, at most {@code batchRows} rows and {@code maxBatchBytes} bytes;
 * any other fails the task with a {@link GpuTaskException} naming the batch, its rows and the device. The stage takes the batch's buffers (Arrow's transfer, no copy: the batch is left empty, and a reader may load the next batch into it),
 * and frees them once the batch's result has come back. Batches of a {@link dev.sluice.arrow.PinnedAllocationFactory}
 * allocator of the task's device are uploaded straight from their memory; others are copied into the lane's pinned
 * staging first. Nulls as {@link GpuPartitionStage}'s: the device work reads 0 in a null's slot (the stage writes it
 * there), and an output row is null where an input column the device work reads is; {@code ArrowColumnVector.isNullAt}
 * reports them.
 *
 * <p>Ordering, threads, cancellation and errors as {@link GpuPartitionStage}'s. <b>Resources:</b> each result is the
 * caller's to close (closing the {@code ColumnarBatch} closes its vectors); those still open when the task ends are
 * closed then, with the task's lanes and allocator, so a result must not be used after its task.
 */
public final class GpuArrowStage implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    /** What the stage does: its columns, device work and sizes. */
    private final StageSpec spec;

    GpuArrowStage(StageSpec spec) {
        this.spec = spec;
    }

    /**
     * The results of {@code batches}, in their order, lazily: a batch is taken from {@code batches} only when the
     * task's lanes have room for it. Call inside a Spark task.
     *
     * @throws InvalidArgumentException naming {@code batches} if it is null
     * @throws IllegalStateException    if not called inside a Spark task
     */
    public Iterator<VectorSchemaRoot> process(Iterator<? extends VectorSchemaRoot> batches) {
        if (batches == null) {
            throw new InvalidArgumentException("batches", "must not be null");
        }
        TaskContext task = TaskContext.get();
        if (task == null) {
            throw new IllegalStateException("a GpuArrowStage runs inside a Spark task, where TaskContext.get() is set;"
                    + " here it is null");
        }
        TaskRun run = TaskRun.start(task, spec);
        return run.results(new Taken(batches, run));
    }

    /** As {@link #process}, each result as a {@link ColumnarBatch} ({@link ColumnarBatches#of}); no copy. */
    public Iterator<ColumnarBatch> processColumnar(Iterator<? extends VectorSchemaRoot> batches) {
        Iterator<VectorSchemaRoot> results = process(batches);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return results.hasNext();
            }

            @Override
            public ColumnarBatch next() {
                return ColumnarBatches.of(results.next());
            }
        };
    }

    /** The result's columns: the pass-through ones, then the outputs. */
    public List<Field> resultFields() {
        return spec.resultFields();
    }

    /** The input batches, checked and taken over. */
    private final class Taken implements Iterator<TaskRun.InputBatch> {
        private final Iterator<? extends VectorSchemaRoot> batches;
        private final TaskRun run;
        private long nextRow;
        private long index;

        Taken(Iterator<? extends VectorSchemaRoot> batches, TaskRun run) {
            this.batches = batches;
            this.run = run;
        }

        @Override
        public boolean hasNext() {
            return batches.hasNext();
        }

        @Override
        public TaskRun.InputBatch next() {
            if (!batches.hasNext()) {
                throw new NoSuchElementException("the partition's batches are exhausted");
            }
            VectorSchemaRoot b = batches.next();
            long first = nextRow;
            check(b, first);
            List<Field> fields = new ArrayList<>();
            List<FieldVector> vectors = new ArrayList<>();
            for (FieldVector v : b.getFieldVectors()) {
                TransferPair t = v.getTransferPair(v.getAllocator());
                t.transfer();
                // The device work reads a null's slot: 0 (or an empty string), not what the batch left there.
                FieldVector taken = DeviceForm.toDevice((FieldVector) t.getTo());
                fields.add(taken.getField());
                vectors.add(taken);
            }
            int rows = b.getRowCount();
            b.setRowCount(0);
            nextRow += rows;
            index++;
            return new TaskRun.InputBatch(new VectorSchemaRoot(fields, vectors, rows), first);
        }

        private void check(@Nullable VectorSchemaRoot b, long first) {
            if (b == null) {
                throw new GpuTaskException("sluice-spark: bad input, batch " + index + " of " + run.where(first, first + 1)
                        + " is null");
            }
            List<Field> want = spec.inputs();
            List<Field> got = b.getSchema().getFields();
            String names = got.stream().map(f -> f.getName() + " " + f.getType()).toList().toString();
            String wanted = want.stream().map(f -> f.getName() + " " + f.getType()).toList().toString();
            long end = first + Math.max(1, b.getRowCount());
            if (got.size() != want.size()) {
                throw bad(first, end, "has " + got.size() + " column(s) " + names + "; the stage takes " + want.size()
                        + " " + wanted);
            }
            for (int i = 0; i < want.size(); i++) {
                FieldVector v = b.getFieldVectors().get(i);
                if (!want.get(i).getName().equals(got.get(i).getName())
                        || !SparkTypes.sameType(want.get(i).getType(), got.get(i).getType())) {
                    throw bad(first, end, "has columns " + names + "; the stage takes " + wanted);
                }
                // Before any buffer is read: a closed vector's are empty (its value count 0, the batch's rows not).
                if (v.getValueCount() != b.getRowCount()) {
                    throw bad(first, end, "has " + v.getValueCount() + " values in column " + v.getName() + " but "
                            + b.getRowCount() + " rows" + (v.getValueCount() == 0 ? " (a closed vector has 0)" : ""));
                }
                if (!want.get(i).isNullable() && v.getNullCount() > 0) {
                    throw bad(first, end, "has " + v.getNullCount() + " null(s) in column " + got.get(i).getName()
                            + "; the stage's input columns have no nulls");
                }
            }
            if (b.getRowCount() > spec.batchRows) {
                throw bad(first, end, "has " + b.getRowCount() + " rows; the stage takes at most " + spec.batchRows
                        + " (batchRows)");
            }
            long[] valueBytes = new long[want.size()];
            for (int i = 0; i < want.size(); i++) {
                if (SparkTypes.isVariableWidth(want.get(i).getType()) && b.getRowCount() > 0) {
                    valueBytes[i] = b.getFieldVectors().get(i).getOffsetBuffer().getInt(4L * b.getRowCount());
                }
            }
            long bytes = StageSpec.batchBytes(want, b.getRowCount(), valueBytes);
            if (bytes > spec.maxBatchBytes) {
                throw bad(first, end, "takes " + bytes + " bytes on the device (each buffer rounded up to 64), more than"
                        + " the stage's maxBatchBytes " + spec.maxBatchBytes + " (by default what batchRows rows take, "
                        + StageSpec.DEFAULT_VALUE_BYTES + " bytes a string or binary value): raise maxBatchBytes");
            }
        }

        /** The task's failure for the current batch, rows {@code first} to {@code end - 1}: {@code what} it has. */
        private GpuTaskException bad(long first, long end, String what) {
            return new GpuTaskException("sluice-spark: bad input, batch " + index + " (" + run.where(first, end) + ") "
                    + what);
        }
    }
}
