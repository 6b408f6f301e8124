package dev.sluice.flink;

import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.arrow.ArrowColumns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.jspecify.annotations.Nullable;

/**
 * GPU stages over Arrow record batches ({@link ArrowBatch} elements) in a Flink job: one kernel over columns of each
 * batch, written once (with {@link dev.sluice.kernel.Kernels#elementwise}, say), whose output comes back as an Arrow
 * column of the result batch.
 *
 * <pre>{@code
 * static final Kernel FMA = Kernels.elementwise("fma")                     // y = a * b + 1
 *         .input(KernelParam.pointer("a", DType.F32)).input(KernelParam.pointer("b", DType.F32))
 *         .output(KernelParam.pointer("y", DType.F32)).body("y = a * b + 1.0f").build();
 *
 * SluiceAsyncFunction<ArrowBatch, ArrowBatch> fma = ArrowBatches.kernel(() -> FMA)
 *         .columns("a", "b")                                              // the kernel's inputs, in its order
 *         .output(Field.nullable("y", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
 *         .passThrough("id")                                              // input columns the result keeps
 *         .lanes(4)
 *         .build();
 * DataStream<ArrowBatch> out = AsyncDataStream.orderedWait(batches, fma, 30, TimeUnit.SECONDS, fma.lanes());
 * }</pre>
 *
 * <p>The function declares {@link ArrowBatch#TYPE} as its results' type to Flink: the operator needs no
 * {@code .returns(...)}.
 *
 * <p>Per element, on the subtask's device: the batch is read into vectors of the subtask's Arrow allocator of pinned
 * memory (one host copy: out of the element's bytes), each input column's values are uploaded straight from there
 * (DMA, no staging), the kernel runs with {@code (input columns' values..., output values, long n)} over
 * {@code LaunchConfig.forElements(n)}, and the output is downloaded into a vector of the same allocator. The result is a
 * batch of the pass-through columns and the output column, with the input's row count.
 *
 * <p><b>Nulls.</b> The kernel computes every row. A nullable output column is null where any input column is null
 * (its validity bitmap is the AND of the inputs' bitmaps, written on the host: {@code n / 8} bytes); a non-nullable
 * one comes back all valid. Input columns without nulls need no bitmap.
 *
 * <p><b>Failures.</b> A batch whose columns differ in length, that lacks a named column, or whose input column's type
 * is not the kernel's parameter's fails its element (a {@link GpuStageException} naming the batch, with an
 * {@link InvalidArgumentException} naming {@code batch} as the cause) before anything is enqueued; the other elements
 * go on.
 *
 * <p><b>Who closes the Arrow memory.</b> Each subtask opens one Arrow {@code RootAllocator} of pinned memory
 * ({@code PinnedAllocationFactory}) of its device's context when the function opens, and closes it when the function
 * closes, after its lanes and before it lets go of the context. An element's vectors (the batch read in, the output
 * column) are closed by the stage when the element's result is made or its work fails; the result travels as bytes and
 * holds no Arrow memory. The close waits for elements still finishing (up to {@link Builder#closeTimeout}, else
 * {@link SluiceOptions#ARROW_CLOSE_TIMEOUT}, 10 s) and then closes the allocator; a buffer still allocated then (a
 * leak, or an element not finished) fails the close with Arrow's report.
 *
 * <p>Arrow (arrow-vector, arrow-memory-core) and sluice-arrow must be on the TaskManager's class path for these classes
 * only: the rest of sluice-flink never loads them.
 */
public final class ArrowBatches {

    private ArrowBatches() {
    }

    /**
     * A builder of a stage running {@code kernel} over columns of each batch.
     *
     * @param kernel gives the kernel (called once per subtask; a {@code static final} field's, typically); it takes a
     *               pointer per input column, one for the output column, then the row count {@code n} as a long
     * @throws InvalidArgumentException naming {@code kernel} if null
     */
    public static Builder kernel(KernelSource kernel) {
        return new Builder(kernel);
    }

    /** Builds a {@link SluiceAsyncFunction} over {@link ArrowBatch}es; see {@link ArrowBatches}. */
    public static final class Builder {
        private final KernelSource kernel;
        private List<String> columns = List.of();
        private @Nullable Field output;
        private List<String> passThrough = List.of();
        private int lanes; // 0: SluiceOptions.LANES
        private @Nullable DeviceAssignment assignment; // null: SluiceOptions.DEVICE_ASSIGNMENT
        private @Nullable String backend;
        private @Nullable Boolean fatalOnStickyFault;
        private @Nullable Duration closeTimeout; // null: SluiceOptions.ARROW_CLOSE_TIMEOUT

        private Builder(KernelSource kernel) {
            if (kernel == null) {
                throw new InvalidArgumentException("kernel", "null");
            }
            this.kernel = kernel;
        }

        /**
         * The input columns, by name, in the order of the kernel's parameters.
         *
         * @throws InvalidArgumentException naming {@code columns} if none, or one is null or named twice
         */
        public Builder columns(String... columns) {
            this.columns = names("columns", columns);
            if (this.columns.isEmpty()) {
                throw new InvalidArgumentException("columns", "none given: the kernel needs at least one input column");
            }
            return this;
        }

