package dev.sluice.benchmarks;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import java.util.concurrent.CompletableFuture;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/**
 * What a future per operation costs: {@link #enqueueMarker} creates one (a completion marker recorded on the
 * stream, the {@link DeviceFuture}, its hand-over to the completion engine) and nothing else;
 * {@link #createAndComplete} creates {@value #BATCH} and waits until the completion thread has completed the
 * last (all complete in order), so it is the sustained cost per future, creation and completion;
 * {@link #jdkFuture} is the JDK's floor: a {@link CompletableFuture} created and completed on one thread.
 */
public class FutureBenchmark extends BacklogBenchmark {

    static final int BATCH = 256;

    @Param({"PARK"})
    public String waitStrategy;

    @Override
    DeviceContext openContext() {
        return Bench.open(false, waitStrategy);
    }

    @Benchmark
    public DeviceFuture<Void> enqueueMarker() {
        return backlog.add(stream.enqueueMarker());
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
