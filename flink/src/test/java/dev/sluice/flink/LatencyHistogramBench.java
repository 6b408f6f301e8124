package dev.sluice.flink;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongConsumer;

/**
 * The cost of one {@link LatencyHistogram#update}, against the histogram it replaced, which took a lock per update
 * ({@link Locked}): each of them in turn, round after round in one JVM (so that both see the same machine), on one
 * writer thread and on two at once, printing the median and range of the rounds' nanoseconds per update.
 * docs/benchmarks.md ("The latency histogram's lock") has the figures. Not a test: run it with
 *
 * <pre>{@code
 * ./mvnw -q -o -pl flink -am test-compile
 * ./mvnw -q -o -pl flink dependency:build-classpath -Dmdep.outputFile=target/test.classpath
 * java -cp flink/target/test-classes:flink/target/classes:$(cat flink/target/test.classpath) \
 *     dev.sluice.flink.LatencyHistogramBench [updates per round, 20000000] [rounds, 7]
 * }</pre>
 */
final class LatencyHistogramBench {

    private LatencyHistogramBench() {
    }

    /** The former histogram's update: the window and its count under the histogram's lock. */
    static final class Locked {
        private final long[] window = new long[LatencyHistogram.WINDOW];
        private long count;

        synchronized void update(long value) {
            window[(int) (count % window.length)] = value;
            count++;
        }
    }

    /** Nanoseconds per update of {@code threads} threads making {@code updates} updates in all. */
    static double nanosPerUpdate(int threads, long updates, LongConsumer update) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        long each = updates / threads;
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            writers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long i = 0; i < each; i++) {
                    update.accept(i & 0xFFFF);
                }
            }));
        }
        long t0 = System.nanoTime();
        start.countDown();
        for (Thread t : writers) {
            t.join();
        }
        return (double) (System.nanoTime() - t0) / (each * threads);
    }

    /** Runs the rounds and prints a line per number of writers. */
    public static void main(String[] args) throws InterruptedException {
        long updates = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        for (int threads : new int[] {1, 2}) {
            double[] locked = new double[rounds];
            double[] lockFree = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                locked[r] = nanosPerUpdate(threads, updates, new Locked()::update);
                lockFree[r] = nanosPerUpdate(threads, updates, new LatencyHistogram()::update);
            }
            Arrays.sort(locked);
            Arrays.sort(lockFree);
            System.out.printf("%d writer(s), ns per update, median (min..max) of %d rounds: locked %.1f (%.1f..%.1f),"
                    + " lock-free %.1f (%.1f..%.1f)%n", threads, rounds, locked[rounds / 2], locked[0],
                    locked[rounds - 1], lockFree[rounds / 2], lockFree[0], lockFree[rounds - 1]);
        }
    }
}
