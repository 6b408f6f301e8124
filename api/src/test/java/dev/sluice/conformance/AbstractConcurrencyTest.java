package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Enqueues from many threads at once, on one stream and on several: every call gets its own sequence
 * number, every future completes exactly once, per-stream completion order equals sequence order, and each
 * thread's own operations keep their order.
 */
public abstract class AbstractConcurrencyTest extends ConformanceBase {

    private static final int THREADS = 8;
    private static final int OPS = 500;
    private static final int SLICE = 16;

    /** What one run observed, per stream. */
    private static final class Record {
        final Map<DeviceStream, Map<Long, DeviceFuture<?>>> bySequence = new ConcurrentHashMap<>();
        final Map<DeviceStream, List<Long>> completionOrder = new ConcurrentHashMap<>();
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        final AtomicInteger completions = new AtomicInteger();

        /** Registers {@code f} and checks at its completion that its predecessor on the stream had completed. */
        void track(DeviceFuture<?> f) {
            DeviceStream s = f.stream();
            if (bySequence.computeIfAbsent(s, k -> new ConcurrentHashMap<>()).put(f.sequence(), f) != null) {
                violations.add(s + ": sequence " + f.sequence() + " given twice");
            }
            f.whenComplete((v, e) -> {
                completions.incrementAndGet();
                completionOrder.computeIfAbsent(s, k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(f.sequence());
                if (e != null) {
                    violations.add(f + " failed: " + e);
                }
                DeviceFuture<?> prev = bySequence.get(s).get(f.sequence() - 1);
                if (prev != null && !prev.isDone()) {
                    violations.add(s + ": #" + f.sequence() + " completed before #" + (f.sequence() - 1));
                }
            });
        }
    }

