package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Repeated work ({@link DeviceStream#repeatedWork()}): recorded, launched as one graph, updated while its shape stays
 * the same. Every backend must give the results of plain enqueues, and replay what a graph describes: CUDA, HIP and the
 * CPU simulator build updatable graphs.
 */
public abstract class AbstractRepeatedWorkTest extends ConformanceBase {

    private static final int N = 256;

    private RepeatedWork work(DeviceStream s) {
        return closeLater(s.repeatedWork());
    }

    /** Every call of {@code w} so far must have been one graph launch, on every backend (CUDA, HIP, the simulator). */
    private static void assertReplayed(RepeatedWork w, long calls, long builds) {
        assertEquals(0, w.fallbacks(), "no call fell back");
        assertEquals(calls, w.replays(), "one graph launch per call");
        assertEquals(builds, w.builds(), "graphs built");
    }

    /** Call {@code i}'s work: two launches, a fill and a copy, on buffers and values that change from call to call. */
    private static void chunk(DeviceStream s, DeviceFunction mulAdd, int i, DeviceBuffer[] in, DeviceBuffer[] out,
            DeviceBuffer scratch) {
        DeviceBuffer v = in[i % in.length];
        s.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) N, 2 + i % 3, i);
        s.enqueueFill(scratch, i * 7);
        s.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) (N - i % 5), 1, i % 11);
        s.enqueueCopy(v, out[i % out.length]);
    }

    @Test
    void replaysEqualPlainEnqueuesBitForBitWithChangingScalarsAndBuffers() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer[] in = {intBuffer(ctx, iota(N, 0)), intBuffer(ctx, iota(N, 5))};
        DeviceBuffer[] out = {intBuffer(ctx, filled(N, 0)), intBuffer(ctx, filled(N, 0)), intBuffer(ctx, filled(N, 0))};
        DeviceBuffer scratch = intBuffer(ctx, filled(N, 0));
        DeviceBuffer[] plainIn = {intBuffer(ctx, iota(N, 0)), intBuffer(ctx, iota(N, 5))};
        DeviceBuffer[] plainOut = {intBuffer(ctx, filled(N, 0)), intBuffer(ctx, filled(N, 0)), intBuffer(ctx, filled(N, 0))};
        DeviceBuffer plainScratch = intBuffer(ctx, filled(N, 0));
        RepeatedWork w = work(s);
        int calls = 60;
        for (int i = 0; i < calls; i++) {
            int call = i;
            w.enqueue(c -> chunk(c, mulAdd, call, in, out, scratch));
            chunk(s, mulAdd, call, plainIn, plainOut, plainScratch);
        }
        for (int k = 0; k < in.length; k++) {
            assertArrayEquals(readInts(s, plainIn[k]), readInts(s, in[k]), "input " + k);
        }
        for (int k = 0; k < out.length; k++) {
            assertArrayEquals(readInts(s, plainOut[k]), readInts(s, out[k]), "output " + k);
        }
        assertArrayEquals(readInts(s, plainScratch), readInts(s, scratch), "scratch");
        assertReplayed(w, calls, 1);
    }

    @Test
    void aChangeOfShapeBuildsANewGraphAndTheSameShapeUpdatesIt() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(64, 1));
        RepeatedWork w = work(s);
        Consumer<DeviceStream> two = c -> {
            c.enqueueLaunch(mulAdd, LaunchConfig.forElements(64), v, 64L, 2, 0);
            c.enqueueLaunch(mulAdd, LaunchConfig.forElements(64), v, 64L, 1, 1);
        };
        Consumer<DeviceStream> three = c -> {
            two.accept(c);
            c.enqueueLaunch(mulAdd, LaunchConfig.forElements(64), v, 64L, 1, -1);
        };
        await(w.enqueue(two)); // 1 -> 2 -> 3
        await(w.enqueue(three)); // 3 -> 6 -> 7 -> 6: a new graph
        await(w.enqueue(three)); // 6 -> 12 -> 13 -> 12: updated
        await(w.enqueue(c -> c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 64), v, 64L, 2, 0))); // another config: 24
        assertArrayEquals(filled(64, 24), readInts(s, v));
        assertReplayed(w, 4, 3);
    }

    @Test
    void theGraphsOfTheLastFourShapesAreKeptAndReplayed() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(64, 0));
        RepeatedWork w = work(s);
        // Shape k: k launches, each adding one, so that every call's result shows that all of it ran.
        int[] shapes = {1, 2, 1, 2, 1, 3, 4, 1, 5, 2};
        long[] builds = {1, 2, 2, 2, 2, 3, 4, 4, 5, 6}; // 5 is a fifth shape: 2, launched least recently, goes
        int total = 0;
        for (int call = 0; call < shapes.length; call++) {
            int launches = shapes[call];
            await(w.enqueue(c -> {
                for (int k = 0; k < launches; k++) {
                    c.enqueueLaunch(mulAdd, LaunchConfig.forElements(64), v, 64L, 1, 1);
                }
            }));
            total += launches;
            assertArrayEquals(filled(64, total), readInts(s, v), "after call " + call);
            assertReplayed(w, call + 1, builds[call]);
        }
    }

    @Test
    void anOperationNoGraphDescribesFallsBackWithTheSameResults() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(16, 0));
        RepeatedWork w = work(s);
        List<DeviceFuture<?>> futures = new ArrayList<>();
        DeviceFuture<Void> f = w.enqueue(c -> {
            futures.add(c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), v, 16L, 1, 3)); // recorded: 3
            futures.add(c.enqueueCopy(HostData.of(iota(16, 10)), v)); // a host copy: falls back, after the launch
            futures.add(c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), v, 16L, 2, 0)); // plain
        });
        await(f);
        for (DeviceFuture<?> d : futures) {
            assertTrue(d.isDone() && !d.isCompletedExceptionally(), "every operation of the call completed: " + d);
        }
        int[] expected = iota(16, 10);
        for (int i = 0; i < 16; i++) {
            expected[i] *= 2;
        }
        assertArrayEquals(expected, readInts(s, v));
        assertEquals(1, w.fallbacks(), "the call fell back");
        assertEquals(0, w.replays());
        await(w.enqueue(c -> c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), v, 16L, 1, 1)));
        for (int i = 0; i < 16; i++) {
            expected[i] += 1;
        }
        assertArrayEquals(expected, readInts(s, v), "the next call runs as recorded");
    }

    @Test
    void copiesWithPinnedAndRegisteredHostMemoryAreReplayedAndSeeEachCallsHostData() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        HostBuffer[] hostIn = {closeLater(ctx.allocateHost(DType.I32, N)), closeLater(ctx.allocateHost(DType.I32, N))};
        java.lang.foreign.Arena arena = closeLater(java.lang.foreign.Arena.ofShared());
        HostBuffer hostOut = closeLater(ctx.registerHost(arena.allocate(4L * N, 4096), DType.I32));
        DeviceBuffer v = ctx.allocate(DType.I32, N);
        RepeatedWork w = work(s);
        List<DeviceFuture<?>> futures = new ArrayList<>();
        int calls = 12;
        for (int i = 0; i < calls; i++) {
            HostBuffer in = hostIn[i % 2];
            for (int k = 0; k < N; k++) {
                in.setInt(k, k + i); // the host's data of this call, written while the last call's graph is done with it
            }
            int call = i;
            await(w.enqueue(c -> {
                futures.add(c.enqueueCopy(in, v));
                futures.add(c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) N, 3, call));
                futures.add(c.enqueueCopy(v, hostOut));
            }));
            for (int k = 0; k < N; k++) {
                assertEquals((k + i) * 3 + i, hostOut.getInt(k), "call " + i + ", element " + k);
            }
        }
        for (DeviceFuture<?> f : futures) {
            assertTrue(f.isDone() && !f.isCompletedExceptionally(), "every operation of the calls completed: " + f);
        }
        assertReplayed(w, calls, 1);
        HostBuffer closedInBody = ctx.allocateHost(DType.I32, N);
        List<DeviceFuture<?>> recorded = new ArrayList<>();
        await(w.enqueue(c -> {
            recorded.add(c.enqueueCopy(v, closedInBody));
            closedInBody.close(); // after the copy was recorded: the copy runs as if enqueued, then the memory is freed
        }));
        assertTrue(recorded.get(0).isDone() && !recorded.get(0).isCompletedExceptionally(), "the recorded copy ran");
        await(closedInBody.whenReleased().toCompletableFuture());
        assertRejected(ClosedResourceException.class, s, () -> w.enqueue(c -> c.enqueueCopy(v, closedInBody)), "closed");
    }

    @Test
    void badInputIsRefusedAtTheCallNamingTheArgumentWithNothingEnqueued() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(16, 5));
        RepeatedWork w = work(s);
        List<DeviceFuture<?>> recorded = new ArrayList<>();
        InvalidArgumentException e = assertInvalid("arguments", s, () -> w.enqueue(c -> {
            recorded.add(c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), v, 16L, 3, 0));
            c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), v, 16L, 3); // one argument short
        }));
        assertInstanceOf(IllegalStateException.class, awaitFailure(recorded.get(0)), "the recorded launch never runs");
        assertTrue(e.getMessage().contains("4"), e.getMessage());
        assertArrayEquals(filled(16, 5), readInts(s, v), "nothing of the call ran");
        await(w.enqueue(c -> c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), v, 16L, 3, 0)));
        assertArrayEquals(filled(16, 15), readInts(s, v), "the work is usable after a refused call");
        assertInvalid("body", s, () -> w.enqueue(null));
    }

    @Test
    void aBufferClosedBeforeTheCallIsRefusedAndOneClosedInTheBodyIsUsedThenFreed() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(16, 5));
        DeviceBuffer closed = ctx.allocate(DType.I32, 16);
        closed.close();
        RepeatedWork w = work(s);
        assertRejected(ClosedResourceException.class, s,
                () -> w.enqueue(c -> c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), closed, 16L, 1, 1)), "closed");
        DeviceBuffer closedInBody = intBuffer(ctx, filled(16, 1));
        List<DeviceFuture<?>> recorded = new ArrayList<>();
        await(w.enqueue(c -> {
            recorded.add(c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), v, 16L, 2, 0));
            recorded.add(c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), closedInBody, 16L, 2, 1));
            recorded.add(c.enqueueCopy(closedInBody.slice(0, 1), v.slice(0, 1)));
            closedInBody.close(); // after its uses were recorded: they run as if enqueued, then the memory is freed
            ClosedResourceException e = assertThrows(ClosedResourceException.class,
                    () -> c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), closedInBody, 16L, 2, 0));
            assertTrue(e.getMessage().contains("arguments[0]"), "names the argument: " + e.getMessage());
        }));
        for (DeviceFuture<?> f : recorded) {
            assertTrue(f.isDone() && !f.isCompletedExceptionally(), "every recorded operation ran: " + f);
        }
        int[] expected = filled(16, 10);
        expected[0] = 3;
        assertArrayEquals(expected, readInts(s, v), "the call ran whole, the closed buffer's launch included");
        assertRejected(ClosedResourceException.class, s,
                () -> w.enqueue(c -> c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), closedInBody, 16L, 1, 1)), "closed");
        await(w.enqueue(c -> c.enqueueLaunch(mulAdd, LaunchConfig.of(1, 16), v, 16L, 2, 0)));
        expected = filled(16, 20);
        expected[0] = 6;
        assertArrayEquals(expected, readInts(s, v));
    }

    @Test
    void futuresOfTheBodyAndOfTheCallCompleteInOrderWithTheReplay() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(N, 0));
        RepeatedWork w = work(s);
        List<Integer> completions = new CopyOnWriteArrayList<>();
        List<DeviceFuture<?>> all = new ArrayList<>();
        for (int call = 0; call < 20; call++) {
            w.enqueue(c -> {
                for (int k = 0; k < 3; k++) {
                    DeviceFuture<Void> f = c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) N, 1, 1);
                    int index = all.size();
                    all.add(f);
                    f.thenRun(() -> completions.add(index));
                }
            });
            DeviceFuture<Void> whole = s.enqueueMarker();
            int index = all.size();
            all.add(whole);
            whole.thenRun(() -> completions.add(index));
        }
        for (DeviceFuture<?> f : all) {
            assertNull(await(f));
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            expected.add(i);
        }
        assertEquals(expected, completions, "futures complete in the order of their calls");
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i).sequence() > all.get(i - 1).sequence(), "sequences follow the calls");
        }
        assertArrayEquals(filled(N, 60), readInts(s, v));
    }

    @Test
    void anotherStreamWaitsForWhatAReplayWrites() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(16, 0));
        RepeatedWork w = work(s);
        for (int call = 1; call <= 5; call++) {
            int value = call;
            w.enqueue(c -> {
                slowFill(c, v, value, java.time.Duration.ofMillis(20));
                c.enqueueFill(v.slice(0, 1), value * 100);
            });
            int[] seen = new int[16];
            await(other.enqueueCopy(v, HostData.of(seen))); // automatic ordering: after the replay's writes
            int[] expected = filled(16, value);
            expected[0] = value * 100;
            assertArrayEquals(expected, seen, "call " + call);
        }
    }

    @Test
    void closingTheWorkTheBuffersTheStreamOrTheContextWithReplaysPendingIsSafe() {
        DeviceContext c = open(ContextOptions.defaults());
        DeviceFunction mulAdd = fn(c, TestKernels.MUL_ADD);
        DeviceStream s = c.createStream();
        DeviceBuffer v = intBuffer(c, filled(N, 1));
        DeviceBuffer scratch = c.allocate(DType.I32, N);
        RepeatedWork w = s.repeatedWork();
        List<DeviceFuture<Void>> pending = new ArrayList<>();
        for (int call = 0; call < 30; call++) {
            pending.add(w.enqueue(x -> {
                slowFill(x, scratch, 3, java.time.Duration.ofMillis(1));
                x.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) N, 1, 1);
            }));
        }
        scratch.close(); // freed after the replays that use it
        w.close();
        w.close();
        assertThrows(ClosedResourceException.class, () -> w.enqueue(x -> { }));
        for (DeviceFuture<Void> f : pending) {
            await(f); // every launch ran, on memory that was still there
        }
        assertArrayEquals(filled(N, 31), readInts(s, v));
        RepeatedWork again = s.repeatedWork();
        for (int call = 0; call < 30; call++) {
            again.enqueue(x -> x.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) N, 1, 1));
        }
        s.close(); // waits for them
        c.close(); // the native graph goes with the context
        again.close();
        assertTrue(again.isClosed());
    }

    @Test
    void twoThreadsRepeatedWorksCannotRecordOnOneStreamAtOnce() throws Exception {
        DeviceStream s = ctx.createStream();
        RepeatedWork w = work(s);
        RepeatedWork other = work(s);
        java.util.concurrent.CompletableFuture<Throwable> refused = new java.util.concurrent.CompletableFuture<>();
        await(w.enqueue(c -> {
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    other.enqueue(x -> { });
                    refused.complete(null);
                } catch (Throwable e) {
                    refused.complete(e);
                }
            });
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertInstanceOf(IllegalStateException.class, refused.get(10, java.util.concurrent.TimeUnit.SECONDS),
                "another thread's repeated work cannot record on the stream while a body does");
        await(other.enqueue(c -> { }));
        await(w.enqueue(c -> { }));
    }

    @Test
    void aWaitInsideTheBodyForWhatItRecordedIsRefusedNotHung() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(N, 0));
        RepeatedWork w = work(s);
        List<DeviceFuture<Void>> recorded = new ArrayList<>();
        DeviceFuture<Void> whole = w.enqueue(c -> {
            DeviceFuture<Void> f = c.enqueueFill(v, 9);
            recorded.add(f);
            IllegalStateException e = assertThrows(IllegalStateException.class, f::join);
            assertTrue(e.getMessage().contains("repeated work"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> f.get(1, java.util.concurrent.TimeUnit.SECONDS));
        });
        assertNull(await(whole));
        assertNull(await(recorded.get(0)));
        assertArrayEquals(filled(N, 9), readInts(s, v));
    }

    @Test
    void anotherStreamsWaitForARecordedFutureIsRefusedInTheBodyAndOrdersAfterIt() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(N, 0));
        DeviceBuffer copy = intBuffer(ctx, filled(N, 0));
        RepeatedWork w = work(s);
        for (int call = 1; call <= 3; call++) {
            int value = call;
            List<DeviceFuture<Void>> recorded = new ArrayList<>();
            w.enqueue(c -> {
                DeviceFuture<Void> f = c.enqueueFill(v, value);
                recorded.add(f);
                // Until the body returns the fill has no place in the stream's order: a device-side wait for it would
                // order nothing, so it is refused rather than let the copy below read the buffer too early.
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> other.waitFor(f));
                assertTrue(e.getMessage().contains("waitFor(future)"), e.getMessage());
                assertNull(await(c.enqueueMarker())); // a marker falls back: the fill is submitted, and the wait ends
            });
            other.waitFor(recorded.get(0));
            other.enqueueCopy(v, copy);
            assertArrayEquals(filled(N, value), readInts(other, copy), "call " + call);
        }
    }

    @Test
    void anotherThreadsEnqueueWhileTheBodyRunsIsSubmittedInOrderNotRecorded() throws Exception {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(N, 0));
        RepeatedWork w = work(s);
        DeviceFuture<Void> whole = w.enqueue(c -> {
            c.enqueueFill(v, 4);
            java.util.concurrent.CompletableFuture<DeviceFuture<Void>> theirs = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> s.enqueueFill(v.slice(0, 1), 5));
            DeviceFuture<Void> f = theirs.join();
            assertNull(await(f)); // submitted at once, after the fill recorded before it: joinable on any thread
            c.enqueueFill(v.slice(1, 1), 6);
        });
        assertNull(await(whole));
        assertEquals(1, w.fallbacks(), "the other thread's enqueue made the call fall back");
        int[] expected = filled(N, 4);
        expected[0] = 5;
        expected[1] = 6;
        assertArrayEquals(expected, readInts(s, v));
    }

    @Test
    void aBodyThatClosesItsWorkStillRunsAndBuildsNoGraph() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(N, 0));
        RepeatedWork w = work(s);
        DeviceFuture<Void> whole = w.enqueue(c -> {
            c.enqueueFill(v, 3);
            c.enqueueFill(v.slice(0, 1), 4);
            w.close();
        });
        assertNull(await(whole));
        assertEquals(0, w.builds(), "no graph built for a closed work, which nothing would destroy");
        assertEquals(1, w.fallbacks());
        int[] expected = filled(N, 3);
        expected[0] = 4;
        assertArrayEquals(expected, readInts(s, v));
        assertThrows(ClosedResourceException.class, () -> w.enqueue(c -> { }));
    }
}
