package dev.sluice.spark;

import dev.sluice.InvalidArgumentException;
import java.io.Serial;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.regex.Pattern;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.jspecify.annotations.Nullable;

/**
 * A GPU stage for {@code Dataset.mapPartitions}: the partition's rows (or typed objects) are read into batches of pinned
 * Arrow vectors, which run through the task's lanes on its device (an {@link dev.sluice.arrow.ArrowPipeline}: upload,
 * kernel, download, several batches overlapping), and the results come back as rows (or typed objects) while Spark
 * consumes the partition.
 *
 * <pre>{@code
 * GpuPartitionStage<Row, Row> square = GpuPartitionStage.<Row>kernel(() -> SQUARE)  // (x, y, long n)
 *         .input(Field.notNullable("x", new ArrowType.FloatingPoint(SINGLE)))      // the row's column x
 *         .carry(Field.notNullable("id", new ArrowType.Int(64, true)))            // into the result, not the kernel
 *         .output(Field.notNullable("y", new ArrowType.FloatingPoint(SINGLE)))
 *         .buildRows();
 * Dataset<Row> out = df.mapPartitions(square, square.rowEncoder());              // columns id, y
 * }</pre>
 *
 * <p><b>Columns</b>, declared as Arrow fields, and what the device sees of each: signed integers of 8 to 64 bits and
 * single or double floats as they are; {@code Bool} (Spark's {@code BooleanType}) as one byte a row, 0 or 1 (a kernel's
 * {@code BOOL} pointer; Arrow's bits are unpacked on the host on the way in and packed on the way out);
 * {@code Date(DAY)} as int32 days since 1970-01-01; {@code Timestamp(MICROSECOND, zone)} ({@code TimestampType}; without
 * a zone {@code TimestampNTZType}) as int64 microseconds since 1970-01-01T00:00 (UTC); {@code Utf8} and {@code Binary}
 * (strings, binaries) as Arrow's int32 offsets ({@code n + 1}) and bytes, as inputs and carried columns only (an output
 * is fixed-width). Other types (decimals, nested types, other units) are refused by {@link Builder#input(Field)} and the
 * other column methods, naming the column, its type and the types taken.
 *
 * <p>A kernel stage launches its kernel once per batch with a pointer per input column (less the carried ones; two for
 * a string or binary: its offsets, then its bytes), one per output
 * column (in the order declared) and the batch's row count as a {@code long}, over {@code LaunchConfig.forElements(rows)}; an
 * {@link ArrowStage} enqueues any device work. Each lane replays its batch's device work as a graph where a batch has
 * the shape of the one before.
 *
 * <p><b>Nulls</b>, as SQL has them: an input column declared nullable ({@code Field.nullable}) may hold nulls; the
 * device work still runs on every row, reading 0 of the column's type in a null's slot (no bytes in a string's), and
 * each output row is null
 * where any input column the device work reads (the inputs less the carried ones) is null in that row, computed on the
 * host from the input's validity bitmaps once the result is back. A kernel writes no bitmap: an output's validity is
 * that AND alone; an {@link ArrowStage}'s bitmap of a nullable output is ANDed with it. Outputs are then nullable:
 * {@link Builder#buildRows()} and the other builds refuse a non-nullable output beside a nullable input. A carried
 * column passes its nulls through and makes no output null. A null in a column not declared nullable fails the task.
 *
 * <ul>
 * <li><b>Ordering:</b> results come in the order of the rows, one per input row (pass-through columns first, then the
 * outputs).
 * <li><b>Threads:</b> the partition's rows are read, and the results turned into objects, on the task's thread; the
 * device work is enqueued there or on the device's completion thread. At most {@code lanes + 1} batches are read ahead
 * of the results consumed.
 * <li><b>Device:</b> the task's {@code gpu} resource ({@code spark.task.resource.gpu.amount}), read as the backend's
 * device ordinal; without one, the executor's devices in turn by partition. The context is the executor's
 * ({@link SluiceSparkPlugin}), shared by its tasks.
 * <li><b>Cancellation:</b> a killed task (Spark's job or stage cancellation, speculation's loser) stops within
 * {@value TaskRun#POLL_MILLIS} ms of waiting; batches on the device finish there and are dropped. Nothing of other tasks
 * is touched: each task has its own lanes, staging and allocator while it runs.
 * <li><b>Resources:</b> a task completion listener releases the task's pinned batches and results and its allocator,
 * however the task ends. A task whose results all came back leaves its lanes (streams, device and pinned buffers, built
 * graphs, loaded kernels) to the stage's next task on the device, so that a stage's tasks do not each build them
 * again; the first task of another stage on the device, or the executor's end, releases them. A task that failed, was
 * killed or left results unread releases its lanes after their device work. The device context stays the executor's.
 * <li><b>Errors:</b> a {@link GpuTaskException} fails the task, naming the task, the rows of the partition and the
 * device: a row without a column, with a value of another type, with a null in a column not declared nullable, or
 * whose strings and binaries alone pass {@code maxBatchBytes} (the row's index), device work that failed (the batches in flight), a device with a sticky fault ({@link GpuTaskException#isDeviceFault()}). Spark then retries the
 * task ({@code spark.task.maxFailures}), on another executor where {@code spark.excludeOnFailure.enabled} excludes
 * this one.
 * </ul>
 *
 * @param <T> the input row type
 * @param <R> the output row type
 */
