package dev.sluice.benchmarks;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a future per operation costs: {@link #enqueueMarker} creates one (a completion marker recorded on the
 * stream, the {@link DeviceFuture}, its hand-over to the completion engine) and nothing else;
 * {@link #createAndComplete} creates {@value #BATCH} and waits until the completion thread has completed the
 * last (all complete in order), so it is the sustained cost per future, creation and completion;
 * {@link #jdkFuture} is the JDK's floor: a {@link CompletableFuture} created and completed on one thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class FutureBenchmark {

    static final int BATCH = 256;

    @Param({"PARK"})
    public String waitStrategy;

    private DeviceContext ctx;
    private DeviceStream stream;
    private final Backlog backlog = new Backlog(4096);

    @Setup(Level.Trial)
    public void open() {
        ctx = Bench.open(false, waitStrategy);
        stream = ctx.createStream();
    }

    @TearDown(Level.Iteration)
    public void drain() {
        backlog.drain();
        stream.synchronize();
    }

    @TearDown(Level.Trial)
    public void close() {
        ctx.close();
    }

    @Benchmark
    public DeviceFuture<Void> enqueueMarker() {
        DeviceFuture<Void> f = stream.enqueueMarker();
        backlog.add(f);
        return f;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Void createAndComplete() {
        DeviceFuture<Void> f = null;
        for (int i = 0; i < BATCH; i++) {
            f = stream.enqueueMarker();
        }
        return f.join();
    }

    @Benchmark
    public Object jdkFuture() {
        CompletableFuture<Object> f = new CompletableFuture<>();
        f.complete(this);
        return f.join();
    }
}
