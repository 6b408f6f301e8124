package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Cross-stream and cross-context ordering: {@code waitFor} an event, a future of another stream, any
 * {@link CompletionStage}, another stream, another context. Each test makes the awaited work slow, so a
 * missing wait shows as a stale value.
 */
public abstract class AbstractWaitTest extends ConformanceBase {

    @Test
    void waitForEventOrdersCopyAfterRecordedKernel() {
        DeviceStream producer = ctx.createStream();
        DeviceStream consumer = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(512, -1));
        DeviceEvent e = ctx.createEvent();
        slowFill(producer, b, 7, Duration.ofMillis(300));
        producer.enqueueRecord(e);
        consumer.waitFor(e);
        assertArrayEquals(filled(512, 7), readInts(consumer, b), "the copy must wait for the recorded kernel");
    }

    @Test
    void waitForEventSeesOnlyWorkBeforeTheRecord() {
        DeviceStream producer = ctx.createStream();
        DeviceStream consumer = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(64, 0));
        DeviceBuffer late = intBuffer(ctx, filled(64, 0));
        DeviceEvent e = ctx.createEvent();
        slowFill(producer, b, 1, Duration.ofMillis(100));
        producer.enqueueRecord(e);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        producer.waitFor(gate); // work after the record is held back...
        producer.enqueueFill(late, 2);
        consumer.waitFor(e); // ...and the consumer must not wait for it
        int[] seen = new int[64];
        await(consumer.enqueueCopy(b, HostData.of(seen))); // would hang if the wait covered the held-back work
        assertArrayEquals(filled(64, 1), seen, "the work before the record is visible");
        gate.complete(null);
        assertArrayEquals(filled(64, 2), readInts(producer, late));
    }

    @Test
    void waitForUnrecordedEventDoesNotBlock() {
        DeviceStream s = ctx.createStream();
        DeviceEvent e = ctx.createEvent();
        await(s.waitFor(e));
        assertStreamUsable(s);
    }

    @Test
    void waitForEventUsesTheLastRecordBeforeTheWait() {
        DeviceStream producer = ctx.createStream();
        DeviceStream consumer = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(64, 0));
        DeviceEvent e = ctx.createEvent();
        producer.enqueueRecord(e);
        slowFill(producer, b, 4, Duration.ofMillis(300));
        producer.enqueueRecord(e); // re-record moves the point past the slow kernel
        consumer.waitFor(e);
        assertArrayEquals(filled(64, 4), readInts(consumer, b));
    }

    @Test
    void waitForFutureOfOtherStreamOrdersKernelAfterCopy() {
        DeviceStream uploads = ctx.createStream();
        DeviceStream compute = ctx.createStream();
        DeviceBuffer src = ctx.allocate(DType.I32, 256);
        DeviceBuffer dst = intBuffer(ctx, filled(256, 0));
        slowFill(uploads, src, 0, Duration.ofMillis(200)); // delays the copy below
        DeviceFuture<Void> upload = uploads.enqueueCopy(HostData.of(iota(256, 100)), src);
        compute.waitFor(upload);
        compute.enqueueLaunch(fn(TestKernels.COPY_I32), LaunchConfig.forElements(256), src, dst, 256L);
        assertArrayEquals(iota(256, 100), readInts(compute, dst), "the kernel must run after the awaited copy");
    }

    @Test
    void waitForFutureOfOtherContextOrdersWork() {
        DeviceContext other = open(ContextOptions.defaults());
        DeviceBuffer b = other.allocate(DType.I32, 64);
        AtomicBoolean ran = new AtomicBoolean();
        slowFill(other.stream(), b, 1, Duration.ofMillis(200));
        DeviceFuture<Void> hostStep = other.stream().enqueueHostFunction(() -> ran.set(true));
        DeviceStream s = ctx.createStream();
        s.waitFor(hostStep);
        AtomicBoolean seen = new AtomicBoolean();
        await(s.enqueueHostFunction(() -> seen.set(ran.get())));
        assertTrue(seen.get(), "work after waitFor(future of another context) must run after that future's operation");
    }

    @Test
    void waitForFutureReturnsImmediatelyAndCompletesAfterTheAwaitedWork() {
        DeviceStream a = ctx.createStream();
        DeviceStream b = ctx.createStream();
        DeviceBuffer buf = ctx.allocate(DType.I32, 16);
        DeviceFuture<Void> slow = slowFill(a, buf, 1, Duration.ofMillis(400));
        long t0 = System.nanoTime();
        DeviceFuture<Void> w = b.waitFor(slow);
        assertTrue(System.nanoTime() - t0 < 300_000_000L, "waitFor must not block the caller");
        assertFalse(w.isDone(), "the wait cannot be done before the awaited kernel");
        assertSame(b, w.stream());
        await(w);
        await(slow);
    }

    @Test
    void waitForCompletionStageGatesTheStreamUntilCompleted() throws Exception {
        DeviceStream gated = ctx.createStream();
        DeviceStream observer = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(128, 1));
        CompletableFuture<String> gate = new CompletableFuture<>();

        long t0 = System.nanoTime();
        DeviceFuture<Void> wait = gated.waitFor(gate);
        DeviceFuture<Void> fill = gated.enqueueFill(b, 5);
        DeviceFuture<Void> after = gated.enqueueMarker();
        long took = System.nanoTime() - t0;
        assertTrue(took < 500_000_000L, "enqueueing behind a closed gate must not block the caller (took "
                + took / 1_000_000 + " ms)");

        assertStaysPending(after, 300, "the stream ran past a gate that was not completed");
        assertFalse(wait.isDone() || fill.isDone(), "nothing behind the gate may complete");
        // Unordered: an ordered read would wait, on the device, for the fill behind the gate (automatic ordering)
        assertArrayEquals(filled(128, 1), readInts(observer, b.unordered()), "the fill behind the gate must not have run");

        gate.complete("go");
        await(after);
        assertTrue(wait.isDone() && !wait.isCompletedExceptionally());
        assertArrayEquals(filled(128, 5), readInts(observer, b));
    }

    @Test
    void waitForCompletionStageCompletedOnAnotherThreadReleasesTheStream() throws Exception {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        DeviceFuture<Void> w = s.waitFor(gate);
        DeviceFuture<Void> m = s.enqueueMarker();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            gate.complete(null);
        });
        await(m);
        assertTrue(w.isDone());
        t.join();
    }

    @Test
    void waitForAlreadyCompletedStageDoesNotHoldTheStream() {
        DeviceStream s = ctx.createStream();
        await(s.waitFor(CompletableFuture.completedFuture("done")));
        assertStreamUsable(s);
    }

    @Test
    void waitForFailedStageFailsTheWaitAndTheStreamContinues() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(16, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        DeviceFuture<Void> w = s.waitFor(gate);
        DeviceFuture<Void> fill = s.enqueueFill(b, 3);
        IllegalStateException boom = new IllegalStateException("upstream failed");
        gate.completeExceptionally(boom);
        Throwable t = awaitFailure(w);
        assertSame(boom, t, "the wait's future fails with the stage's exception");
        await(fill);
        assertArrayEquals(filled(16, 3), readInts(s, b), "the stream continues after a failed stage");
    }

    @Test
    void waitForStageBlocksNoHostThread() throws Exception {
        // Many streams gated at once: if each wait held a host thread, this would exhaust or slow the JVM.
        int n = 64;
        CompletableFuture<Void> gate = new CompletableFuture<>();
        DeviceFuture<?>[] markers = new DeviceFuture<?>[n];
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        for (int i = 0; i < n; i++) {
            DeviceStream s = ctx.createStream();
            s.waitFor(gate);
            markers[i] = s.enqueueMarker();
        }
        Thread.sleep(100);
        int threadsDuring = ManagementFactory.getThreadMXBean().getThreadCount();
        assertTrue(threadsDuring - threadsBefore < n / 2, "gating " + n + " streams started "
                + (threadsDuring - threadsBefore) + " platform threads: waits must not hold host threads");
        for (DeviceFuture<?> m : markers) {
            assertFalse(m.isDone());
        }
        gate.complete(null);
        for (DeviceFuture<?> m : markers) {
            await(m);
        }
    }

    @Test
    void waitForStreamOrdersAfterEverythingEnqueuedOnIt() {
        DeviceStream producer = ctx.createStream();
        DeviceStream consumer = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(256, 0));
        slowFill(producer, b, 8, Duration.ofMillis(300));
        producer.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(256), b, 256L, 2, 1);
        DeviceFuture<Void> w = consumer.waitFor(producer);
        assertSame(consumer, w.stream());
        assertArrayEquals(filled(256, 17), readInts(consumer, b), "the consumer must wait for all of the producer's work");
    }

    @Test
    void waitForOwnStreamIsANoOp() {
        DeviceStream s = ctx.createStream();
        await(s.waitFor(s));
        assertStreamUsable(s);
    }

    @Test
    void waitForStreamOfOtherContextOrdersWork() {
        DeviceContext other = open(ContextOptions.defaults());
        DeviceStream os = other.createStream();
        DeviceBuffer ob = other.allocate(DType.I32, 8);
        AtomicBoolean ran = new AtomicBoolean();
        slowFill(os, ob, 1, Duration.ofMillis(200));
        os.enqueueHostFunction(() -> ran.set(true));
        DeviceStream s = ctx.createStream();
        s.waitFor(os);
        AtomicBoolean seen = new AtomicBoolean();
        await(s.enqueueHostFunction(() -> seen.set(ran.get())));
        assertTrue(seen.get(), "waitFor(stream of another context) must order after that stream's work");
    }

    @Test
    void contextWaitForOtherContextOrdersDefaultStreams() {
        DeviceContext other = open(ContextOptions.defaults());
        DeviceBuffer ob = other.allocate(DType.I32, 8);
        AtomicBoolean ran = new AtomicBoolean();
        slowFill(other.stream(), ob, 1, Duration.ofMillis(300));
        other.stream().enqueueHostFunction(() -> ran.set(true));
        DeviceFuture<Void> w = ctx.waitFor(other);
        assertSame(ctx.stream(), w.stream(), "the context-level wait is on this context's default stream");
        AtomicReference<Boolean> seen = new AtomicReference<>();
        await(ctx.stream().enqueueHostFunction(() -> seen.set(ran.get())));
        assertEquals(Boolean.TRUE, seen.get(), "work after ctx.waitFor(other) must run after other's default-stream work");
    }

    @Test
    void waitOnOneStreamDoesNotHoldOthers() {
        DeviceStream gated = ctx.createStream();
        DeviceStream free = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        DeviceFuture<Void> held = gated.waitFor(gate);
        assertStreamUsable(free);
        assertStreamUsable(ctx.stream());
        assertFalse(held.isDone());
        gate.complete(null);
        await(held);
    }

    // ---------------------------------------------------------------- work behind a wait for the host

    @Test
    void deviceCallsAndOtherStreamsGoOnWhileStreamsWaitForAStage() {
        // Nothing on the device may wait for the host: on CUDA that would make module loading and frees wait for the
        // stage, and 8 or more waiting streams would stall the others (HostWaits.HOLD_ON_HOST exists for this).
        int n = 16;
        CompletableFuture<Void> gate = new CompletableFuture<>();
        DeviceBuffer[] held = new DeviceBuffer[n];
        DeviceFuture<?>[] fills = new DeviceFuture<?>[n];
        for (int i = 0; i < n; i++) {
            DeviceStream s = ctx.createStream();
            held[i] = intBuffer(ctx, filled(32, 0));
            s.waitFor(gate);
            fills[i] = s.enqueueFill(held[i], i + 1);
        }
        // a kernel no context of this process has loaded yet: its module is loaded now, while the streams wait
        var mulAdd = ctx.compile(TestKernels.freshCopy(TestKernels.MUL_ADD));
        DeviceBuffer scratch = ctx.allocate(DType.I32, 1 << 16);
        scratch.close();
        DeviceStream other = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(64, 41));
        other.enqueueLaunch(mulAdd, LaunchConfig.forElements(64), b, 64L, 1, 1);
        assertArrayEquals(filled(64, 42), readInts(other, b), "another stream runs while " + n + " streams wait for a stage");
        for (DeviceFuture<?> f : fills) {
            assertFalse(f.isDone(), "work behind the stage must not run before it completes");
        }
        gate.complete(null);
        for (int i = 0; i < n; i++) {
            await(fills[i]);
            assertArrayEquals(filled(32, i + 1), readInts(ctx.stream(), held[i]));
        }
    }

    @Test
    void waitForFutureOfWorkBehindAStageWaitsForTheStage() {
        DeviceStream a = ctx.createStream();
        DeviceStream b = ctx.createStream();
        DeviceBuffer x = intBuffer(ctx, filled(128, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        a.waitFor(gate);
        DeviceFuture<Void> fill = a.enqueueFill(x, 5);
        b.waitFor(fill);
        int[] seen = new int[128];
        DeviceFuture<Void> copy = b.enqueueCopy(x, HostData.of(seen));
        assertStaysPending(copy, 200, "b waits for a's fill, which waits for the stage");
        gate.complete(null);
        await(copy);
        assertArrayEquals(filled(128, 5), seen, "b's copy sees a's fill");
    }

    @Test
    void eventRecordedBehindAStageCompletesOnlyAfterIt() {
        DeviceStream a = ctx.createStream();
        DeviceStream b = ctx.createStream();
        DeviceBuffer x = intBuffer(ctx, filled(128, 0));
        DeviceEvent e = ctx.createEvent();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        a.waitFor(gate);
        a.enqueueFill(x, 6);
        a.enqueueRecord(e);
        assertFalse(e.query(), "the record is behind the stage");
        b.waitFor(e);
        int[] seen = new int[128];
        DeviceFuture<Void> copy = b.enqueueCopy(x, HostData.of(seen));
        assertStaysPending(copy, 200, "b waits for the event, recorded behind the stage");
        assertFalse(e.query());
        gate.complete(null);
        await(copy);
        e.synchronize();
        assertTrue(e.query());
        assertArrayEquals(filled(128, 6), seen, "b's copy sees the fill before the record");
    }

    @Test
    void aLaterRecordOnAnotherStreamDecidesTheEventWhileAnEarlierOneIsBehindAStage() {
        DeviceStream a = ctx.createStream();
        DeviceStream b = ctx.createStream();
        DeviceStream c = ctx.createStream();
        DeviceBuffer x = intBuffer(ctx, filled(128, 0));
        DeviceEvent e = ctx.createEvent();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        a.waitFor(gate);
        a.enqueueFill(x, 6);
        a.enqueueRecord(e); // behind the stage
        c.waitFor(e); // waits for a's record, the event's last one when c waits
        int[] seen = new int[128];
        DeviceFuture<Void> copy = c.enqueueCopy(x, HostData.of(seen));
        await(b.enqueueRecord(e)); // later by call: the event's last record now, and b had nothing before it
        assertTrue(e.query(), "the event follows its last record, b's, which has completed");
        e.synchronize(); // returns: b's record is complete
        assertStaysPending(copy, 200, "c waits for a's record, made before c's wait, whatever was recorded later");
        gate.complete(null);
        await(copy);
        assertArrayEquals(filled(128, 6), seen, "c's copy sees a's fill");
        await(a.enqueueRecord(e));
        assertTrue(e.query());
    }

    @Test
    void launchesBehindAStageKeepTheirOwnArgumentsAndOrder() {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        int n = 8;
        DeviceBuffer[] bs = new DeviceBuffer[n];
        for (int i = 0; i < n; i++) {
            bs[i] = intBuffer(ctx, filled(64, 1));
        }
        DeviceBuffer chain = intBuffer(ctx, filled(64, 1));
        s.waitFor(gate);
        for (int i = 0; i < n; i++) {
            s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), bs[i], 64L, i, i);
        }
        s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), chain, 64L, 2, 0);
        DeviceFuture<Void> last = s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), chain, 64L, 1, 3);
        assertStaysPending(last, 100, "launches behind the stage wait for it");
        gate.complete(null);
        await(last);
        for (int i = 0; i < n; i++) {
            assertArrayEquals(filled(64, 2 * i), readInts(s, bs[i]), "launch " + i + " ran with its own arguments");
        }
        assertArrayEquals(filled(64, 5), readInts(s, chain), "(1 * 2 + 0) * 1 + 3: the launches ran in order");
    }

    @Test
    void allocationBehindAStageIsUsableInStreamOrder() {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceBuffer x = s.enqueueAllocate(DType.I32, 256);
        s.enqueueCopy(HostData.of(iota(256, 3)), x);
        int[] out = new int[256];
        DeviceFuture<Void> back = s.enqueueCopy(x, HostData.of(out));
        DeviceFuture<Void> freed = s.enqueueFree(x);
        assertStaysPending(back, 100, "the copies are behind the stage");
        gate.complete(null);
        await(back);
        await(freed);
        assertArrayEquals(iota(256, 3), out);
    }

    @Test
    void closingTheContextDropsWorkHeldBehindAStageThatNeverCompleted() {
        DeviceContext c = open(ContextOptions.defaults());
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 16);
        await(c.stream().enqueueFill(b, 5));
        CompletableFuture<Void> never = new CompletableFuture<>();
        DeviceFuture<Void> wait = s.waitFor(never);
        int[] out = filled(16, -1);
        DeviceFuture<Void> download = s.enqueueCopy(b, HostData.of(out));
        AtomicBoolean ran = new AtomicBoolean();
        DeviceFuture<Void> host = s.enqueueHostFunction(() -> ran.set(true));
        c.close();
        assertTrue(wait.isCompletedExceptionally(), "the wait fails with the close");
        if (c.options().hostWaits() == dev.sluice.HostWaits.HOLD_ON_HOST) {
            assertTrue(awaitFailure(download) instanceof dev.sluice.ClosedResourceException, download.toString());
            assertTrue(awaitFailure(host) instanceof dev.sluice.ClosedResourceException, host.toString());
            assertFalse(ran.get(), "a host function held behind the stage never runs");
            assertArrayEquals(filled(16, -1), out, "a download held behind the stage never writes the caller's array");
        } else {
            // gates on the device: closing opens them, and the work behind them runs; every future still completes
            assertTrue(download.isDone() && host.isDone());
        }
    }
}