public final class GpuPartitionStage<T, R> implements MapPartitionsFunction<T, R> {

    @Serial
    private static final long serialVersionUID = 1L;

    /** What the stage does: its columns, device work and sizes. */
    private final StageSpec spec;
    /** Per input column, how a row gives its value; null where a {@link Row}'s column of that name is read. */
    private final List<@Nullable ColumnValue<T>> values;
    /** Makes each output object from a result row. */
    private final RowReader<R> reader;

    private GpuPartitionStage(StageSpec spec, List<@Nullable ColumnValue<T>> values, RowReader<R> reader) {
        this.spec = spec;
        this.values = values;
        this.reader = reader;
    }

    /**
     * Starts describing a stage that launches {@code kernel}'s kernel per batch: {@code (inputs..., outputs..., long n)}.
     *
     * @param <T> the input row type
     * @throws InvalidArgumentException naming {@code kernel} if it is null
     */
    public static <T> Builder<T> kernel(KernelSource kernel) {
        if (kernel == null) {
            throw new InvalidArgumentException("kernel", "must not be null");
        }
        return new Builder<>(kernel, null);
    }

    /**
     * Starts describing a stage whose device work per batch is {@code stage}.
     *
     * @param <T> the input row type
     * @throws InvalidArgumentException naming {@code stage} if it is null
     */
    public static <T> Builder<T> stage(ArrowStage stage) {
        if (stage == null) {
            throw new InvalidArgumentException("stage", "must not be null");
        }
        return new Builder<>(null, stage);
    }

    /**
     * Runs the partition {@code rows} through the device, in a Spark task; called by Spark's {@code mapPartitions}.
     * Returns at once: the rows are read, and the results made, as the returned iterator is consumed.
     *
     * @throws InvalidArgumentException naming {@code rows} if it is null
     * @throws IllegalStateException    if not called inside a Spark task
     */
    @Override
    public Iterator<R> call(Iterator<T> rows) {
        if (rows == null) {
            throw new InvalidArgumentException("rows", "must not be null");
        }
        TaskContext task = TaskContext.get();
        if (task == null) {
            throw new IllegalStateException("a GpuPartitionStage runs inside a Spark task (Dataset.mapPartitions), where"
                    + " TaskContext.get() is set; here it is null");
        }
        TaskRun run = TaskRun.start(task, spec);
        RowBatcher<T> batches = new RowBatcher<>(rows, run, spec.inputs(), values, spec.batchRows,
                spec.maxBatchBytes);
        return new Rows<>(run.results(batches), reader);
    }

    /** The result's columns as Spark's schema: the pass-through columns, then the outputs. */
    public StructType outputSchema() {
        return SparkTypes.schema(spec.resultFields());
    }

    /** An encoder of {@link Row}s of {@link #outputSchema()}, for {@code mapPartitions(stage, stage.rowEncoder())}. */
    public Encoder<Row> rowEncoder() {
        return Encoders.row(outputSchema());
    }

