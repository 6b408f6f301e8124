package dev.sluice.flink;

import dev.sluice.DType;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link SluiceAsyncFunction} of one kernel ({@link SluiceAsyncFunction#kernel}): upload each input, one
 * launch with {@code (inputs..., outputs..., long n, scalars...)}, download each output, make the result. Not
 * thread-safe: build on one thread; the function it builds is what Flink ships.
 *
 * @param <I> the element type
 * @param <O> the result type
 */
public final class KernelStageBuilder<I, O> {

    private final KernelSource kernel;
    private final List<KernelStage.Input<I>> inputs = new ArrayList<>();
    private final List<KernelStage.Output<I>> outputs = new ArrayList<>();
    private @Nullable OutputsReader<I, O> reader;
    private final List<ScalarArgument<I>> scalars = new ArrayList<>();
    private @Nullable TypeInformation<O> producedType;
    private LaunchShape launch = LaunchConfig::forElements;
    private int lanes; // 0: SluiceOptions.LANES
    private @Nullable DeviceAssignment assignment; // null: SluiceOptions.DEVICE_ASSIGNMENT
    private @Nullable String backend;
    private @Nullable Boolean fatalOnStickyFault;

    KernelStageBuilder(KernelSource kernel) {
        if (kernel == null) {
            throw new InvalidArgumentException("kernel", "null");
        }
        this.kernel = kernel;
    }

    /**
     * An input: its element type and how to get an element's host data. Each call adds one, in the kernel's
     * parameter order; the first input's element count is the kernel's {@code n}.
     */
    public KernelStageBuilder<I, O> input(DType type, InputData<I> data) {
        inputs.add(KernelStage.Input.of(notNull("type", type), notNull("data", data)));
        return this;
    }

    /**
     * An input: its element type and how to get an element's bytes ({@code MemorySegment::ofArray} for an array). As
     * {@link #input}, each call adds one, in the kernel's parameter order; but each element is copied into its lane's
     * pinned staging on the lanes' copy threads, split over several for a large one, so that one subtask's host copies
     * are not bound by the task thread. Inputs of both kinds may be mixed, but the host data of a Java array cannot be
     * recorded into a graph: an element with such an input has its device work enqueued plainly, not replayed.
     */
    public KernelStageBuilder<I, O> inputBytes(DType type, InputBytes<I> bytes) {
        inputs.add(KernelStage.Input.ofBytes(notNull("type", type), notNull("bytes", bytes)));
        return this;
    }

    /** The one output's element type and how to make the result; as many output elements as input ones. */
    public KernelStageBuilder<I, O> output(DType type, OutputReader<I, O> reader) {
        return output(type, (element, n) -> n, reader);
    }

    /** The one output's element type, its element count, and how to make the result. */
    public KernelStageBuilder<I, O> output(DType type, OutputCount<I> count, OutputReader<I, O> reader) {
        KernelStage.Output<I> out = new KernelStage.Output<>(notNull("type", type), notNull("count", count));
        OutputReader<I, O> one = notNull("reader", reader);
        outputs.clear();
        outputs.add(out);
        this.reader = (element, segments, counts) -> one.read(element, segments.getFirst(), counts[0]);
        return this;
    }

    /**
     * Several outputs, each as many elements as the first input, in the kernel's parameter order after the inputs,
     * and how to make the result of them all.
     *
     * @throws InvalidArgumentException naming {@code types} if none is given or one is null
     */
    public KernelStageBuilder<I, O> outputs(OutputsReader<I, O> reader, DType... types) {
        if (types == null || types.length == 0) {
            throw new InvalidArgumentException("types", "none given: at least one output type");
        }
        List<KernelStage.Output<I>> declared = new ArrayList<>(types.length);
        for (DType t : types) {
            declared.add(new KernelStage.Output<>(notNull("types", t), (element, n) -> n));
        }
        this.reader = notNull("reader", reader);
        outputs.clear();
        outputs.addAll(declared);
        return this;
    }

    /**
     * A scalar argument of the kernel, computed per element, after {@code n}; each call adds one, in the kernel's
     * parameter order.
     */
    public KernelStageBuilder<I, O> scalar(ScalarArgument<I> value) {
        scalars.add(notNull("value", value));
        return this;
    }

    /**
     * Flink's type of the results: the function then declares it ({@link SluiceAsyncFunction#returns}), and the
     * async operator needs no {@code .returns(...)}.
     */
    public KernelStageBuilder<I, O> returns(TypeInformation<O> type) {
        this.producedType = notNull("type", type);
        return this;
    }

    /** Flink's type of the results, as Flink extracts it from {@code type} ({@code float[].class}). */
    public KernelStageBuilder<I, O> returns(Class<O> type) {
        return returns(TypeInformation.of(notNull("type", type)));
    }

    /** The launch for n input elements; {@link LaunchConfig#forElements} by default. */
    public KernelStageBuilder<I, O> launch(LaunchShape shape) {
        this.launch = notNull("shape", shape);
        return this;
    }

    /**
     * Lanes per subtask, 1 to 64; by default {@link SluiceOptions#LANES} of the job's parameters or the TaskManager's
     * configuration, 4 where neither sets it. See {@link SluiceAsyncFunction#lanes()}.
     *
     * @throws InvalidArgumentException naming {@code lanes} if it is outside 1 to 64
     */
    public KernelStageBuilder<I, O> lanes(int lanes) {
        this.lanes = SluiceOptions.checkLanes("lanes", lanes);
        return this;
    }

    /**
     * How subtasks are placed on devices; by default as {@link SluiceOptions#DEVICE_ASSIGNMENT} says,
     * {@link DeviceAssignment#roundRobin()} where nothing sets it.
     */
    public KernelStageBuilder<I, O> assignment(DeviceAssignment assignment) {
        this.assignment = notNull("assignment", assignment);
        return this;
    }

    /** The backend ("cuda", "hip", "cpu"); by default as {@link SluiceAsyncFunction} says. */
    public KernelStageBuilder<I, O> backend(String backend) {
        if (backend == null || backend.isBlank()) {
            throw new InvalidArgumentException("backend", "value '" + backend + "' names no backend");
        }
        this.backend = backend;
        return this;
    }

    /**
     * Whether a sticky device fault fails the TaskManager; by default on every backend but the CPU simulator. See
     * {@link SluiceAsyncFunction#fatalOnStickyFault(boolean)}.
     */
    public KernelStageBuilder<I, O> fatalOnStickyFault(boolean fatal) {
        this.fatalOnStickyFault = fatal;
        return this;
    }

    /**
     * The function; typed ({@link SluiceAsyncFunction#returns}) if {@link #returns} was given.
     *
     * @throws InvalidArgumentException naming {@code input} or {@code output} if it was not given
     */
    public SluiceAsyncFunction<I, O> build() {
        if (inputs.isEmpty()) {
            throw new InvalidArgumentException("input", "not given: call input(type, data) or inputBytes(type, bytes)");
        }
        OutputsReader<I, O> r = reader;
        if (outputs.isEmpty() || r == null) {
            throw new InvalidArgumentException("output", "not given: call output(type, reader)");
        }
        SluiceAsyncFunction<I, O> f = new SluiceAsyncFunction<>(new KernelStage<>(kernel, inputs, outputs, r, scalars,
                launch), lanes, assignment, backend, fatalOnStickyFault, SluiceAsyncFunction.FatalErrorSignal.THROW);
        return producedType == null ? f : f.returns(producedType);
    }

    private static <T> T notNull(String name, @Nullable T value) {
        if (value == null) {
            throw new InvalidArgumentException(name, "null");
        }
        return value;
    }

    /** The host data of an element, to upload ({@link HostData#of(float[])} for a {@code float[]}). */
    @FunctionalInterface
    public interface InputData<I> extends Serializable {
        /** The host data of {@code element}. */
        HostData of(I element);
    }

    /**
     * The bytes of an element, to upload: {@code MemorySegment::ofArray} for an array. Copied into the lane's pinned
     * staging on the lanes' copy threads (several at once for a large element), never on the task thread.
     */
    @FunctionalInterface
    public interface InputBytes<I> extends Serializable {
        /** The bytes of {@code element}; they must not change until its result is emitted. */
        MemorySegment of(I element);
    }

    /** The number of output elements for an element of {@code inputElements} input elements. */
    @FunctionalInterface
    public interface OutputCount<I> extends Serializable {
        /** Output elements for {@code element}, which has {@code inputElements} input elements. */
        long count(I element, long inputElements);
    }

    /** Makes an element's result of its downloaded output (the lane's pinned staging, valid during the call only). */
    @FunctionalInterface
    public interface OutputReader<I, O> extends Serializable {
        /** The result of {@code element} from {@code output}, {@code count} elements; copy out what is kept. */
        O read(I element, MemorySegment output, long count);
    }

    /**
     * Makes an element's result of several downloaded outputs (the lane's pinned staging, valid during the call only).
     */
    @FunctionalInterface
    public interface OutputsReader<I, O> extends Serializable {
        /**
         * The result of {@code element} from {@code outputs}, in the order the outputs were declared, of
         * {@code counts[j]} elements each; copy out what is kept.
         */
        O read(I element, List<MemorySegment> outputs, long[] counts);
    }

    /** A scalar argument of the kernel, per element: passed after {@code n}, in the order declared. */
    @FunctionalInterface
    public interface ScalarArgument<I> extends Serializable {
        /**
         * The value for {@code element} of {@code n} input elements: a {@link Number} (or {@link Boolean}) that fits the
         * kernel's parameter type ({@code Long} for {@code I64}, {@code Float} for {@code F32}, ...).
         */
        Object value(I element, long n);
    }

    /** The launch configuration for {@code n} input elements. */
    @FunctionalInterface
    public interface LaunchShape extends Serializable {
        /** The launch for {@code n} input elements. */
        LaunchConfig config(long n);
    }
}
