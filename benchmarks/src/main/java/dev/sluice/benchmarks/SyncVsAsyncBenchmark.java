package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import dev.sluice.SyncStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;

/**
 * The synchronous facade against the asynchronous API, per operation, for a launch of the one-int kernel and
 * a 4 KiB upload from pinned memory: {@code sync*} waits for each ({@link SyncStream}), {@code asyncJoin*}
 * enqueues and joins each future (the same work through the async API: should cost the same), and
 * {@code asyncBatch*} enqueues {@value #BATCH} and joins only the last, which is what the async API is for.
 */
public class SyncVsAsyncBenchmark extends StreamBenchmark {

    static final int BATCH = 100;

    private SyncStream sync;
    private DeviceFunction writeOne;
    private DeviceBuffer out;
    private DeviceBuffer device4k;
    private HostBuffer host4k;
    private final LaunchConfig one = LaunchConfig.of(1, 1);
    private final Integer seven = 7;

    @Override
    DeviceContext openContext() {
        return Bench.open(false);
    }

    @Override
    void prepare() {
        sync = stream.sync();
        writeOne = ctx.compile(BenchKernels.WRITE_ONE);
        out = ctx.allocate(DType.I32, 1);
        device4k = ctx.allocate(DType.U8, 4096);
        host4k = ctx.allocateHost(DType.U8, 4096);
    }

    @Benchmark
    public void syncLaunch() {
        sync.launch(writeOne, one, out, seven);
    }

    @Benchmark
    public Void asyncJoinLaunch() {
        return stream.enqueueLaunch(writeOne, one, out, seven).join();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Void asyncBatchLaunch() {
        DeviceFuture<Void> f = null;
        for (int i = 0; i < BATCH; i++) {
            f = stream.enqueueLaunch(writeOne, one, out, seven);
        }
        return f.join();
    }

    @Benchmark
    public void syncCopy() {
        sync.copy(host4k, device4k);
    }

    @Benchmark
    public Void asyncJoinCopy() {
        return stream.enqueueCopy(host4k, device4k).join();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Void asyncBatchCopy() {
        DeviceFuture<Void> f = null;
        for (int i = 0; i < BATCH; i++) {
            f = stream.enqueueCopy(host4k, device4k);
        }
        return f.join();
    }
}