    /** The most rows in one batch. */
    public int batchRows() {
        return spec.batchRows;
    }

    /** The lanes of each task. */
    public int lanes() {
        return spec.lanes;
    }

    @Override
    public String toString() {
        return "GpuPartitionStage[" + spec + "]";
    }

    /** Results turned into objects, row by row; each result batch is closed once read. */
    private static final class Rows<R> implements Iterator<R> {
        private final Iterator<VectorSchemaRoot> results;
        private final RowReader<R> reader;
        private @Nullable ColumnarBatch batch;
        private int row;

        Rows(Iterator<VectorSchemaRoot> results, RowReader<R> reader) {
            this.results = results;
            this.reader = reader;
        }

        @Override
        public boolean hasNext() {
            while (batch == null || row >= batch.numRows()) {
                if (batch != null) {
                    batch.close();
                    batch = null;
                }
                if (!results.hasNext()) {
                    return false;
                }
                batch = ColumnarBatches.of(results.next());
                row = 0;
            }
            return true;
        }

        @Override
        public R next() {
            if (!hasNext()) {
                throw new NoSuchElementException("the partition's results are exhausted");
            }
            return reader.read(java.util.Objects.requireNonNull(batch), row++);
        }
    }

    /**
     * Describes a {@link GpuPartitionStage} or a {@link GpuArrowStage}. Not thread-safe.
     *
     * @param <T> the input row type
     */
    public static final class Builder<T> {
        /** The default {@link #batchRows}. */
        public static final int DEFAULT_BATCH_ROWS = 1 << 16;
        /** The default {@link #lanes}. */
        public static final int DEFAULT_LANES = 3;
        /** The form of a backend's name (as {@code dev.sluice.spi.Backend#name()} says), lower-cased. */
        private static final Pattern BACKEND_NAME = Pattern.compile("[a-z][a-z0-9_-]*");

        private final @Nullable KernelSource kernel;
        private final @Nullable ArrowStage stage;
        private final List<Field> inputs = new ArrayList<>();
        private final List<@Nullable ColumnValue<T>> values = new ArrayList<>();
        private final List<String> passThrough = new ArrayList<>();
        private final List<String> carried = new ArrayList<>();
        private final List<Field> outputs = new ArrayList<>();
        private int batchRows = DEFAULT_BATCH_ROWS;
        private long maxBatchBytes;
        private int lanes = DEFAULT_LANES;
        private @Nullable String api;

        private Builder(@Nullable KernelSource kernel, @Nullable ArrowStage stage) {
            this.kernel = kernel;
            this.stage = stage;
        }

        /**
         * An input column, read from each {@link Row} by its name (by position for a row without a schema).
         *
         * @throws InvalidArgumentException naming {@code field} if it is null, of a type the stages do not take, or
         *                                  its name is taken
         */
        public Builder<T> input(Field field) {
            return input(field, null, "field");
        }

        /**
         * An input column whose value for each row {@code value} gives (a typed {@code Dataset}'s objects).
         *
         * @throws InvalidArgumentException naming {@code field} as {@link #input(Field)}, or {@code value} if null
         */
        public Builder<T> input(Field field, ColumnValue<T> value) {
            if (value == null) {
                throw new InvalidArgumentException("value", "must not be null");
            }
            return input(field, value, "field");
        }

        private Builder<T> input(@Nullable Field field, @Nullable ColumnValue<T> value, String argument) {
            Field f = SparkTypes.check(argument, field, false);
            for (Field e : inputs) {
                if (e.getName().equals(f.getName())) {
                    throw new InvalidArgumentException(argument, "the stage already has an input column " + f.getName());
                }
            }
            inputs.add(f);
            values.add(value);
            return this;
        }

