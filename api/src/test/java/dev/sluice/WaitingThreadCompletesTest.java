package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread that waits for a future completes it itself when the device has finished it: it polls the stream's markers
 * before it blocks, so it does not wait for the completion thread to hand the future over. Each test keeps the
 * completion thread busy in a dependent stage of another stream, so that only the waiting thread can complete.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WaitingThreadCompletesTest {

    /** Markers are numbered as recorded; those below this are done. */
    private final AtomicInteger doneBelow = new AtomicInteger(0);
    private final AtomicInteger recorded = new AtomicInteger();
    private final CountDownLatch releaseCompletionThread = new CountDownLatch(1);
    private DeviceContext ctx;

    private StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> {
                        int n = recorded.getAndIncrement();
                        yield FakeDevices.marker(() -> n < doneBelow.get());
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    private DeviceContext open(WaitStrategy strategy) {
        ctx = FakeDevices.open(Api.CPU, n -> stream(),
                ContextOptions.defaults().withMarkerBatch(1).withWaitStrategy(strategy));
        return ctx;
    }

    @AfterEach
    void close() {
        releaseCompletionThread.countDown();
        doneBelow.set(Integer.MAX_VALUE);
        if (ctx != null) {
            ctx.close();
        }
    }

    /** Blocks the context's completion thread in a dependent stage of a marker of a stream of its own. */
    private void occupyCompletionThread() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        DeviceStream busy = ctx.createStream();
        int marker = recorded.get();
        DeviceFuture<Void> f = busy.enqueueMarker();
        f.thenRun(() -> {
            entered.countDown();
            try {
                releaseCompletionThread.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        doneBelow.set(marker + 1);
        assertTrue(entered.await(10, TimeUnit.SECONDS), "the completion thread runs the blocking stage");
    }

    @Test
    void joinCompletesTheFutureAndRunsItsStagesOnTheWaitingThreadInStreamOrder() throws Exception {
        open(WaitStrategy.PARK);
        occupyCompletionThread();
        DeviceStream s = ctx.createStream();
        int first = recorded.get();
        DeviceFuture<Void> a = s.enqueueMarker();
        DeviceFuture<Void> b = s.enqueueMarker();
        List<String> ran = new ArrayList<>();
        AtomicReference<Thread> on = new AtomicReference<>();
        a.thenRun(() -> ran.add("a"));
        b.thenRun(() -> {
            ran.add("b");
            on.set(Thread.currentThread());
        });
        doneBelow.set(first + 2);
        b.join();
        assertSame(Thread.currentThread(), on.get(), "completed by the thread that waited, not handed over");
        assertEquals(List.of("a", "b"), ran, "the stream's futures complete in order");
    }

    @Test
    void aStageRunByTheWaitingThreadMayNotWaitForAFutureTheStreamHasNotCompleted() throws Exception {
        open(WaitStrategy.PARK);
        occupyCompletionThread();
        DeviceStream s = ctx.createStream();
        int first = recorded.get();
        DeviceFuture<Void> a = s.enqueueMarker();
        DeviceFuture<Void> later = s.enqueueMarker();
        AtomicReference<Throwable> refused = new AtomicReference<>();
        a.thenRun(() -> {
            try {
                later.join(); // would wait for ever: only this thread could complete it, and it is busy here
            } catch (Throwable t) {
                refused.set(t);
            }
        });
        doneBelow.set(first + 1);
        a.join();
        assertInstanceOf(IllegalStateException.class, refused.get(), "refused, as on the completion thread");
        assertTrue(String.valueOf(refused.get().getMessage()).contains("completes the stream's futures"),
                refused.get().getMessage());
        doneBelow.set(first + 2);
        releaseCompletionThread.countDown();
        later.get(10, TimeUnit.SECONDS);
    }

    @Test
    void underTheBlockingStrategyTheWaitingThreadLeavesCompletionToTheCompletionThread() throws Exception {
        open(WaitStrategy.BLOCKING);
        occupyCompletionThread();
        DeviceStream s = ctx.createStream();
        int first = recorded.get();
        DeviceFuture<Void> a = s.enqueueMarker();
        doneBelow.set(first + 1);
        Thread.sleep(50);
        assertTrue(!a.isDone(), "not completed while the completion thread is busy: the waiting thread does not poll");
        releaseCompletionThread.countDown();
        a.get(10, TimeUnit.SECONDS);
    }
}