        /**
         * The output column: its name, a fixed-width type (Int of 8 to 64 bits, FloatingPoint) and whether it is
         * nullable (null where an input is); not dictionary-encoded.
         *
         * @throws InvalidArgumentException naming {@code field} if null, of another type, or dictionary-encoded
         */
        public Builder output(Field field) {
            if (field == null) {
                throw new InvalidArgumentException("field", "must not be null");
            }
            if (fixedWidthTypeOrNull(field.getType()) == null || !field.getChildren().isEmpty()) {
                throw new InvalidArgumentException("field", field + " is not of a fixed-width type with a Sluice element"
                        + " type; supported: Int (8, 16, 32, 64 bits, signed or not), FloatingPoint (HALF, SINGLE, DOUBLE)");
            }
            // The kernel writes values, not indexes; and a result batch is written as IPC without a dictionary, which
            // would fail every element.
            if (field.getDictionary() != null) {
                throw new InvalidArgumentException("field", field + " is dictionary-encoded (" + field.getDictionary()
                        + "); the output column holds the kernel's values");
            }
            this.output = field;
            return this;
        }

        /**
         * Input columns the result keeps, before the output column, as they came (any type; they do not go to the
         * device).
         *
         * @throws InvalidArgumentException naming {@code columns} if one is null or named twice
         */
        public Builder passThrough(String... columns) {
            this.passThrough = names("columns", columns);
            return this;
        }

        /**
         * Lanes per subtask, 1 to 64; by default {@link SluiceOptions#LANES} of the job's parameters or the
         * TaskManager's configuration, 4 where neither sets it. See {@link SluiceAsyncFunction#lanes()}.
         *
         * @throws InvalidArgumentException naming {@code lanes} if it is outside 1 to 64
         */
        public Builder lanes(int lanes) {
            this.lanes = SluiceOptions.checkLanes("lanes", lanes);
            return this;
        }

        /**
         * How subtasks are placed on devices; by default as {@link SluiceOptions#DEVICE_ASSIGNMENT} says,
         * {@link DeviceAssignment#roundRobin()} where nothing sets it.
         */
        public Builder assignment(DeviceAssignment assignment) {
            if (assignment == null) {
                throw new InvalidArgumentException("assignment", "null");
            }
            this.assignment = assignment;
            return this;
        }

        /** The backend ("cuda", "hip", "cpu"); by default as {@link SluiceAsyncFunction} says. */
        public Builder backend(String backend) {
            if (backend == null || backend.isBlank()) {
                throw new InvalidArgumentException("backend", "value '" + backend + "' names no backend");
            }
            this.backend = backend;
            return this;
        }

        /** See {@link SluiceAsyncFunction#fatalOnStickyFault(boolean)}. */
        public Builder fatalOnStickyFault(boolean fatal) {
            this.fatalOnStickyFault = fatal;
            return this;
        }

        /**
         * How long the function's close waits for elements still finishing to give their Arrow memory back, before it
         * closes the subtask's allocator; by default {@link SluiceOptions#ARROW_CLOSE_TIMEOUT} of the job's parameters
         * or the TaskManager's configuration, 10 s where neither sets it.
         *
         * @throws InvalidArgumentException naming {@code closeTimeout} if null, negative or over one hour
         */
        public Builder closeTimeout(Duration closeTimeout) {
            this.closeTimeout = SluiceOptions.checkCloseTimeout("closeTimeout", closeTimeout);
            return this;
        }

        /**
         * The function.
         *
         * @throws InvalidArgumentException naming {@code columns} or {@code output} if not given, or {@code passThrough}
         *                                  if it names the output column
         */
        public SluiceAsyncFunction<ArrowBatch, ArrowBatch> build() {
            if (columns.isEmpty()) {
                throw new InvalidArgumentException("columns", "not given: call columns(names)");
            }
            Field out = output;
            if (out == null) {
                throw new InvalidArgumentException("output", "not given: call output(field)");
            }
            if (passThrough.contains(out.getName())) {
                throw new InvalidArgumentException("passThrough", "names the output column " + out.getName());
            }
            // Typed: the operator's output is ArrowBatch.TYPE without .returns(...).
            return new SluiceAsyncFunction<>(new ArrowKernelStage(kernel, columns, out, passThrough, closeTimeout),
                    lanes, assignment, backend, fatalOnStickyFault, SluiceAsyncFunction.FatalErrorSignal.THROW)
                    .returns(ArrowBatch.TYPE);
        }

        private static List<String> names(String argument, String[] names) {
            if (names == null) {
                throw new InvalidArgumentException(argument, "must not be null");
            }
            List<String> out = new ArrayList<>(names.length);
            Set<String> seen = new HashSet<>();
            for (String n : names) {
                if (n == null || !seen.add(n)) {
                    throw new InvalidArgumentException(argument, n == null ? "holds a null name" : "names " + n + " twice");
                }
                out.add(n);
            }
            return out;
        }
    }

    /** The element type of a fixed-width Arrow type Sluice has one for, or null. */
    static @Nullable DType fixedWidthTypeOrNull(ArrowType type) {
        return ArrowColumns.fixedWidthType(type).orElse(null);
    }

    /** {@link #fixedWidthTypeOrNull}, for a type already checked. */
    static DType fixedWidthType(ArrowType type) {
        DType t = fixedWidthTypeOrNull(type);
        if (t == null) {
            throw new InvalidArgumentException("type", type + " has no Sluice element type");
        }
        return t;
    }
}
