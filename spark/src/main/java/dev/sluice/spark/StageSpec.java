package dev.sluice.spark;

import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.DeviceBuffer;
import dev.sluice.arrow.DeviceColumn;
import java.io.IOException;
import java.io.Serial;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.jspecify.annotations.Nullable;

/**
 * What a GPU stage does, as Spark ships it to the executors: the input columns, the result's columns (outputs the device
 * writes and input columns passed through, some of them only carried: uploaded and copied, never given to the kernel), the device work (a kernel {@code (inputs..., outputs..., long n)} or an
 * {@link ArrowStage}), and the sizes. Arrow's {@link Field} is not serializable: the columns travel as Arrow's JSON of a
 * schema.
 */
final class StageSpec implements Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Bytes a column buffer is rounded up to in a batch (Arrow's alignment, as {@code ArrowPipeline} lays them out). */
    private static final long ALIGN = 64;
    /** Bytes a string or binary value is given on average by the default {@link #maxBatchBytes}. */
    static final int DEFAULT_VALUE_BYTES = 32;

    /**
     * The stage's identity, the same in every task that runs it (made where the stage was built, and shipped with it):
     * a task's lanes are kept for the next task of the same stage ({@link StagePipelines}).
     */
    final String id = java.util.UUID.randomUUID().toString();
    private final String inputJson;
    private final String outputJson;
    final List<String> passThrough;
    /** Input columns carried to the result only: the kernel is not given them. */
    final List<String> carried;
    final @Nullable KernelSource kernel;
    final @Nullable ArrowStage stage;
    final int batchRows;
    final long maxBatchBytes;
    final int lanes;
    final @Nullable String api;

    private transient @Nullable List<Field> inputs;
    private transient @Nullable List<Field> outputs;
    private transient @Nullable List<Field> deviceOutputs;

    StageSpec(List<Field> inputs, List<Field> outputs, List<String> passThrough, List<String> carried,
            @Nullable KernelSource kernel,
            @Nullable ArrowStage stage, int batchRows, long maxBatchBytes, int lanes, @Nullable String api) {
        this.inputJson = new Schema(inputs).toJson();
        this.outputJson = new Schema(outputs).toJson();
        this.passThrough = List.copyOf(passThrough);
        this.carried = List.copyOf(carried);
        this.kernel = kernel;
        this.stage = stage;
        this.batchRows = batchRows;
        this.maxBatchBytes = maxBatchBytes > 0 ? maxBatchBytes : defaultBatchBytes(inputs, batchRows);
        this.lanes = lanes;
        this.api = api;
    }

    @Override
    public String toString() {
        return (stage != null ? "stage " + stage : "kernel stage") + ", inputs " + inputs().stream().map(Field::getName)
                .toList() + (carried.isEmpty() ? "" : " (carried " + carried + ")") + ", result " + resultFields()
                .stream().map(Field::getName).toList() + ", " + batchRows + " rows a batch, " + lanes + " lanes a task"
                + (api == null ? "" : ", backend " + api);
    }

    /** The input columns, in order. */
    List<Field> inputs() {
        List<Field> f = inputs;
        if (f == null) {
            f = parse(inputJson);
            inputs = f;
        }
        return f;
    }

    /** The columns the device writes, in order (the result has the pass-through columns first, then these). */
    List<Field> outputs() {
        List<Field> f = outputs;
        if (f == null) {
            f = parse(outputJson);
            outputs = f;
        }
        return f;
    }

    /** The output columns as the pipeline carries them ({@link SparkTypes#deviceField}). */
    List<Field> deviceOutputs() {
        List<Field> f = deviceOutputs;
        if (f == null) {
            f = outputs().stream().map(SparkTypes::deviceField).toList();
            deviceOutputs = f;
        }
        return f;
    }

    /** The result's columns: the pass-through ones (as the input declares them), then the outputs. */
    List<Field> resultFields() {
        List<Field> all = new ArrayList<>();
        for (String p : passThrough) {
            all.add(inputs().stream().filter(f -> f.getName().equals(p)).findFirst().orElseThrow());
        }
        all.addAll(outputs());
        return all;
    }

    private static List<Field> parse(String json) {
        try {
            return List.copyOf(Schema.fromJSON(json).getFields());
        } catch (IOException e) {
            throw new UncheckedIOException("a schema this stage wrote: " + json, e);
        }
    }

    /**
     * Bytes of a batch of {@code rows} rows of {@code inputs}, each buffer rounded up as laid out, with
     * {@value #DEFAULT_VALUE_BYTES} bytes a string or binary value.
     */
    static long defaultBatchBytes(List<Field> inputs, int rows) {
        long[] bytes = new long[inputs.size()];
        java.util.Arrays.fill(bytes, (long) rows * DEFAULT_VALUE_BYTES);
        return ALIGN + batchBytes(inputs, rows, bytes);
    }

    /**
     * Bytes the pipeline lays out for a batch of {@code rows} rows of {@code inputs} (at least {@value #ALIGN}): per
     * column its bitmap, then its values, or for a string or binary column its offsets and its {@code valueBytes[c]}
     * bytes, each rounded up to {@value #ALIGN}.
     */
    static long batchBytes(List<Field> inputs, int rows, long[] valueBytes) {
        long bytes = 0;
        for (int c = 0; c < inputs.size(); c++) {
            ArrowType t = inputs.get(c).getType();
            bytes += align((rows + 7L) / 8);
            bytes += SparkTypes.isVariableWidth(t) ? align((rows + 1L) * Integer.BYTES) + align(valueBytes[c])
                    : align((long) rows * SparkTypes.deviceWidth(t));
        }
        return Math.max(bytes, ALIGN);
    }

    private static long align(long n) {
        return (n + ALIGN - 1) / ALIGN * ALIGN;
    }

    /** The input columns the kernel reads: the inputs less those only carried. */
    List<Field> kernelInputs() {
        return inputs().stream().filter(f -> !carried.contains(f.getName())).toList();
    }

    /**
     * The kernels the device work launches, made on the executor.
     *
     * @throws InvalidArgumentException naming {@code kernels} where the {@link ArrowStage}'s are null or hold a null
     */
    List<Kernel> kernels() {
        if (stage != null) {
            List<Kernel> ks = stage.kernels();
            // Checked here, so that the task's failure says what the stage gave rather than where it was used; by a
            // stream, as List.of's contains(null) throws.
            if (ks == null || ks.stream().anyMatch(java.util.Objects::isNull)) {
                throw new InvalidArgumentException("kernels", "the stage's kernels() gave " + (ks == null ? "null"
                        : ks) + "; List.of() for none");
            }
            return ks;
        }
        return List.of(kernel());
    }

    private Kernel kernel() {
        Kernel k = java.util.Objects.requireNonNull(kernel).kernel();
        if (k == null) {
            throw new InvalidArgumentException("kernel", "the kernel source gave null");
        }
        return k;
    }

    /**
     * The device work of a batch: the {@link ArrowStage}, or the kernel launched over the rows with a pointer per input
     * column, one per output column, then the row count.
     */
    ArrowStage deviceWork() {
        if (stage != null) {
            return stage;
        }
        Kernel k = kernel();
        checkParams(k);
        List<Field> in = kernelInputs();
        List<Field> out = outputs();
        int count = launchArguments().size();
        return (lane, batch, result) -> {
            Object[] args = new Object[count];
            int a = 0;
            for (Field c : in) {
                DeviceColumn column = batch.column(c.getName());
                if (SparkTypes.isVariableWidth(c.getType())) {
                    DeviceBuffer offsets = java.util.Objects.requireNonNull(column.offsets(), c.getName());
                    args[a++] = offsets;
                    // A batch whose strings are all empty has no bytes: any U8 pointer does, the kernel reads none.
                    DeviceBuffer bytes = column.data();
                    args[a++] = bytes != null ? bytes : offsets.reinterpret(DType.U8);
                } else {
                    args[a++] = data(column, c);
                }
            }
            for (Field c : out) {
                args[a++] = data(result.column(c.getName()), c);
            }
            args[a] = (long) batch.rowCount();
            return lane.stream().enqueueLaunch(lane.function(k), LaunchConfig.forElements(batch.rowCount()), args);
        };
    }

    /** A fixed-width column's values, as the kernel's pointer type (the byte-a-row booleans as BOOL). */
    private static DeviceBuffer data(DeviceColumn column, Field field) {
        DeviceBuffer d = java.util.Objects.requireNonNull(column.data(), field.getName());
        DType t = SparkTypes.elementType(field.getType());
        return d.dtype() == t ? d : d.reinterpret(t);
    }

    /** One argument of a kernel stage's launch: a pointer of element {@code type}, or the row count; for messages. */
    private record Argument(String what, DType type, boolean pointer) {
        @Override
        public String toString() {
            return pointer ? type + "* (" + what + ")" : "long n";
        }
    }

    /**
     * The arguments a kernel stage launches its kernel with: per input column (less the carried ones) a pointer to its
     * values, or for a string or binary two (its int32 offsets, then its bytes); per output column a pointer; then the
     * row count {@code n}. (Not {@link KernelParam}s: a column's name need not be a C identifier.)
     */
    private List<Argument> launchArguments() {
        List<Argument> as = new ArrayList<>();
        for (Field f : kernelInputs()) {
            if (SparkTypes.isVariableWidth(f.getType())) {
                as.add(new Argument(f.getName() + "'s offsets", DType.I32, true));
                as.add(new Argument(f.getName() + "'s bytes", DType.U8, true));
            } else {
                as.add(new Argument(f.getName(), SparkTypes.elementType(f.getType()), true));
            }
        }
        for (Field f : outputs()) {
            as.add(new Argument(f.getName(), SparkTypes.elementType(f.getType()), true));
        }
        as.add(new Argument("n", DType.I64, false));
        return as;
    }

    /** The kernel takes a pointer per input and output column of their element types, then the row count. */
    private void checkParams(Kernel k) {
        List<KernelParam> ps = k.params();
        List<Argument> want = launchArguments();
        boolean fits = ps.size() == want.size() && !ps.getLast().isPointer();
        for (int i = 0; fits && i < want.size() - 1; i++) {
            fits = ps.get(i).isPointer() && ps.get(i).type() == want.get(i).type();
        }
        if (!fits) {
            throw new InvalidArgumentException("kernel", k.name() + " takes " + ps + "; the stage passes "
                    + want
                    + ": a pointer per input column " + kernelInputs()
                    + (carried.isEmpty() ? "" : " (not the carried ones " + carried + ")")
                    + " (two for a string or binary: its int32 offsets and its bytes), one per output column "
                    + outputs() + ", then the row count n as a long");
        }
    }
}
