package dev.sluice.flink;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.LaunchConfig;
import dev.sluice.reactive.DeviceLane;
import java.io.Serial;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The stage {@link SluiceAsyncFunction#kernel}'s builder makes: each input given as bytes
 * ({@link KernelStageBuilder#inputBytes}) into the lane's staging on the copy threads, then the uploads, one launch with
 * the arguments {@code (inputs..., outputs..., long n, scalars...)} and the download of each output into the lane's
 * staging as one repeated work (a replayed graph where it can be), and the read. The lane's device buffers are slots 0
 * to k - 1 for the k inputs and k onwards for the outputs; its staging slots are the outputs' first, then those of the
 * inputs given as bytes (at the number of outputs plus the input's index).
 */
final class KernelStage<I, O> implements GpuStage<I, O> {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Results of at least this many bytes (all outputs together) are read on the lanes' copy threads: below it, the
     * hand-off costs more than the read (the default threshold of the lanes' parallel copies, 1 MiB).
     */
    static final long READ_OFF_COMPLETION_BYTES = 1L << 20;

    /**
     * An input: its element type and either its host data of an element or its bytes of an element (staged on the copy
     * threads); exactly one of the two is set.
     */
    record Input<I>(DType type, KernelStageBuilder.@Nullable InputData<I> data,
            KernelStageBuilder.@Nullable InputBytes<I> bytes) implements Serializable {

        /** An input given as host data. */
        static <I> Input<I> of(DType type, KernelStageBuilder.InputData<I> data) {
            return new Input<>(type, data, null);
        }

        /** An input given as bytes. */
        static <I> Input<I> ofBytes(DType type, KernelStageBuilder.InputBytes<I> bytes) {
            return new Input<>(type, null, bytes);
        }
    }

    /** An output: its element type and its element count for an element. */
    record Output<I>(DType type, KernelStageBuilder.OutputCount<I> count) implements Serializable {
    }

    private final KernelSource source;
    private final List<Input<I>> inputs;
    private final List<Output<I>> outputs;
    private final KernelStageBuilder.OutputsReader<I, O> reader;
    private final List<KernelStageBuilder.ScalarArgument<I>> scalars;
    private final KernelStageBuilder.LaunchShape launch;
    private transient @Nullable Kernel kernel;

    KernelStage(KernelSource source, List<Input<I>> inputs, List<Output<I>> outputs,
            KernelStageBuilder.OutputsReader<I, O> reader, List<KernelStageBuilder.ScalarArgument<I>> scalars,
            KernelStageBuilder.LaunchShape launch) {
        this.source = source;
        this.inputs = List.copyOf(inputs);
        this.outputs = List.copyOf(outputs);
        this.reader = reader;
        this.scalars = List.copyOf(scalars);
        this.launch = launch;
    }

    private Kernel kernel() {
        Kernel k = kernel;
        if (k == null) {
            k = source.kernel();
            if (k == null) {
                throw new InvalidArgumentException("kernel", "the kernel source gave null");
            }
            kernel = k;
        }
        return k;
    }

    @Override
    public List<Kernel> kernels() {
        return List.of(kernel());
    }

    @Override
    public CompletableFuture<O> apply(GpuLane lane, I element) {
        int k = inputs.size();
        HostData[] from = new HostData[k]; // the host data, or the staging the bytes are copied into
        MemorySegment[] segments = new MemorySegment[k]; // the bytes to stage, for inputs given as bytes
        long[] inCounts = new long[k];
        for (int i = 0; i < k; i++) {
            Input<I> input = inputs.get(i);
            String which = k == 1 ? "" : "input " + i + " of " + k + ": "; // named where there is more than one
            KernelStageBuilder.InputBytes<I> bytes = input.bytes();
            MemorySegment segment = null;
            long size;
            if (bytes != null) {
                segment = bytes.of(element);
                if (segment == null) {
                    throw new InvalidArgumentException("input", which + "the input function gave null bytes");
                }
                size = segment.byteSize();
            } else {
                HostData d = Objects.requireNonNull(input.data(), "input data or bytes").of(element);
                if (d == null) {
                    throw new InvalidArgumentException("input", which + "the input function gave null host data");
                }
                size = d.byteSize();
                from[i] = d;
            }
            int elementSize = input.type().byteSize();
            if (size == 0 || size % elementSize != 0) {
                throw new InvalidArgumentException("input", which + size + " bytes, not a positive whole number of "
                        + input.type() + " elements of " + elementSize + " bytes");
            }
            inCounts[i] = size / elementSize;
            segments[i] = segment;
        }
        long n = inCounts[0];
        long[] outCounts = new long[outputs.size()];
        long outBytes = 0;
        for (int j = 0; j < outputs.size(); j++) {
            long count = outputs.get(j).count().count(element, n);
            if (count < 1) {
                throw new InvalidArgumentException("output", (outputs.size() == 1 ? "" : "output " + j + ": ") + "count "
                        + count + " for " + n
                        + " input elements; it must be at least 1");
            }
            outCounts[j] = count;
            outBytes += count * outputs.get(j).type().byteSize();
        }
        Object[] scalarValues = new Object[scalars.size()];
        for (int a = 0; a < scalars.size(); a++) {
            Object value = scalars.get(a).value(element, n);
            if (!(value instanceof Number || value instanceof Boolean)) {
                throw new InvalidArgumentException("scalar", "scalar " + a + " of " + scalars.size() + " is "
                        + (value == null ? "null" : "a " + value.getClass().getSimpleName())
                        + "; a kernel's scalar argument is a Number (Long, Integer, Float, ...) or a Boolean");
            }
            scalarValues[a] = value;
        }
        DeviceBuffer[] in = new DeviceBuffer[k];
        for (int i = 0; i < k; i++) {
            in[i] = lane.deviceBuffer(i, inputs.get(i).type(), inCounts[i]);
        }
        DeviceBuffer[] out = new DeviceBuffer[outputs.size()];
        HostBuffer[] results = new HostBuffer[outputs.size()];
        for (int j = 0; j < outputs.size(); j++) {
            out[j] = lane.deviceBuffer(k + j, outputs.get(j).type(), outCounts[j]);
            results[j] = lane.staging(j, outputs.get(j).type(), outCounts[j]);
        }
        List<Object> args = new ArrayList<>(k + outputs.size() + 1 + scalars.size());
        args.addAll(List.of(in));
        args.addAll(List.of(out));
        args.add(n);
        args.addAll(List.of(scalarValues));
        DeviceFunction f = lane.function(kernel());
        LaunchConfig config = launch.config(n);
        if (config == null) { // else refused by the launch, naming its own argument rather than the builder's
            throw new InvalidArgumentException("launch", "the launch shape gave null for " + n + " input elements");
        }
        // Copies start only once every check has passed: a refused element must leave no copy writing into the lane's
        // staging after the lane has gone to the next element. Into pinned staging off the task thread, several copy
        // threads for a large element.
        List<CompletableFuture<Void>> copies = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            if (segments[i] != null) {
                HostBuffer staged = lane.staging(outputs.size() + i, inputs.get(i).type(), inCounts[i]);
                copies.add(DeviceLane.copy(segments[i], staged.segment()));
                from[i] = staged;
            }
        }
        Enqueue work = new Enqueue(lane, from, in, f, config, args.toArray(), out, results);
        // The device work is enqueued once every staged copy has finished, from the copy thread that finished last, so
        // that the stream never waits on the host and the work replays as one graph.
        CompletableFuture<Void> filled = CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new));
        CompletableFuture<Void> done = filled.isDone() && !filled.isCompletedExceptionally()
                ? work.enqueue()
                : filled.thenCompose(v -> work.enqueue());
        // A large result is read on a copy thread, not on the device's completion thread, which serves every lane.
        if (outBytes >= READ_OFF_COMPLETION_BYTES) {
            return done.thenApplyAsync(v -> read(element, results, outCounts), DeviceLane.hostExecutor());
        }
        return done.thenApply(v -> read(element, results, outCounts));
    }

    private O read(I element, HostBuffer[] results, long[] outCounts) {
        List<MemorySegment> segments = new ArrayList<>(results.length);
        for (HostBuffer h : results) {
            segments.add(h.segment());
        }
        return reader.read(element, segments, outCounts.clone());
    }

    /**
     * An element's device work: the uploads (from its host data, or from the staging its bytes were copied into), the
     * launch and the downloads, as one repeated work of the lane, a replayed graph where the work allows it.
     */
    private record Enqueue(GpuLane lane, HostData[] from, DeviceBuffer[] in,
            DeviceFunction f, LaunchConfig config, Object[] args, DeviceBuffer[] out, HostBuffer[] results) {

        CompletableFuture<Void> enqueue() {
            return lane.repeat(s -> {
                for (int i = 0; i < in.length; i++) {
                    s.enqueueCopy(from[i], in[i]);
                }
                s.enqueueLaunch(f, config, args);
                int last = out.length - 1; // the builder gives at least one output
                for (int j = 0; j < last; j++) {
                    s.enqueueCopy(out[j], results[j]);
                }
                return s.enqueueCopy(out[last], results[last]); // one stream: the last download done, all are
            });
        }
    }
}
