package dev.sluice.spark;

import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.arrow.ArrowColumns;
import dev.sluice.arrow.DeviceBatch;
import java.io.IOException;
import java.io.Serial;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
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

    /** Bytes of a batch of {@code rows} rows of fixed-width {@code inputs}, each buffer rounded up as laid out. */
    static long defaultBatchBytes(List<Field> inputs, int rows) {
        long bytes = ALIGN;
        for (Field f : inputs) {
            DType t = ArrowColumns.fixedWidthType(f.getType()).orElse(DType.U8);
            bytes += align((rows + 7L) / 8) + align((long) rows * t.byteSize());
        }
        return bytes;
    }

    private static long align(long n) {
        return (n + ALIGN - 1) / ALIGN * ALIGN;
    }

    /** The input columns the kernel reads: the inputs less those only carried. */
    List<Field> kernelInputs() {
        return inputs().stream().filter(f -> !carried.contains(f.getName())).toList();
    }

    /** The kernels the device work launches, made on the executor. */
    List<Kernel> kernels() {
        if (stage != null) {
            return stage.kernels();
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
        List<String> in = kernelInputs().stream().map(Field::getName).toList();
        List<String> out = outputs().stream().map(Field::getName).toList();
        return (lane, batch, result) -> {
            Object[] args = new Object[in.size() + out.size() + 1];
            int a = 0;
            for (String c : in) {
                args[a++] = data(batch, c);
            }
            for (String c : out) {
                args[a++] = data(result, c);
            }
            args[a] = (long) batch.rowCount();
            return lane.stream().enqueueLaunch(lane.function(k), LaunchConfig.forElements(batch.rowCount()), args);
        };
    }

    private static Object data(DeviceBatch batch, String column) {
        return java.util.Objects.requireNonNull(batch.column(column).data(), column);
    }

    /** The kernel takes a pointer per input and output column of their element types, then the row count. */
    private void checkParams(Kernel k) {
        List<KernelParam> ps = k.params();
        List<Field> columns = new ArrayList<>(kernelInputs());
        columns.addAll(outputs());
        boolean fits = ps.size() == columns.size() + 1 && !ps.getLast().isPointer();
        for (int i = 0; fits && i < columns.size(); i++) {
            DType t = ArrowColumns.fixedWidthType(columns.get(i).getType()).orElse(null);
            fits = ps.get(i).isPointer() && ps.get(i).type() == t;
        }
        if (!fits) {
            throw new InvalidArgumentException("kernel", k.name() + " takes " + ps + "; the stage passes a pointer per"
                    + " input column " + kernelInputs()
                    + (carried.isEmpty() ? "" : " (not the carried ones " + carried + ")") + ", one per output column " + outputs()
                    + " (of their element types), then the row count n as a long");
        }
    }
}
