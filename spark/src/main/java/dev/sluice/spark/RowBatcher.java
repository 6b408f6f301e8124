package dev.sluice.spark;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.jspecify.annotations.Nullable;

/**
 * Reads a partition's rows, on the task's thread, into batches of up to {@code batchRows} rows: vectors of the task's
 * pinned allocator, which the pipeline uploads from with no host copy. A null of a nullable column is a null of the
 * vector whose value slot holds 0; a row whose value is missing, or null in a column that is not nullable, fails the
 * task naming the row, the batch's rows and the device.
 */
final class RowBatcher<T> implements Iterator<TaskRun.InputBatch> {

    private final Iterator<T> rows;
    private final TaskRun run;
    private final Schema schema;
    private final List<Field> inputs;
    private final List<@Nullable ColumnValue<T>> values;
    private final int batchRows;
    private long nextRow;

    RowBatcher(Iterator<T> rows, TaskRun run, List<Field> inputs, List<@Nullable ColumnValue<T>> values, int batchRows) {
        this.rows = rows;
        this.run = run;
        this.inputs = inputs;
        this.schema = new Schema(inputs);
        this.values = values;
        this.batchRows = batchRows;
    }

    @Override
    public boolean hasNext() {
        return rows.hasNext();
    }

    @Override
    public TaskRun.InputBatch next() {
        if (!rows.hasNext()) {
            throw new NoSuchElementException("the partition's rows are exhausted");
        }
        long first = nextRow;
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, run.allocator());
        try {
            List<FieldVector> vectors = root.getFieldVectors();
            for (FieldVector v : vectors) {
                v.setInitialCapacity(batchRows);
                v.allocateNew();
            }
            int n = 0;
            while (n < batchRows && rows.hasNext()) {
                T row = rows.next();
                for (int c = 0; c < vectors.size(); c++) {
                    Object value = value(row, c, first, n);
                    if (value == null) {
                        setNull(vectors.get(c), n);
                    } else {
                        set(vectors.get(c), n, value, first, n);
                    }
                }
                n++;
            }
            root.setRowCount(n);
            nextRow = first + n;
            return new TaskRun.InputBatch(root, first);
        } catch (Throwable e) { // a kill surfaces as Spark's iterators throw it, an InterruptedException included
            root.close();
            throw e;
        }
    }

    /**
     * Column {@code c} of {@code row}, the {@code n}th row of the batch starting at {@code first}; null only where the
     * column is nullable.
     */
    private @Nullable Object value(T row, int c, long first, int n) {
        ColumnValue<T> of = values.get(c);
        String name = inputs.get(c).getName();
        Object v;
        if (of != null) {
            v = of.value(row);
        } else if (row instanceof Row r) {
            v = rowValue(r, name, c, first, n);
        } else {
            throw bad(first, n, "row " + (first + n) + " is a " + (row == null ? "null" : row.getClass().getName())
                    + ", not a Row: give column " + name + "'s value with input(field, value)");
        }
        if (v == null && !inputs.get(c).isNullable()) {
            throw bad(first, n, "row " + (first + n) + " has a null in column " + name + "; the stage's input columns"
                    + " have no nulls (filter them out, or fill them with na().fill(...), before the stage)");
        }
        return v;
    }

    private @Nullable Object rowValue(Row r, String name, int c, long first, int n) {
        int at;
        if (r.schema() != null) {
            String[] names = r.schema().fieldNames();
            at = -1;
            for (int i = 0; i < names.length && at < 0; i++) {
                at = names[i].equals(name) ? i : -1;
            }
            if (at < 0) {
                throw bad(first, n, "row " + (first + n) + " has no column " + name + " (its columns: "
                        + String.join(", ", r.schema().fieldNames()) + ")");
            }
        } else {
            at = c;
            if (c >= r.size()) {
                throw bad(first, n, "row " + (first + n) + " has " + r.size() + " value(s); the stage reads "
                        + inputs.size() + " columns " + inputs.stream().map(Field::getName).toList() + " by position");
            }
        }
        return r.isNullAt(at) ? null : r.get(at);
    }

    /** A null at row {@code i}: its value slot 0 (the device work runs on every row), its validity bit clear. */
    private static void setNull(FieldVector v, int i) {
        switch (v) {
            case Float4Vector f -> f.set(i, 0f);
            case Float8Vector f -> f.set(i, 0d);
            case IntVector f -> f.set(i, 0);
            case BigIntVector f -> f.set(i, 0L);
            case SmallIntVector f -> f.set(i, (short) 0);
            case TinyIntVector f -> f.set(i, (byte) 0);
            default -> throw new IllegalStateException("a column of type " + v.getField().getType()
                    + ", which SparkTypes.check refuses");
        }
        v.setNull(i);
    }

    private void set(FieldVector v, int i, Object value, long first, int n) {
        if (!(value instanceof Number x)) {
            throw bad(first, n, "row " + (first + n) + "'s value of column " + v.getName() + " is a "
                    + value.getClass().getName() + " (" + value + "), not a number of the column's type "
                    + v.getField().getType());
        }
        switch (v) {
            case Float4Vector f -> f.set(i, x.floatValue());
            case Float8Vector f -> f.set(i, x.doubleValue());
            case IntVector f -> f.set(i, x.intValue());
            case BigIntVector f -> f.set(i, x.longValue());
            case SmallIntVector f -> f.set(i, x.shortValue());
            case TinyIntVector f -> f.set(i, x.byteValue());
            default -> throw new IllegalStateException("a column of type " + v.getField().getType()
                    + ", which SparkTypes.check refuses");
        }
    }

    private GpuTaskException bad(long first, int n, String what) {
        return new GpuTaskException("sluice-spark: bad input, " + run.where(first, first + n + 1) + ": " + what);
    }
}
