package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import dev.sluice.SyncStream;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The synchronous facade against the asynchronous API, per operation, for a launch of the one-int kernel and
 * a 4 KiB upload from pinned memory: {@code sync*} waits for each ({@link SyncStream}), {@code asyncJoin*}
 * enqueues and joins each future (the same work through the async API: should cost the same), and
 * {@code asyncBatch*} enqueues {@value #BATCH} and joins only the last, which is what the async API is for.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class SyncVsAsyncBenchmark {

    static final int BATCH = 100;

    private DeviceContext ctx;
    private DeviceStream stream;
    private SyncStream sync;
    private DeviceFunction writeOne;
    private DeviceBuffer out;
    private DeviceBuffer device4k;
    private HostBuffer host4k;
    private final LaunchConfig one = LaunchConfig.of(1, 1);
    private final Integer seven = 7;

    @Setup(Level.Trial)
    public void open() {
        ctx = Bench.open(false);
        stream = ctx.createStream();
        sync = stream.sync();
        writeOne = ctx.compile(BenchKernels.WRITE_ONE);
        out = ctx.allocate(DType.I32, 1);
        device4k = ctx.allocate(DType.U8, 4096);
        host4k = ctx.allocateHost(DType.U8, 4096);
    }

    @TearDown(Level.Trial)
    public void close() {
        ctx.close();
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