        /**
         * An input column copied into the result, on the device, before the device work runs.
         *
         * @throws InvalidArgumentException naming {@code column} if it is null, names no input column declared
         *                                  before, one passed through already, or an output column (the result would
         *                                  have two columns of that name)
         */
        public Builder<T> passThrough(String column) {
            if (column == null) {
                throw new InvalidArgumentException("column", "must not be null");
            }
            if (inputs.stream().noneMatch(f -> f.getName().equals(column))) {
                throw new InvalidArgumentException("column", column + " is no input column declared before; the inputs: "
                        + inputs.stream().map(Field::getName).toList());
            }
            if (passThrough.contains(column)) {
                throw new InvalidArgumentException("column", column + " is passed through already");
            }
            if (isOutput(column)) {
                throw new InvalidArgumentException("column", "the result already has a column " + column
                        + " (an output): a pass-through column keeps its input's name");
            }
            passThrough.add(column);
            return this;
        }

        /**
         * A column carried through the device into the result (a key, an id) and not given to the kernel: an
         * {@link #input(Field)} that is {@linkplain #passThrough passed through}, which a kernel stage leaves out of
         * its launch's arguments.
         *
         * @throws InvalidArgumentException naming {@code field} as {@link #input(Field)}, or if the result already has
         *                                  an output column of its name; the builder is unchanged then
         */
        public Builder<T> carry(Field field) {
            return carry(field, null, "field");
        }

        /**
         * A carried column ({@link #carry(Field)}) whose value for each row {@code value} gives.
         *
         * @throws InvalidArgumentException naming {@code field} as {@link #carry(Field)}, or {@code value} if null
         */
        public Builder<T> carry(Field field, ColumnValue<T> value) {
            if (value == null) {
                throw new InvalidArgumentException("value", "must not be null");
            }
            return carry(field, value, "field");
        }

        private Builder<T> carry(@Nullable Field field, @Nullable ColumnValue<T> value, String argument) {
            Field f = SparkTypes.check(argument, field, false);
            // Checked before the input is added: a refused carry leaves the builder as it was.
            if (isOutput(f.getName())) {
                throw new InvalidArgumentException(argument, "the result already has a column " + f.getName()
                        + " (an output): a carried column keeps its name in the result");
            }
            input(f, value, argument);
            passThrough(f.getName());
            carried.add(f.getName());
            return this;
        }

        /**
         * A column of the result that the device work writes: without nulls where the field is not nullable; where it
         * is, null in the rows where an input column the device work reads is null (see the class comment). Must be
         * nullable if such an input column is ({@code build} refuses it otherwise). Fixed-width: a number, a boolean, a
         * date or a timestamp.
         *
         * @param field the column: its name, Arrow type and nullability
         * @return this builder
         * @throws InvalidArgumentException naming {@code field} if it is null, of a type the stages do not take or a
         *                                  string or binary, or its name is taken by another output or a pass-through
         *                                  column
         */
        public Builder<T> output(Field field) {
            Field f = SparkTypes.check("field", field, true);
            if (isOutput(f.getName()) || passThrough.contains(f.getName())) {
                throw new InvalidArgumentException("field", "the result already has a column " + f.getName());
            }
            outputs.add(f);
            return this;
        }

        /** Whether an output column is named {@code name}. */
        private boolean isOutput(String name) {
            return outputs.stream().anyMatch(o -> o.getName().equals(name));
        }

        /**
         * The most rows in one batch (default {@value #DEFAULT_BATCH_ROWS}): each launch's work, and with the column
         * widths the size of each lane's device and pinned buffers.
         *
         * @throws InvalidArgumentException naming {@code rows} if it is not 1 to 2^28
         */
        public Builder<T> batchRows(int rows) {
            if (rows < 1 || rows > (1 << 28)) {
                throw new InvalidArgumentException("rows", "value " + rows + " is outside 1 to " + (1 << 28));
            }
            this.batchRows = rows;
            return this;
        }

        /**
         * The most bytes of a batch's input column buffers on the device (each rounded up to 64 bytes); by default,
         * what {@link #batchRows} rows of the declared inputs take, with {@value StageSpec#DEFAULT_VALUE_BYTES} bytes a
         * string or binary value. A row stage ends a batch early where the next row's strings or binaries would pass it
         * (a row that passes it alone fails the task); an Arrow batch that passes it fails the task.
         *
         * @param bytes the most bytes, at least 64
         * @return this builder
         * @throws InvalidArgumentException naming {@code bytes} if it is below 64
         */
        public Builder<T> maxBatchBytes(long bytes) {
            if (bytes < 64) {
                throw new InvalidArgumentException("bytes", "value " + bytes + " is below 64");
            }
            this.maxBatchBytes = bytes;
            return this;
        }

