package dev.sluice.flink;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.LaunchConfig;
import java.io.Serial;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The stage {@link SluiceAsyncFunction#kernel}'s builder makes: upload each input, one launch with the arguments
 * {@code (inputs..., outputs..., long n, scalars...)}, download each output into the lane's staging, read the result.
 * The lane's device buffers are slots 0 to k - 1 for the k inputs and k onwards for the outputs; its staging slots are
 * the outputs'.
 */
final class KernelStage<I, O> implements GpuStage<I, O> {
    @Serial
    private static final long serialVersionUID = 1L;

    /** An input: its element type and its host data of an element. */
    record Input<I>(DType type, KernelStageBuilder.InputData<I> data) implements Serializable {
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
        HostData[] data = new HostData[k];
        long[] inCounts = new long[k];
        for (int i = 0; i < k; i++) {
            Input<I> input = inputs.get(i);
            String which = k == 1 ? "" : "input " + i + " of " + k + ": "; // named where there is more than one
            HostData d = input.data().of(element);
            if (d == null) {
                throw new InvalidArgumentException("input", which + "the input function gave null host data");
            }
            long bytes = d.byteSize();
            int size = input.type().byteSize();
            if (bytes == 0 || bytes % size != 0) {
                throw new InvalidArgumentException("input", which + bytes + " bytes, not a positive whole number of "
                        + input.type() + " elements of " + size + " bytes");
            }
            data[i] = d;
            inCounts[i] = bytes / size;
        }
        long n = inCounts[0];
        long[] outCounts = new long[outputs.size()];
        for (int j = 0; j < outputs.size(); j++) {
            long count = outputs.get(j).count().count(element, n);
            if (count < 1) {
                throw new InvalidArgumentException("output", (outputs.size() == 1 ? "" : "output " + j + ": ") + "count "
                        + count + " for " + n
                        + " input elements; it must be at least 1");
            }
            outCounts[j] = count;
        }
        List<Object> args = new ArrayList<>(k + outputs.size() + 1 + scalars.size());
        DeviceStream stream = lane.stream();
        for (int i = 0; i < k; i++) {
            DeviceBuffer in = lane.deviceBuffer(i, inputs.get(i).type(), inCounts[i]);
            stream.enqueueCopy(data[i], in);
            args.add(in);
        }
        DeviceBuffer[] out = new DeviceBuffer[outputs.size()];
        for (int j = 0; j < outputs.size(); j++) {
            out[j] = lane.deviceBuffer(k + j, outputs.get(j).type(), outCounts[j]);
            args.add(out[j]);
        }
        args.add(n);
        for (int a = 0; a < scalars.size(); a++) {
            Object value = scalars.get(a).value(element, n);
            if (!(value instanceof Number || value instanceof Boolean)) {
                throw new InvalidArgumentException("scalar", "scalar " + a + " of " + scalars.size() + " is "
                        + (value == null ? "null" : "a " + value.getClass().getSimpleName())
                        + "; a kernel's scalar argument is a Number (Long, Integer, Float, ...) or a Boolean");
            }
            args.add(value);
        }
        DeviceFunction f = lane.function(kernel());
        LaunchConfig config = launch.config(n);
        stream.enqueueLaunch(f, config, args.toArray());
        HostBuffer[] staging = new HostBuffer[outputs.size()];
        CompletableFuture<Void> last = null;
        for (int j = 0; j < outputs.size(); j++) {
            staging[j] = lane.staging(j, outputs.get(j).type(), outCounts[j]);
            last = stream.enqueueCopy(out[j], staging[j]); // one stream: the last download done, all are
        }
        return last.thenApply(v -> {
            List<MemorySegment> segments = new ArrayList<>(staging.length);
            for (HostBuffer h : staging) {
                segments.add(h.segment());
            }
            return reader.read(element, segments, outCounts.clone());
        });
    }
}
