package dev.sluice.benchmarks;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A {@link StreamBenchmark} that enqueues without draining the stream: the benchmark methods hand each future to
 * {@link #backlog}, which bounds the work in flight to the last 4,096 operations, and the stream is drained after each
 * iteration, outside the timing.
 */
abstract class BacklogBenchmark extends StreamBenchmark {

    final Backlog backlog = new Backlog(4096);

    @TearDown(Level.Iteration)
    public final void drain() {
        backlog.drain();
        stream.synchronize();
    }
}
