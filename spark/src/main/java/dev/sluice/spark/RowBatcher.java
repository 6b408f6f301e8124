package dev.sluice.spark;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.jspecify.annotations.Nullable;

/**
 * Reads a partition's rows, on the task's thread, into batches of up to {@code batchRows} rows: vectors of the task's
 * pinned allocator, in the form the pipeline carries ({@link SparkTypes#deviceField}), which it uploads from with no
 * host copy. A batch also ends where the next row's strings or binaries would take it past {@code maxBatchBytes}. A
 * null of a nullable column is a null of the vector whose value slot holds 0 (a string's: no bytes); a row whose value
 * is missing or of another type, null in a column that is not nullable, or larger than a whole batch fails the task
 * naming the row, the batch's rows and the device.
 */
final class RowBatcher<T> implements Iterator<TaskRun.InputBatch> {

    private final Iterator<T> rows;
    private final TaskRun run;
    private final Schema schema;
    private final List<Field> inputs;
    private final List<@Nullable ColumnValue<T>> values;
    private final int batchRows;
    private final long maxBatchBytes;
    private final boolean variableWidth;
    private long nextRow;
    /** A row read whose bytes did not fit the batch before: the next batch's first. */
    private @Nullable Object @Nullable [] held;
    /** The values of the row being read, reused from row to row (a held row keeps its own). */
    private @Nullable Object[] scratch;
    /** The string and binary bytes of the batch being read with the next row's, reused from row to row. */
    private final long[] withRow;
    /** The schema {@link #positions} were found in (rows of one schema share the instance). */
    private @Nullable StructType positionsOf;
    /** Per input column, its position in rows of {@link #positionsOf}, or -1. */
    private int[] positions = new int[0];

    RowBatcher(Iterator<T> rows, TaskRun run, List<Field> inputs, List<@Nullable ColumnValue<T>> values, int batchRows,
            long maxBatchBytes) {
        this.rows = rows;
        this.run = run;
        this.inputs = inputs;
        this.schema = new Schema(inputs.stream().map(SparkTypes::deviceField).toList());
        this.values = values;
        this.batchRows = batchRows;
        this.maxBatchBytes = maxBatchBytes;
        this.variableWidth = inputs.stream().anyMatch(f -> SparkTypes.isVariableWidth(f.getType()));
        this.scratch = new Object[inputs.size()];
        this.withRow = new long[inputs.size()];
    }

    @Override
    public boolean hasNext() {
        return held != null || rows.hasNext();
    }