    /** Runs {@code body(thread index)} on {@link #THREADS} threads started together. */
    private static void onThreads(java.util.function.IntConsumer body) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            threads.add(Thread.ofPlatform().name("conformance-enqueuer-" + t).start(() -> {
                try {
                    start.await();
                    body.accept(id);
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        if (!errors.isEmpty()) {
            AssertionError a = new AssertionError("an enqueuing thread failed: " + errors.peek());
            errors.forEach(a::addSuppressed);
            throw a;
        }
    }

    /** One thread's operations on its own slice of {@code b}: order-sensitive, so the final value proves the order. */
    private DeviceFuture<?> enqueueOp(DeviceStream s, DeviceBuffer slice, int i) {
        return switch (i % 4) {
            case 0 -> s.enqueueFill(slice, i);
            case 1 -> s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.of(1, SLICE), slice, (long) SLICE, 1, 1);
            case 2 -> s.enqueueCopy(HostData.of(filled(SLICE, i)), slice);
            default -> s.enqueueMarker();
        };
    }

    /** The value a thread's slice holds after its {@link #OPS} operations. */
    private static int expectedFinal() {
        int v = 0;
        for (int i = 0; i < OPS; i++) {
            switch (i % 4) {
                case 0, 2 -> v = i;
                case 1 -> v = v + 1;
                default -> { }
            }
        }
        return v;
    }

    /**
     * Checks sequence numbers, waits for every future, then checks completion counts and order. Only the last future
     * of each stream is waited for with {@code get()}: a thread blocked in {@code get()} helps run the dependents of
     * that future (CompletableFuture's design), which would let callbacks of earlier futures run late on the test
     * thread and blur the completion order the callbacks record.
     */
    private void checkRecord(Record r, Map<DeviceStream, Integer> expectedPerStream) {
        for (var e : expectedPerStream.entrySet()) {
            DeviceStream s = e.getKey();
            Map<Long, DeviceFuture<?>> seqs = r.bySequence.get(s);
            assertEquals(e.getValue(), seqs.size(), s + ": one distinct sequence number per call");
            long min = seqs.keySet().stream().mapToLong(Long::longValue).min().orElseThrow();
            long max = seqs.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
            assertEquals(seqs.size() - 1, max - min, s + ": sequence numbers without gaps");
            await(seqs.get(max));
            for (DeviceFuture<?> f : seqs.values()) {
                assertTrue(f.isDone(), s + ": #" + f.sequence() + " is not complete although #" + max + " is");
            }
        }
        long deadline = System.nanoTime() + WAIT_SECONDS * 1_000_000_000L;
        int total = expectedPerStream.values().stream().mapToInt(Integer::intValue).sum();
        while (r.completions.get() < total && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(total, r.completions.get(), "every future completes exactly once");
        if (!r.violations.isEmpty()) {
            fail(r.violations.size() + " ordering violations, first: " + r.violations.peek());
        }
    }

    /** Asserts that the callbacks, run at completion, saw the futures of {@code s} complete in sequence order. */
    private static void assertCompletedInSequenceOrder(Record r, DeviceStream s) {
        List<Long> order = r.completionOrder.get(s);
        synchronized (order) {
            for (int i = 1; i < order.size(); i++) {
                if (order.get(i) < order.get(i - 1)) {
                    fail(s + ": #" + order.get(i) + " completed after #" + order.get(i - 1) + " (position " + i + ")");
                }
            }
        }
    }

    @Test
    void manyThreadsOnOneGatedStreamCompleteInSequenceOrder() throws Exception {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(THREADS * SLICE, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        Record r = new Record();
        r.track(s.waitFor(gate));
        onThreads(t -> {
            DeviceBuffer slice = b.slice((long) t * SLICE, SLICE);
            for (int i = 0; i < OPS; i++) {
                r.track(enqueueOp(s, slice, i));
            }
        });
        assertEquals(0, r.completions.get(), "nothing behind the gate may complete");
        gate.complete(null);
        checkRecord(r, Map.of(s, THREADS * OPS + 1));
        assertCompletedInSequenceOrder(r, s);
        assertArrayEquals(filled(THREADS * SLICE, expectedFinal()), readInts(s, b), "each thread's operations kept their order");
    }

    @Test
    void manyThreadsOnOneLiveStreamLoseNoCompletion() throws Exception {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(THREADS * SLICE, 0));
        Record r = new Record();
        onThreads(t -> {
            DeviceBuffer slice = b.slice((long) t * SLICE, SLICE);
            for (int i = 0; i < OPS; i++) {
                r.track(enqueueOp(s, slice, i));
            }
        });
        checkRecord(r, Map.of(s, THREADS * OPS));
        assertArrayEquals(filled(THREADS * SLICE, expectedFinal()), readInts(s, b));
    }

    @Test
    void manyThreadsOnSeveralStreams() throws Exception {
        int streams = 4;
        List<DeviceStream> ss = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            ss.add(ctx.createStream());
        }
        DeviceBuffer b = intBuffer(ctx, filled(THREADS * SLICE, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        Record r = new Record();
        for (DeviceStream s : ss) {
            r.track(s.waitFor(gate));
        }
        onThreads(t -> {
            DeviceStream s = ss.get(t % streams);
            DeviceBuffer slice = b.slice((long) t * SLICE, SLICE);
            for (int i = 0; i < OPS; i++) {
                r.track(enqueueOp(s, slice, i));
            }
        });
        gate.complete(null);
        Map<DeviceStream, Integer> expected = new java.util.HashMap<>();
        for (DeviceStream s : ss) {
            expected.put(s, THREADS / streams * OPS + 1);
        }
        checkRecord(r, expected);
        for (DeviceStream s : ss) {
            assertCompletedInSequenceOrder(r, s);
        }
        for (DeviceStream s : ss) {
            ctx.stream().waitFor(s);
        }
        assertArrayEquals(filled(THREADS * SLICE, expectedFinal()), readInts(ctx.stream(), b));
    }

    @Test
    void eachThreadWithItsOwnLiveStream() throws Exception {
        List<DeviceStream> ss = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            ss.add(ctx.createStream());
        }
        DeviceBuffer b = intBuffer(ctx, filled(THREADS * SLICE, 0));
        Record r = new Record();
        onThreads(t -> {
            DeviceStream s = ss.get(t);
            DeviceBuffer slice = b.slice((long) t * SLICE, SLICE);
            for (int i = 0; i < OPS; i++) {
                r.track(enqueueOp(s, slice, i));
            }
        });
        Map<DeviceStream, Integer> expected = new java.util.HashMap<>();
        for (DeviceStream s : ss) {
            expected.put(s, OPS);
        }
        checkRecord(r, expected);
        for (int t = 0; t < THREADS; t++) {
            assertArrayEquals(filled(SLICE, expectedFinal()), readInts(ss.get(t), b.slice((long) t * SLICE, SLICE)));
        }
    }

    @Test
    void streamsAndBuffersCreatedAndClosedFromManyThreads() throws Exception {
        AtomicInteger done = new AtomicInteger();
        onThreads(t -> {
            for (int i = 0; i < 50; i++) {
                try (DeviceStream s = ctx.createStream()) {
                    DeviceBuffer b = s.enqueueAllocate(DType.I32, 32);
                    s.enqueueFill(b, t * 1000 + i);
                    int[] out = new int[32];
                    await(s.enqueueCopy(b, HostData.of(out)));
                    if (out[31] != t * 1000 + i) {
                        throw new AssertionError("thread " + t + " round " + i + " read " + out[31]);
                    }
                    await(s.enqueueFree(b));
                }
                done.incrementAndGet();
            }
        });
        assertEquals(THREADS * 50, done.get());
        assertTrue(ctx.memoryInfo().free() <= ctx.memoryInfo().total());
        assertStreamUsable(ctx.stream());
    }
}