        /**
         * Lanes per task (default {@value #DEFAULT_LANES}): streams with their own device buffers, so that one batch's
         * upload, another's kernels and a third's download overlap.
         *
         * @throws InvalidArgumentException naming {@code n} if it is not 1 to 64
         */
        public Builder<T> lanes(int n) {
            if (n < 1 || n > 64) {
                throw new InvalidArgumentException("n", "value " + n + " is outside 1 to 64");
            }
            this.lanes = n;
            return this;
        }

        /**
         * The backend ({@code cuda}, {@code hip}, {@code cpu}); by default the plugin's ({@value SluiceSparkPlugin#API}),
         * else the one {@link dev.sluice.DeviceContext#open()} takes.
         *
         * <p>The name is checked here only for its form (a backend's name is lower-case letters, digits, {@code -} and
         * {@code _}, starting with a letter; any case is taken): whether the executors have that backend is known only
         * there, since the driver may lack the backends' jars, and a task on an executor without it fails naming it.
         *
         * @throws InvalidArgumentException naming {@code api} if it is null or blank, or no backend could have its name
         */
        public Builder<T> api(String api) {
            if (api == null || api.isBlank()) {
                throw new InvalidArgumentException("api", "must name a backend");
            }
            String name = ExecutorDevices.backendName(api);
            if (!BACKEND_NAME.matcher(name).matches()) {
                throw new InvalidArgumentException("api", "'" + api + "' is no backend's name: a backend is named by"
                        + " letters, digits, '-' and '_', starting with a letter (cuda, hip, cpu)");
            }
            this.api = name;
            return this;
        }

        private StageSpec spec() {
            if (inputs.isEmpty()) {
                throw new InvalidArgumentException("input", "the stage has no input column: call input(...)");
            }
            if (outputs.isEmpty() && passThrough.isEmpty()) {
                throw new InvalidArgumentException("output", "the result has no column: call output(...)");
            }
            List<String> nullableIn = inputs.stream().filter(f -> f.isNullable() && !carried.contains(f.getName()))
                    .map(Field::getName).toList();
            List<String> notNullableOut = outputs.stream().filter(f -> !f.isNullable()).map(Field::getName).toList();
            if (!nullableIn.isEmpty() && !notNullableOut.isEmpty()) {
                throw new InvalidArgumentException("output", "output column(s) " + notNullableOut + " are not nullable,"
                        + " but input column(s) " + nullableIn + " are: a null in an input makes the row's outputs null;"
                        + " declare the outputs with Field.nullable(...), or the inputs not nullable");
            }
            return new StageSpec(inputs, outputs, passThrough, carried, kernel, stage, batchRows, maxBatchBytes, lanes, api);
        }

        /**
         * The stage, whose output objects {@code reader} makes from the result's rows.
         *
         * @param <R> the output type
         * @throws InvalidArgumentException naming {@code reader} if null, or {@code input} or {@code output} if none
         *                                  was declared, or {@code output} if an output column is not nullable while
         *                                  an input column the device work reads is
         */
        public <R> GpuPartitionStage<T, R> build(RowReader<R> reader) {
            if (reader == null) {
                throw new InvalidArgumentException("reader", "must not be null");
            }
            return new GpuPartitionStage<>(spec(), new ArrayList<>(values), reader); // nulls: columns read by name
        }

        /**
         * The stage, whose output objects are {@link Row}s of its {@link GpuPartitionStage#outputSchema()}.
         *
         * @throws InvalidArgumentException as {@link #build(RowReader)}
         */
        public GpuPartitionStage<T, Row> buildRows() {
            return build(new SparkTypes.Rows());
        }

        /**
         * The stage over Arrow record batches of the declared input columns (the values of {@link #input(Field,
         * ColumnValue)} are not used).
         *
         * @throws InvalidArgumentException naming {@code input} or {@code output} if none was declared, or
         *                                  {@code output} if an output column is not nullable while an input column
         *                                  the device work reads is
         */
        public GpuArrowStage buildArrow() {
            return new GpuArrowStage(spec());
        }
    }
}