    @Override
    public TaskRun.InputBatch next() {
        if (!hasNext()) {
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
            long[] bytes = new long[vectors.size()];
            FieldVector[] columns = vectors.toArray(FieldVector[]::new); // the row loop reads an array, not a List
            int n = 0;
            while (n < batchRows && hasNext()) {
                Object[] row = held;
                held = null;
                if (row == null) {
                    row = read(rows.next(), first, n, scratch);
                }
                if (variableWidth && !fits(row, n, bytes, first)) {
                    held = row;
                    scratch = new Object[row.length];
                    break;
                }
                for (int c = 0; c < columns.length; c++) {
                    if (row[c] == null) {
                        setNull(columns[c], n);
                    } else {
                        set(columns[c], n, row[c]);
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
     * Whether {@code row} fits the batch of {@code n} rows whose string and binary columns hold {@code bytes} (counted
     * in if it does); a row that fits no batch, alone, fails the task.
     */
    private boolean fits(@Nullable Object[] row, int n, long[] bytes, long first) {
        long[] with = withRow;
        for (int c = 0; c < row.length; c++) {
            with[c] = bytes[c] + (row[c] instanceof byte[] b ? b.length : 0);
        }
        long total = StageSpec.batchBytes(inputs, n + 1, with);
        if (total > maxBatchBytes) {
            if (n == 0) {
                throw bad(first, 0, "row " + first + "'s strings or binaries take a batch of " + total + " bytes on the"
                        + " device (each buffer rounded up to 64), more than the stage's maxBatchBytes " + maxBatchBytes
                        + ": raise maxBatchBytes");
            }
            return false;
        }
        System.arraycopy(with, 0, bytes, 0, bytes.length);
        return true;
    }

    /**
     * The values of {@code row}, the {@code n}th of the batch starting at {@code first}, as the vectors take them, in
     * {@code out}.
     */
    private @Nullable Object[] read(T row, long first, int n, @Nullable Object[] out) {
        for (int c = 0; c < out.length; c++) {
            Object v = value(row, c, first, n);
            out[c] = v == null ? null : convert(inputs.get(c), v, first, n);
        }
        return out;
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
            at = position(r.schema(), c);
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

    /**
     * A row's value of column {@code f} as its vector takes it: a number as it is, a boolean as a Boolean, a date as its
     * days, a timestamp as its microseconds, a string as its UTF-8 bytes, a binary as its bytes.
     */
    private Object convert(Field f, Object value, long first, int n) {
        ArrowType t = f.getType();
        Object v;
        String expected;
        try {
            switch (t) {
                case ArrowType.Bool b -> {
                    v = value instanceof Boolean ? value : null;
                    expected = "a Boolean";
                }
                case ArrowType.Date d -> {
                    v = SparkTypes.days(value);
                    expected = "a java.sql.Date or a java.time.LocalDate";
                }
                case ArrowType.Timestamp ts when ts.getTimezone() != null -> {
                    v = SparkTypes.micros(value);
                    expected = "a java.sql.Timestamp or a java.time.Instant";
                }
                case ArrowType.Timestamp ts -> {
                    v = SparkTypes.localMicros(value);
                    expected = "a java.time.LocalDateTime";
                }
                case ArrowType.Utf8 u -> {
                    v = value instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : null;
                    expected = "a String";
                }
                case ArrowType.Binary b -> {
                    v = value instanceof byte[] ? value : null;
                    expected = "a byte[]";
                }
                default -> {
                    v = value instanceof Number ? value : null;
                    expected = "a number";
                }
            }
        } catch (ArithmeticException e) {
            throw bad(first, n, "row " + (first + n) + "'s value of column " + f.getName() + " (" + value + ") is out of"
                    + " the range of the column's type " + t);
        }
        if (v == null) {
            throw bad(first, n, "row " + (first + n) + "'s value of column " + f.getName() + " is a "
                    + value.getClass().getName() + " (" + value + "), not " + expected + " of the column's type " + t);
        }
        return v;
    }

    /**
     * Where input column {@code c} is in rows of {@code schema}, or -1: looked up once per schema, since a partition's
     * rows share one (a lookup per row, by name, cost more than the rest of the row's reading).
     */
    private int position(StructType schema, int c) {
        if (schema != positionsOf) {
            List<String> names = java.util.Arrays.asList(schema.fieldNames());
            int[] at = new int[inputs.size()];
            for (int i = 0; i < at.length; i++) {
                at[i] = names.indexOf(inputs.get(i).getName());
            }
            positions = at;
            positionsOf = schema;
        }
        return positions[c];
    }

    /** A null at row {@code i}: its value slot 0 (the device work runs on every row), its validity bit clear. */
    private static void setNull(FieldVector v, int i) {
        switch (v) {
            case BaseFixedWidthVector f -> {
                while (f.getValueCapacity() <= i) {
                    f.reAlloc();
                }
                f.getDataBuffer().setZero((long) i * f.getTypeWidth(), f.getTypeWidth());
            }
            case BaseVariableWidthVector f -> {
                // no bytes: the offsets of the rows up to the next value written are filled as empty
            }
            default -> throw new IllegalStateException("a column of type " + v.getField().getType()
                    + ", which SparkTypes.check refuses");
        }
        v.setNull(i);
    }

    /** Sets row {@code i} of {@code v} to a value {@link #convert} made for its column. */
    private static void set(FieldVector v, int i, Object value) {
        switch (v) {
            case Float4Vector f -> f.setSafe(i, ((Number) value).floatValue());
            case Float8Vector f -> f.setSafe(i, ((Number) value).doubleValue());
            case IntVector f -> f.setSafe(i, ((Number) value).intValue());
            case BigIntVector f -> f.setSafe(i, ((Number) value).longValue());
            case SmallIntVector f -> f.setSafe(i, ((Number) value).shortValue());
            case TinyIntVector f -> f.setSafe(i, ((Number) value).byteValue());
            case UInt1Vector f -> f.setSafe(i, (Boolean) value ? 1 : 0);
            case VarCharVector f -> f.setSafe(i, (byte[]) value);
            case VarBinaryVector f -> f.setSafe(i, (byte[]) value);
            default -> throw new IllegalStateException("a column of type " + v.getField().getType()
                    + ", which SparkTypes.check refuses");
        }
    }

    private GpuTaskException bad(long first, int n, String what) {
        return new GpuTaskException("sluice-spark: bad input, " + run.where(first, first + n + 1) + ": " + what);
    }
}
