package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The futures returned by every enqueue: who completes them, when, on which thread, and what users may not do. */
public abstract class AbstractFutureTest extends ConformanceBase {

    @Test
    void futureCompletesOnlyAfterTheDeviceHasFinished() {
        DeviceStream s = ctx.createStream();
        DeviceStream unordered = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(256, 0));
        DeviceFuture<Void> f = slowFill(s, b, 7, Duration.ofMillis(300));
        await(f);
        // The other stream is not ordered after the kernel: only a finished kernel explains the new value.
        assertArrayEquals(filled(256, 7), readInts(unordered, b));
    }

    @Test
    void futuresCompleteOnTheCompletionThreadNotTheCaller() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 8);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> f = s.enqueueFill(b, 1);
        AtomicReference<Thread> completer = new AtomicReference<>();
        CompletableFuture<Void> seen = f.whenComplete((v, e) -> completer.set(Thread.currentThread()));
        gate.complete(null);
        await(seen);
        Thread t = completer.get();
        assertNotNull(t);
        assertTrue(t.getName().startsWith("sluice-completion-"), "completed on " + t.getName());
        assertNotSame(Thread.currentThread(), t, "never on the caller's thread");
    }

    @Test
    void oneCompletionThreadServesEveryStreamOfAContext() {
        DeviceStream a = ctx.createStream();
        DeviceStream b = ctx.createStream();
        DeviceBuffer buf = ctx.allocate(DType.I32, 8);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        a.waitFor(gate);
        b.waitFor(gate);
        ctx.stream().waitFor(gate);
        AtomicReference<Thread> ta = new AtomicReference<>();
        AtomicReference<Thread> tb = new AtomicReference<>();
        AtomicReference<Thread> t0 = new AtomicReference<>();
        CompletableFuture<?> fa = a.enqueueFill(buf, 1).whenComplete((v, e) -> ta.set(Thread.currentThread()));
        CompletableFuture<?> fb = b.enqueueMarker().whenComplete((v, e) -> tb.set(Thread.currentThread()));
        CompletableFuture<?> f0 = ctx.stream().enqueueMarker().whenComplete((v, e) -> t0.set(Thread.currentThread()));
        gate.complete(null);
        await(fa);
        await(fb);
        await(f0);
        assertEquals(ta.get(), tb.get(), "one completion thread per context");
        assertEquals(ta.get(), t0.get(), "one completion thread per context");
    }

    @Test
    void contextsHaveCompletionThreadsOfTheirOwn() {
        DeviceContext other = open(ContextOptions.defaults());
        CompletableFuture<Void> gate = new CompletableFuture<>();
        ctx.stream().waitFor(gate);
        other.stream().waitFor(gate);
        AtomicReference<Thread> t1 = new AtomicReference<>();
        AtomicReference<Thread> t2 = new AtomicReference<>();
        CompletableFuture<?> f1 = ctx.stream().enqueueMarker().whenComplete((v, e) -> t1.set(Thread.currentThread()));
        CompletableFuture<?> f2 = other.stream().enqueueMarker().whenComplete((v, e) -> t2.set(Thread.currentThread()));
        gate.complete(null);
        await(f1);
        await(f2);
        assertNotSame(t1.get(), t2.get());
        assertTrue(t2.get().getName().startsWith("sluice-completion-"), t2.get().getName());
    }

    @Test
    void usersCannotCompleteAFuture() {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> f = s.enqueueMarker();
        assertThrows(UnsupportedOperationException.class, () -> f.complete(null));
        assertThrows(UnsupportedOperationException.class, () -> f.completeExceptionally(new RuntimeException("x")));
        assertThrows(UnsupportedOperationException.class, () -> f.obtrudeValue(null));
        assertThrows(UnsupportedOperationException.class, () -> f.obtrudeException(new RuntimeException("x")));
        assertThrows(UnsupportedOperationException.class, () -> f.completeAsync(() -> null));
        assertThrows(UnsupportedOperationException.class, () -> f.completeAsync(() -> null, Runnable::run));
        assertFalse(f.isDone(), "the refused calls must not have completed the future");
        gate.complete(null);
        assertNull(await(f));
        assertFalse(f.isCompletedExceptionally());
    }

    @Test
    void usersCannotObtrudeACompletedFuture() {
        DeviceStream s = ctx.createStream();
        DeviceFuture<Void> f = s.enqueueMarker();
        await(f);
        assertThrows(UnsupportedOperationException.class, () -> f.obtrudeException(new RuntimeException("x")));
        assertFalse(f.isCompletedExceptionally());
    }

    @Test
    void cancelDoesNotStopTheDeviceWork() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(64, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> fill = s.enqueueFill(b, 9);
        assertTrue(fill.cancel(true));
        assertTrue(fill.isCancelled());
        gate.complete(null);
        assertArrayEquals(filled(64, 9), readInts(s, b), "a cancelled fill still runs; later work sees it");
        assertTrue(fill.isCancelled(), "the future stays cancelled for its observers");
    }

    @Test
    void waitForACancelledFutureStillOrders() {
        DeviceStream producer = ctx.createStream();
        DeviceStream consumer = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(64, 0));
        DeviceFuture<Void> slow = slowFill(producer, b, 3, Duration.ofMillis(300));
        slow.cancel(false);
        consumer.waitFor(slow);
        assertArrayEquals(filled(64, 3), readInts(consumer, b), "waitFor(cancelled future) still waits for its operation");
    }

    @Test
    void orTimeoutAppliesToACopy() {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> f = s.enqueueMarker();
        CompletableFuture<Void> timed = f.orTimeout(50, TimeUnit.MILLISECONDS);
        assertNotSame(f, timed, "orTimeout returns a copy");
        assertInstanceOf(TimeoutException.class, awaitFailure(timed));
        assertFalse(f.isDone(), "the original future is not timed out");
        gate.complete(null);
        await(f);
        assertFalse(f.isCompletedExceptionally());
    }

    @Test
    void completeOnTimeoutAppliesToACopy() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 4);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<DeviceBuffer> f = s.enqueueAllocate(DType.I32, 4).ready();
        CompletableFuture<DeviceBuffer> timed = f.completeOnTimeout(b, 50, TimeUnit.MILLISECONDS);
        assertNotSame(f, timed);
        assertEquals(b, await(timed));
        assertFalse(f.isDone(), "the original future is not completed by the timeout");
        gate.complete(null);
        assertNotSame(b, await(f));
    }

    @Test
    void copiesAndDependentStagesAreOrdinaryFutures() {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> f = s.enqueueMarker();
        CompletableFuture<Void> copy = f.copy();
        assertTrue(copy.complete(null), "a copy belongs to the user");
        CompletableFuture<Integer> dependent = f.thenApply(v -> 1);
        assertTrue(dependent.complete(2), "dependent stages belong to the user");
        assertFalse(f.isDone(), "completing a copy or a dependent does not complete the device future");
        gate.complete(null);
        await(f);
        assertEquals(2, await(dependent));
    }

    @Test
    void voidOperationsCompleteWithNull() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 4);
        assertNull(await(s.enqueueFill(b, 1)));
        assertNull(await(s.enqueueCopy(b, HostData.of(new int[4]))));
        assertNull(await(s.enqueueMarker()));
    }

    @Test
    void blockingOnTheCompletionThreadIsRefused() {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CompletableFuture<Void> done = s.enqueueMarker().whenComplete((v, e) -> {
            try {
                s.synchronize();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        gate.complete(null);
        await(done);
        assertInstanceOf(IllegalStateException.class, thrown.get(),
                "synchronize on the completion thread would wait for itself and must be refused");
    }
}
