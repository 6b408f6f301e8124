package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Api;
import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import dev.sluice.UnsupportedOnBackendException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Graph capture and replay. A backend that cannot capture throws {@link UnsupportedOnBackendException} and
 * the tests are skipped with that reason, except on the CPU backend, which must capture.
 */
public abstract class AbstractGraphTest extends ConformanceBase {

    private DeviceGraph captureOrSkip(DeviceStream s, Consumer<DeviceStream> body) {
        try {
            return closeLater(s.capture(body));
        } catch (UnsupportedOnBackendException e) {
            if (target().api() == Api.CPU) {
                fail("the CPU backend must support stream capture", e);
            }
            Assumptions.abort("stream capture is not supported on " + s.context().backendName() + ": " + e.getMessage());
            throw e;
        }
    }

    @Test
    void capturedWorkRunsOnlyWhenTheGraphIsLaunched() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(64, 1));
        List<DeviceFuture<?>> during = new ArrayList<>();
        DeviceGraph g = captureOrSkip(s, c -> {
            during.add(c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), v, 64L, 2, 0));
            during.add(c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), v, 64L, 1, 1));
        });
        for (DeviceFuture<?> f : during) {
            assertInstanceOf(IllegalStateException.class, awaitFailure(f), "captured operations do not run at capture");
        }
        assertArrayEquals(filled(64, 1), readInts(s, v), "capturing runs nothing");
        await(g.enqueueLaunch(s));
        assertArrayEquals(filled(64, 3), readInts(s, v), "one replay: 1 * 2 + 1");
        g.enqueueLaunch(s);
        g.enqueueLaunch(s);
        assertArrayEquals(filled(64, 15), readInts(s, v), "two more replays: 3 -> 7 -> 15");
    }

    @Test
    void graphReplaysOnAnyStreamOfItsContextInThatStreamsOrder() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(16, 0));
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.of(1, 16), v, 16L, 1, 4));
        other.enqueueFill(v, 10);
        g.enqueueLaunch(other);
        other.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.of(1, 16), v, 16L, 3, 0);
        assertArrayEquals(filled(16, 42), readInts(other, v), "(10 + 4) * 3");
    }

    @Test
    void capturedCopiesAndFillsReplay() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer a = intBuffer(ctx, iota(8, 0));
        DeviceBuffer b = intBuffer(ctx, filled(8, 0));
        DeviceGraph g = captureOrSkip(s, c -> {
            c.enqueueCopy(a, b);
            c.enqueueFill(a.slice(0, 4), -1);
        });
        assertArrayEquals(filled(8, 0), readInts(s, b));
        await(g.enqueueLaunch(s));
        assertArrayEquals(iota(8, 0), readInts(s, b));
        assertArrayEquals(new int[] {-1, -1, -1, -1, 4, 5, 6, 7}, readInts(s, a));
    }

    /**
     * copy → kernel → copy → host function → copy, replayed ten times: the host function runs once per replay, after
     * the download before it (it sees this replay's kernel result) and before the upload after it (which uploads what it
     * wrote into pinned memory), and what it writes feeds the next replay's first upload.
     */
    @Test
    void hostFunctionInAGraphRunsOncePerReplayBetweenTheCopiesAroundIt() {
        int n = 256;
        DeviceStream s = ctx.createStream();
        HostBuffer in = closeLater(ctx.allocateHost(DType.I32, n));
        HostBuffer mid = closeLater(ctx.allocateHost(DType.I32, n));
        HostBuffer staged = closeLater(ctx.allocateHost(DType.I32, n));
        DeviceBuffer d = closeLater(ctx.allocate(DType.I32, n));
        DeviceBuffer e = closeLater(ctx.allocate(DType.I32, n));
        for (int i = 0; i < n; i++) {
            in.setInt(i, i);
        }
        AtomicInteger runs = new AtomicInteger();
        List<String> wrong = new CopyOnWriteArrayList<>();
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceGraph g = captureOrSkip(s, c -> {
            c.enqueueCopy(in, d);
            c.enqueueLaunch(mulAdd, LaunchConfig.forElements(n), d, (long) n, 2, 1);
            c.enqueueCopy(d, mid);
            c.enqueueHostFunction(() -> {
                int k = runs.incrementAndGet();
                for (int i = 0; i < n; i++) {
                    int expected = (i + (k - 1) * 1000) * 2 + 1;
                    if (mid.getInt(i) != expected) {
                        wrong.add("replay " + k + ": mid[" + i + "] = " + mid.getInt(i) + ", expected " + expected);
                        break;
                    }
                }
                for (int i = 0; i < n; i++) {
                    staged.setInt(i, mid.getInt(i) * 10 + k);
                    in.setInt(i, i + k * 1000); // the next replay's first upload
                }
            });
            c.enqueueCopy(staged, e);
        });
        assertEquals(0, runs.get(), "capture runs no host function");
        for (int k = 1; k <= 10; k++) {
            await(g.enqueueLaunch(s));
            assertEquals(k, runs.get(), "host function runs exactly once per replay");
            int[] got = readInts(s, e);
            for (int i = 0; i < n; i++) {
                int expected = ((i + (k - 1) * 1000) * 2 + 1) * 10 + k;
                if (got[i] != expected) {
                    fail("replay " + k + ": e[" + i + "] = " + got[i] + ", expected " + expected);
                }
            }
        }
        assertEquals(List.of(), wrong, "the host function saw the kernel result of its own replay");
    }

    @Test
    void replaysEnqueuedBackToBackRunTheirHostStepsInReplayOrder() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(16, 0));
        HostBuffer seen = closeLater(ctx.allocateHost(DType.I32, 16));
        List<Integer> order = new CopyOnWriteArrayList<>();
        DeviceGraph g = captureOrSkip(s, c -> {
            c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(16), v, 16L, 1, 1);
            c.enqueueCopy(v, seen);
            c.enqueueHostFunction(() -> order.add(seen.getInt(0)));
            c.enqueueHostFunction(() -> order.add(-seen.getInt(0)));
        });
        List<DeviceFuture<Void>> replays = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            replays.add(g.enqueueLaunch(k % 2 == 0 ? s : other)); // one graph's replays run one after another
        }
        replays.forEach(ConformanceBase::await);
        List<Integer> expected = new ArrayList<>();
        for (int k = 1; k <= 10; k++) {
            expected.add(k);
            expected.add(-k);
        }
        assertEquals(expected, order, "each replay runs both steps once, in capture order, replays in launch order");
    }

    /** Without memory to order them by, replays of one graph on two streams still run one after another. */
    @Test
    void replaysOfAGraphOfHostStepsOnlyDoNotOverlapAcrossStreams() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        AtomicInteger started = new AtomicInteger();
        List<Integer> order = new CopyOnWriteArrayList<>();
        DeviceGraph g = captureOrSkip(s, c -> {
            c.enqueueHostFunction(() -> {
                int k = started.incrementAndGet();
                try {
                    Thread.sleep(5); // room for a replay on the other stream to overlap, were it allowed to
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                order.add(k);
            });
            c.enqueueHostFunction(() -> order.add(-started.get()));
        });
        List<DeviceFuture<Void>> replays = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            replays.add(g.enqueueLaunch(k % 2 == 0 ? s : other));
        }
        replays.forEach(ConformanceBase::await);
        List<Integer> expected = new ArrayList<>();
        for (int k = 1; k <= 10; k++) {
            expected.add(k);
            expected.add(-k);
        }
        assertEquals(expected, order);
    }

    @Test
    void aHostFunctionThatThrowsFailsItsReplayAndTheReplayGoesOn() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(8, 0));
        AtomicInteger runs = new AtomicInteger();
        IllegalStateException boom = new IllegalStateException("boom");
        DeviceGraph g = captureOrSkip(s, c -> {
            c.enqueueHostFunction(() -> {
                if (runs.incrementAndGet() == 1) {
                    throw boom;
                }
            });
            c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(8), v, 8L, 1, 1);
        });
        assertEquals(boom, awaitFailure(g.enqueueLaunch(s)), "the replay reports what its host function threw");
        assertArrayEquals(filled(8, 1), readInts(s, v), "the work after the host function still ran");
        await(g.enqueueLaunch(s));
        assertArrayEquals(filled(8, 2), readInts(s, v));
        assertFalse(ctx.isFaulted(), "a host step cannot fault the device");
        assertStreamUsable(s);
    }

    @Test
    void aHostFunctionInAGraphMayNotBlockOnItsContext() {
        DeviceStream s = ctx.createStream();
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueHostFunction(s::synchronize));
        Throwable t = awaitFailure(g.enqueueLaunch(s));
        assertInstanceOf(IllegalStateException.class, t);
        assertMentions(t, "DeviceStream.synchronize", "host function");
        assertStreamUsable(s);
    }

    @Test
    void aHostWaitInAGraphHoldsTheReplayUntilItsStageCompletes() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(8, 0));
        CompletableFuture<String> stage = new CompletableFuture<>();
        DeviceGraph g = captureOrSkip(s, c -> {
            c.waitFor(stage);
            c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(8), v, 8L, 1, 5);
        });
        DeviceFuture<Void> replay = g.enqueueLaunch(s);
        assertStaysPending(replay, 300, "the replay waits for the stage");
        stage.complete("go");
        await(replay);
        assertArrayEquals(filled(8, 5), readInts(s, v));
        await(g.enqueueLaunch(s)); // the stage has completed: later replays pass the wait at once
        assertArrayEquals(filled(8, 10), readInts(s, v));
    }

    @Test
    void aHostWaitOnAFailedStageFailsTheReplayWhichStillRuns() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(8, 0));
        IllegalArgumentException cause = new IllegalArgumentException("stage failed");
        DeviceGraph g = captureOrSkip(s, c -> {
            c.waitFor(CompletableFuture.failedFuture(cause));
            c.enqueueFill(v, 3);
        });
        assertEquals(cause, awaitFailure(g.enqueueLaunch(s)));
        assertArrayEquals(filled(8, 3), readInts(s, v));
    }

    @Test
    void closingTheContextReleasesAHostWaitOfAGraphAndLaterReplaysAreRefused() {
        DeviceContext other = open(ContextOptions.defaults());
        DeviceStream s = other.createStream();
        DeviceBuffer v = other.allocate(DType.I32, 4);
        DeviceGraph g = captureOrSkip(s, c -> {
            c.waitFor(new CompletableFuture<Void>()); // never completes
            c.enqueueFill(v, 1);
        });
        DeviceFuture<Void> replay = g.enqueueLaunch(s);
        assertStaysPending(replay, 100, "the replay waits for the stage");
        other.close(); // must not hang on the blocked step
        assertInstanceOf(ClosedResourceException.class, awaitFailure(replay));
        DeviceStream os = ctx.createStream();
        ClosedResourceException e = assertThrows(ClosedResourceException.class, () -> g.enqueueLaunch(s));
        assertMentions(e, "closed");
        assertThrows(ClosedResourceException.class, () -> g.enqueueLaunch(os), "a stream of another, open context");
    }

    @Test
    void aGraphWithHostStepsCannotBeLaunchedInsideACapture() {
        DeviceStream s = ctx.createStream();
        AtomicInteger runs = new AtomicInteger();
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueHostFunction(runs::incrementAndGet));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.capture(c -> g.enqueueLaunch(c)));
        assertMentions(e, "host steps", "capturing");
        assertStreamUsable(s);
        await(g.enqueueLaunch(s));
        assertEquals(1, runs.get(), "the refused launch left no replay behind: the next one runs its step as its own");
    }

    @Test
    void nullHostStepsAndStreamsAreRejectedAndTheCaptureRecovers() {
        DeviceStream s = ctx.createStream();
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueHostFunction(() -> { }));
        assertInvalid("body", s, () -> s.capture(null));
        assertInvalid("function", s, () -> s.capture(c -> c.enqueueHostFunction(null)));
        assertInvalid("stage", s, () -> s.capture(c -> c.waitFor((CompletionStage<?>) null)));
        assertInvalid("stream", s, () -> g.enqueueLaunch(null));
        assertStreamUsable(s);
        await(g.enqueueLaunch(s));
    }

    @Test
    void aBodyThatThrowsAnErrorOrAnUndeclaredCheckedExceptionEndsTheCapture() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(4, 1));
        captureOrSkip(s, c -> c.enqueueFill(v, 2)); // skips where the backend cannot capture
        AssertionError error = new AssertionError("from the body");
        assertSame(error, assertThrows(AssertionError.class, () -> s.capture(c -> {
            c.enqueueFill(v, 3);
            throw error;
        })));
        assertStreamUsable(s);
        Exception checked = new java.io.IOException("thrown undeclared, as a Kotlin body may");
        assertSame(checked, assertThrows(java.io.IOException.class, () -> s.capture(c -> {
            c.enqueueFill(v, 4);
            throwUnchecked(checked);
        })));
        assertStreamUsable(s);
        assertArrayEquals(filled(4, 1), readInts(s, v), "nothing captured ran");
    }

    @Test
    void nestedCaptureIsRefused() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = ctx.allocate(DType.I32, 4);
        assertThrows(IllegalStateException.class, () -> captureOrSkip(s, c -> {
            c.enqueueFill(v, 1);
            c.capture(inner -> { });
        }));
        assertStreamUsable(s);
    }

    @Test
    void graphOfAnotherContextOrClosedIsRejected() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = ctx.allocate(DType.I32, 4);
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueFill(v, 1));
        DeviceContext other = open(ContextOptions.defaults());
        DeviceStream os = other.createStream();
        var e = assertRejected(dev.sluice.InvalidArgumentException.class, os, () -> g.enqueueLaunch(os), "stream", "another context");
        assertTrue(e.argument().equals("stream"));
        g.close();
        assertRejected(ClosedResourceException.class, s, () -> g.enqueueLaunch(s), "closed");
    }

    @Test
    void aBufferClosedWhileAReplayIsPendingIsFreedOnlyAfterItAndLaterReplaysAreRefused() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer src = intBuffer(ctx, filled(1 << 16, 4));
        DeviceBuffer dst = intBuffer(ctx, filled(1 << 16, 0));
        DeviceFunction copy = fn(TestKernels.COPY_I32);
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueLaunch(copy, LaunchConfig.forElements(1 << 16), src, dst, (long) (1 << 16)));
        fn(TestKernels.SLOW_FILL);
        slowFill(s, ctx.allocate(DType.I32, 1), 1, java.time.Duration.ofMillis(300)); // the replay waits behind this
        DeviceFuture<Void> replay = g.enqueueLaunch(s);
        src.close(); // must wait for the replay, which reads it
        List<DeviceBuffer> reuse = new ArrayList<>();
        for (int k = 0; k < 4; k++) { // memory freed early would come back here and be overwritten
            DeviceBuffer b = ctx.stream().enqueueAllocate(DType.I32, 1 << 16);
            ctx.stream().enqueueFill(b, 9);
            reuse.add(b);
        }
        await(replay);
        assertArrayEquals(filled(1 << 16, 4), readInts(s, dst), "the replay read src as it was");
        assertFalse(ctx.isFaulted());
        assertThrows(dev.sluice.ClosedResourceException.class, () -> g.enqueueLaunch(s), "a replay after src was closed");
        reuse.forEach(DeviceBuffer::close);
    }
}
