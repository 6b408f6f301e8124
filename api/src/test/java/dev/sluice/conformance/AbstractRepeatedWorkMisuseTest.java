package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceStream;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import dev.sluice.kernel.Kernels;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Repeated work used as a careless or hostile caller would: bodies that throw what Java does not declare, re-enter,
 * close what they run on, capture, block; closes from other threads and from many at once; calls after close. Every
 * backend must refuse or finish such calls with the documented exception, never hang, lose a future or leave the stream
 * recording.
 */
public abstract class AbstractRepeatedWorkMisuseTest extends ConformanceBase {

    private static final int N = 64;
    private static final Duration HANG = Duration.ofSeconds(WAIT_SECONDS);

    private RepeatedWork work(DeviceStream s) {
        return closeLater(s.repeatedWork());
    }

    @Test
    void aBodyThatThrowsACheckedExceptionFailsItsFuturesAndLeavesTheStreamRecordingNothing() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 1)));
        RepeatedWork w = work(s);
        List<DeviceFuture<Void>> recorded = new ArrayList<>();
        IOException thrown = new IOException("read failed");
        Exception e = assertThrows(Exception.class, () -> w.enqueue(c -> {
            recorded.add(c.enqueueFill(v, 7));
            throwUnchecked(thrown);
        }));
        assertSame(thrown, e, "the body's exception leaves enqueue as it was thrown");
        assertInstanceOf(IllegalStateException.class, awaitFailure(recorded.get(0)), "the recorded fill never runs");
        assertArrayEquals(filled(N, 1), readInts(s, v), "nothing of the call ran, and the stream records nothing");
        await(w.enqueue(c -> c.enqueueFill(v, 8)));
        assertEquals(1, w.replays(), "the work records and replays again");
        assertArrayEquals(filled(N, 8), readInts(s, v));
    }

    @Test
    void aBodyThatCallsItsOwnWorkIsRefusedThereAndTheOuterCallRuns() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = work(s);
        DeviceFuture<Void> whole = assertTimeoutPreemptively(HANG, () -> w.enqueue(c -> {
            c.enqueueFill(v, 2);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.enqueue(x -> x.enqueueFill(v, 3)));
            assertTrue(e.getMessage().contains("recording"), e.getMessage());
            c.enqueueFill(v.slice(0, 1), 4);
        }));
        assertNull(await(whole));
        int[] expected = filled(N, 2);
        expected[0] = 4;
        assertArrayEquals(expected, readInts(s, v));
        assertEquals(1, w.replays());
    }

    @Test
    void aBodyThatClosesItsStreamFailsTheCallAndItsFutures() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = work(s);
        List<DeviceFuture<Void>> recorded = new ArrayList<>();
        assertTimeoutPreemptively(HANG, () -> assertThrows(ClosedResourceException.class, () -> w.enqueue(c -> {
            recorded.add(c.enqueueFill(v, 5));
            s.close();
        })));
        assertInstanceOf(ClosedResourceException.class, awaitFailure(recorded.get(0)));
        assertArrayEquals(filled(N, 0), readInts(ctx.stream(), v), "nothing of the call ran");
        assertThrows(ClosedResourceException.class, () -> w.enqueue(c -> { }));
    }

    @Test
    void aBodyThatClosesItsContextFailsTheCallAndItsFutures() {
        DeviceContext c = open(ContextOptions.defaults());
        DeviceStream s = c.createStream();
        DeviceBuffer v = c.allocate(DType.I32, N);
        RepeatedWork w = s.repeatedWork();
        List<DeviceFuture<Void>> recorded = new ArrayList<>();
        assertTimeoutPreemptively(HANG, () -> assertThrows(ClosedResourceException.class, () -> w.enqueue(x -> {
            recorded.add(x.enqueueFill(v, 5));
            c.close();
        })));
        assertInstanceOf(ClosedResourceException.class, awaitFailure(recorded.get(0)));
        w.close();
        w.close();
        assertTrue(w.isClosed());
    }

    @Test
    void closingTheStreamOnAnotherThreadWhileABodyRunsFailsTheCallInsteadOfHanging() throws Exception {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = work(s);
        List<DeviceFuture<Void>> recorded = new ArrayList<>();
        assertTimeoutPreemptively(HANG, () -> assertThrows(ClosedResourceException.class, () -> w.enqueue(c -> {
            recorded.add(c.enqueueFill(v, 5));
            CompletableFuture.runAsync(s::close, Thread::startVirtualThread).join();
        })));
        assertInstanceOf(ClosedResourceException.class, awaitFailure(recorded.get(0)));
        assertArrayEquals(filled(N, 0), readInts(ctx.stream(), v));
    }

    @Test
    void closingTheWorkOnAnotherThreadWaitsForTheCallInProgressWhichRuns() throws Exception {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = work(s);
        CountDownLatch inBody = new CountDownLatch(1);
        CountDownLatch closeCalled = new CountDownLatch(1);
        CompletableFuture<Void> closer = CompletableFuture.runAsync(() -> {
            try {
                inBody.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closeCalled.countDown();
            w.close();
        }, Thread::startVirtualThread);
        DeviceFuture<Void> whole = assertTimeoutPreemptively(HANG, () -> w.enqueue(c -> {
            c.enqueueFill(v, 6);
            inBody.countDown();
            try {
                closeCalled.await();
                Thread.sleep(50); // the close is waiting now, or about to
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertTrue(!closer.isDone(), "the close waits for the call in progress");
            c.enqueueFill(v.slice(0, 1), 7);
        }));
        closer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNull(await(whole));
        int[] expected = filled(N, 6);
        expected[0] = 7;
        assertArrayEquals(expected, readInts(s, v), "the call submitted before the close ran");
        assertTrue(w.isClosed());
        assertThrows(ClosedResourceException.class, () -> w.enqueue(c -> { }));
    }

    @Test
    void closeFromManyThreadsAtOnceClosesOnceWithoutErrors() throws Exception {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 1)));
        RepeatedWork w = work(s);
        for (int call = 0; call < 5; call++) {
            w.enqueue(c -> c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) N, 1, 1));
        }
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<CompletableFuture<Void>> closes = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            closes.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                w.close();
            }, Thread::startVirtualThread));
        }
        for (CompletableFuture<Void> c : closes) {
            c.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        assertTrue(w.isClosed());
        assertArrayEquals(filled(N, 6), readInts(s, v), "the launches enqueued before the close all ran");
    }

    @Test
    void twoThreadsCallsOfOneWorkAreSerialisedAndEachRunsWhole() throws Exception {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = work(s);
        int calls = 200;
        CyclicBarrier start = new CyclicBarrier(2);
        List<CompletableFuture<Void>> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            threads.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < calls; i++) {
                    w.enqueue(c -> {
                        c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) N, 1, 1);
                        c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), v, (long) N, 1, 1);
                    });
                }
            }, Thread::startVirtualThread));
        }
        for (CompletableFuture<Void> t : threads) {
            t.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        assertArrayEquals(filled(N, 4 * calls), readInts(s, v), "every call's launches ran, none lost");
        assertEquals(2L * calls, w.replays() + w.fallbacks(), "each call ran once");
    }

    @Test
    void aBodyThatCallsAnotherWorkOfItsStreamFallsBackAndBothCallsRunInOrder() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork outer = work(s);
        RepeatedWork inner = work(s);
        for (int call = 1; call <= 2; call++) {
            int k = call;
            DeviceFuture<Void> whole = assertTimeoutPreemptively(HANG, () -> outer.enqueue(c -> {
                c.enqueueFill(v, 10 * k);
                inner.enqueue(x -> x.enqueueFill(v.slice(0, 2), 10 * k + 1)); // after the fill above
                c.enqueueFill(v.slice(0, 1), 10 * k + 2);                      // after the inner call
            }));
            assertNull(await(whole));
            int[] expected = filled(N, 10 * k);
            expected[0] = 10 * k + 2;
            expected[1] = 10 * k + 1;
            assertArrayEquals(expected, readInts(s, v), "call " + k);
        }
        assertEquals(2, outer.fallbacks(), "the outer calls fall back where the inner one begins");
        assertEquals(2, inner.replays(), "the inner calls record and replay");
    }

    @Test
    void aBodyThatCapturesItsStreamFallsBackAndTheCapturedGraphReplays() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        DeviceBuffer u = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = work(s);
        List<DeviceGraph> graphs = new ArrayList<>();
        DeviceFuture<Void> whole = assertTimeoutPreemptively(HANG, () -> w.enqueue(c -> {
            c.enqueueFill(v, 1);
            graphs.add(c.capture(g -> g.enqueueFill(u, 9)));
            c.enqueueFill(v.slice(0, 1), 2);
        }));
        assertNull(await(whole));
        assertEquals(1, w.fallbacks(), "a capture in the body makes the call fall back");
        int[] expected = filled(N, 1);
        expected[0] = 2;
        assertArrayEquals(expected, readInts(s, v));
        assertArrayEquals(filled(N, 0), readInts(s, u), "captured, not run");
        try (DeviceGraph g = graphs.get(0)) {
            await(g.enqueueLaunch(s));
        }
        assertArrayEquals(filled(N, 9), readInts(s, u));
        await(w.enqueue(c -> c.enqueueFill(v, 3)));
        assertEquals(1, w.replays(), "the next call records again");
    }

    @Test
    void aBodyThatSynchronizesItsStreamFallsBackInsteadOfHanging() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = work(s);
        List<DeviceFuture<Void>> recorded = new ArrayList<>();
        DeviceFuture<Void> whole = assertTimeoutPreemptively(HANG, () -> w.enqueue(c -> {
            recorded.add(c.enqueueFill(v, 4));
            c.synchronize();
            assertTrue(recorded.get(0).isDone(), "the synchronize waited for the fill, submitted by it");
        }));
        assertNull(await(whole));
        assertEquals(1, w.fallbacks());
        assertArrayEquals(filled(N, 4), readInts(s, v));
    }

    @Test
    void workABodyEnqueuesOnAnotherStreamIsSubmittedAtOnceBeforeTheRecordedWork() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = work(s);
        DeviceFuture<Void> whole = assertTimeoutPreemptively(HANG, () -> w.enqueue(c -> {
            c.enqueueFill(v, 1); // recorded: submitted when the body returns
            assertNull(await(other.enqueueFill(v, 2))); // another stream's work runs at once, and may be waited for
        }));
        assertNull(await(whole));
        assertEquals(1, w.replays(), "another stream's enqueue does not make the call fall back");
        assertArrayEquals(filled(N, 1), readInts(s, v), "the recorded fill is ordered after the other stream's");
    }

    @Test
    void callsAfterCloseAreRefusedAndItsCountersStayReadable() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = closeLater(intBuffer(ctx, filled(N, 0)));
        RepeatedWork w = s.repeatedWork();
        await(w.enqueue(c -> c.enqueueFill(v, 1)));
        w.close();
        assertThrows(ClosedResourceException.class, () -> w.enqueue(c -> c.enqueueFill(v, 2)));
        assertSame(w, w.fuseElementwise(false), "a switch after close changes nothing and throws nothing");
        assertEquals(1, w.replays());
        assertEquals(1, w.builds());
        assertEquals(0, w.fallbacks());
        assertSame(s, w.stream());
        assertTrue(w.toString().contains("RepeatedWork"), w.toString());
        assertArrayEquals(filled(N, 1), readInts(s, v));
        assertStreamUsable(s);
    }

    @Test
    void repeatedWorkOfAClosedStreamOrContextIsRefusedNamingIt() {
        DeviceStream s = ctx.createStream();
        s.close();
        ClosedResourceException e = assertThrows(ClosedResourceException.class, s::repeatedWork);
        assertTrue(e.getMessage().contains(s.toString()), e.getMessage());
        DeviceContext c = open(ContextOptions.defaults());
        DeviceStream t = c.createStream();
        c.close();
        assertThrows(ClosedResourceException.class, t::repeatedWork);
        assertThrows(ClosedResourceException.class, () -> c.stream().repeatedWork());
    }

    @Test
    void fusionSwitchedOffInsideABodyAppliesToThatCall() {
        DeviceFunction twice = fn(Kernels.elementwise("twice").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I32)).body("y = x * 2").build());
        DeviceStream s = ctx.createStream();
        DeviceBuffer a = closeLater(intBuffer(ctx, iota(N, 1)));
        DeviceBuffer b = closeLater(ctx.allocate(DType.I32, N));
        RepeatedWork w = work(s);
        await(w.enqueue(c -> {
            c.enqueueLaunch(twice, LaunchConfig.forElements(N), a, b, (long) N);
            c.enqueueLaunch(twice, LaunchConfig.forElements(N), b, b, (long) N);
            w.fuseElementwise(false); // read when the call is submitted: after the body
        }));
        assertEquals(0, w.fusedLaunches());
        await(w.enqueue(c -> {
            w.fuseElementwise(true);
            c.enqueueLaunch(twice, LaunchConfig.forElements(N), a, b, (long) N);
            c.enqueueLaunch(twice, LaunchConfig.forElements(N), b, b, (long) N);
        }));
        assertEquals(2, w.fusedLaunches());
        int[] expected = iota(N, 1);
        for (int i = 0; i < N; i++) {
            expected[i] *= 4;
        }
        assertArrayEquals(expected, readInts(s, b));
        assertEquals(2, w.builds(), "the other setting's plan built a graph of its own");
    }
}
