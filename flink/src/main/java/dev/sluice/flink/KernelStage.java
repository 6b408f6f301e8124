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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** The stage {@link SluiceAsyncFunction#kernel}'s builder makes: upload, one launch, download into the lane's staging, read. */
final class KernelStage<I, O> implements GpuStage<I, O> {
    @Serial
    private static final long serialVersionUID = 1L;

    private final SluiceAsyncFunction.KernelSource source;
    private final DType inputType;
    private final SluiceAsyncFunction.InputData<I> input;
    private final DType outputType;
    private final SluiceAsyncFunction.OutputCount<I> outputCount;
    private final SluiceAsyncFunction.OutputReader<I, O> output;
    private final SluiceAsyncFunction.LaunchShape launch;
    private transient @Nullable Kernel kernel;

    KernelStage(SluiceAsyncFunction.KernelSource source, DType inputType, SluiceAsyncFunction.InputData<I> input,
            DType outputType, SluiceAsyncFunction.OutputCount<I> outputCount, SluiceAsyncFunction.OutputReader<I, O> output,
            SluiceAsyncFunction.LaunchShape launch) {
        this.source = source;
        this.inputType = inputType;
        this.input = input;
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
        HostData data = input.of(element);
        if (data == null) {
            throw new InvalidArgumentException("input", "the input function gave null host data");
        }
        long bytes = data.byteSize();
        int size = inputType.byteSize();
        if (bytes == 0 || bytes % size != 0) {
            throw new InvalidArgumentException("input", bytes + " bytes, not a positive whole number of "
                    + inputType + " elements of " + size + " bytes");
        }
        long n = bytes / size;
        long outN = outputCount.count(element, n);
        if (outN < 1) {
            throw new InvalidArgumentException("output", "count " + outN + " for " + n
                    + " input elements; it must be at least 1");
        }
        DeviceStream stream = lane.stream();
        DeviceBuffer in = lane.deviceBuffer(0, inputType, n);
        DeviceBuffer out = lane.deviceBuffer(1, outputType, outN);
        DeviceFunction f = lane.function(kernel());
        LaunchConfig config = launch.config(n);
        HostBuffer result = lane.staging(0, outputType, outN);
        stream.enqueueCopy(data, in);
        stream.enqueueLaunch(f, config, in, out, n);
        return stream.enqueueCopy(out, result).thenApply(v -> output.read(element, result.segment(), outN));
    }
}
