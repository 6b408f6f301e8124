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
import java.lang.foreign.MemorySegment;
import java.io.Serial;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The stage {@link SluiceAsyncFunction#kernel}'s builder makes: the element's bytes into the lane's staging on the copy
 * threads ({@link SluiceAsyncFunction.Builder#inputBytes}) or its host data as it is, then upload, one launch and the
 * download into the lane's staging as one repeated work (a replayed graph where it can be), and the read.
 */
final class KernelStage<I, O> implements GpuStage<I, O> {
    @Serial
    private static final long serialVersionUID = 1L;

    private final SluiceAsyncFunction.KernelSource source;
    private final DType inputType;
    /** The element's host data; null where {@link #bytes} gives it. */
    private final SluiceAsyncFunction.@Nullable InputData<I> input;
    /** The element's bytes, copied into the lane's staging on the copy threads; null where {@link #input} gives them. */
    private final SluiceAsyncFunction.@Nullable InputBytes<I> bytes;
    private final DType outputType;
    private final SluiceAsyncFunction.OutputCount<I> outputCount;
    private final SluiceAsyncFunction.OutputReader<I, O> output;
    private final SluiceAsyncFunction.LaunchShape launch;
    private transient @Nullable Kernel kernel;

    /**
     * Results of at least this many bytes are read on the lanes' copy threads: below it, the hand-off costs more than
     * the read (the default threshold of the lanes' parallel copies, 1 MiB).
     */
    static final long READ_OFF_COMPLETION_BYTES = 1L << 20;

    KernelStage(SluiceAsyncFunction.KernelSource source, DType inputType, SluiceAsyncFunction.@Nullable InputData<I> input,
            SluiceAsyncFunction.@Nullable InputBytes<I> bytes, DType outputType, SluiceAsyncFunction.OutputCount<I> outputCount, SluiceAsyncFunction.OutputReader<I, O> output,
            SluiceAsyncFunction.LaunchShape launch) {
        this.source = source;
        this.inputType = inputType;
        this.input = input;
        this.bytes = bytes;
        this.outputType = outputType;
        this.outputCount = outputCount;
        this.output = output;
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
        HostData data = null;
        MemorySegment segment = null;
        long size;
        if (bytes != null) {
            segment = bytes.of(element);
            if (segment == null) {
                throw new InvalidArgumentException("input", "the input function gave null bytes");
            }
            size = segment.byteSize();
        } else {
            data = input.of(element);
            if (data == null) {
                throw new InvalidArgumentException("input", "the input function gave null host data");
            }
            size = data.byteSize();
        }
        int elementSize = inputType.byteSize();
        if (size == 0 || size % elementSize != 0) {
            throw new InvalidArgumentException("input", size + " bytes, not a positive whole number of "
                    + inputType + " elements of " + elementSize + " bytes");
        }
        long n = size / elementSize;
        long outN = outputCount.count(element, n);
        if (outN < 1) {
            throw new InvalidArgumentException("output", "count " + outN + " for " + n
                    + " input elements; it must be at least 1");
        }
        DeviceBuffer in = lane.deviceBuffer(0, inputType, n);
        DeviceBuffer out = lane.deviceBuffer(1, outputType, outN);
        DeviceFunction f = lane.function(kernel());
        LaunchConfig config = launch.config(n);
        HostBuffer result = lane.staging(0, outputType, outN);
        // The element's bytes into pinned staging off the task thread (several copy threads for a large one); the
        // device work is enqueued once they are there, from the copy thread, so that the stream never waits on the host
        // and the work replays as one graph. Host data given as such is staged by the copy itself.
        CompletableFuture<Void> done;
        if (segment != null) {
            HostBuffer staged = lane.staging(1, inputType, n);
            CompletableFuture<Void> filled = DeviceLane.copy(segment, staged.segment());
            done = filled.isDone() && !filled.isCompletedExceptionally()
                    ? enqueue(lane, staged, in, f, config, n, out, result)
                    : filled.thenCompose(v -> enqueue(lane, staged, in, f, config, n, out, result));
        } else {
            done = enqueue(lane, data, in, f, config, n, out, result);
        }
        // A large result is read on a copy thread, not on the device's completion thread, which serves every lane.
        if (outN * outputType.byteSize() >= READ_OFF_COMPLETION_BYTES) {
            return done.thenApplyAsync(v -> output.read(element, result.segment(), outN), DeviceLane.hostExecutor());
        }
        return done.thenApply(v -> output.read(element, result.segment(), outN));
    }

    /** Upload, launch and download as one repeated work of the lane: a replayed graph where the work allows it. */
    private static CompletableFuture<Void> enqueue(GpuLane lane, HostData from, DeviceBuffer in, DeviceFunction f,
            LaunchConfig config, long n, DeviceBuffer out, HostBuffer result) {
        return lane.repeat(s -> {
            s.enqueueCopy(from, in);
            s.enqueueLaunch(f, config, in, out, n);
            return s.enqueueCopy(out, result);
        });
    }
}
