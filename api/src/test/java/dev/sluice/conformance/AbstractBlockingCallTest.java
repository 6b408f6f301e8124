package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.SluiceException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Blocking calls where they would wedge the context are refused with {@link IllegalStateException}: on the completion
 * thread (a dependent of a pending future runs there) and in a host function; and a blocking wait ends on
 * {@link Thread#interrupt()} with a {@link SluiceException} caused by the {@link InterruptedException}, the interrupt
 * flag kept. Every wait here is bounded: a call that blocks instead of refusing fails the test.
 */
public abstract class AbstractBlockingCallTest extends ConformanceBase {

    private static final long OUTCOME_SECONDS = 5;

    /** What {@code call} threw (null: it returned), run as a dependent of a pending future: on the completion thread. */
    private Throwable onCompletionThread(Consumer<String> call) {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> marker = s.enqueueMarker();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        marker.whenComplete((v, e) -> {
            String thread = Thread.currentThread().getName();
            try {
                call.accept(thread);
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        gate.complete(null);
        return outcome(outcome);
    }

    /** What {@code call} threw (null: it returned), run in a host function of a stream of the test's context. */
    private Throwable inHostFunction(Consumer<String> call) {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        s.enqueueHostFunction(() -> {
            try {
                call.accept(Thread.currentThread().getName());
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        return outcome(outcome);
    }

    private static Throwable outcome(CompletableFuture<Throwable> outcome) {
        try {
            return outcome.get(OUTCOME_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the blocking call neither returned nor was refused within " + OUTCOME_SECONDS
                    + " s: it wedged the thread it was called on");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private DeviceEvent finishedEvent() {
        DeviceEvent e = closeLater(ctx.createEvent());
        await(ctx.stream().enqueueRecord(e));
        return e;
    }

    private static void assertRefused(Throwable t, String what) {
        assertInstanceOf(IllegalStateException.class, t, what + " must be refused there, not " + (t == null ? "run" : t));
    }

    @Test
    void eventSynchronizeIsRefusedOnTheCompletionThread() {
        DeviceEvent e = finishedEvent();
        Throwable t = onCompletionThread(thread -> {
            assertTrue(thread.startsWith("sluice-completion-"), thread);
            e.synchronize();
        });
        assertRefused(t, "DeviceEvent.synchronize() on the completion thread");
    }

    @Test
    void syncStreamCallsAreRefusedOnTheCompletionThreadBeforeEnqueuing() {
        DeviceBuffer b = closeLater(ctx.allocate(DType.I32, 16));
        await(ctx.stream().enqueueFill(b, 1));
        Throwable t = onCompletionThread(thread -> ctx.sync().fill(b, 2));
        assertRefused(t, "SyncStream.fill on the completion thread");
        assertEquals(1, readInts(ctx.stream(), b)[0], "the refused call enqueued nothing");
    }

    @Test
    void eventSynchronizeIsRefusedInAHostFunction() {
        DeviceEvent e = finishedEvent();
        Throwable t = inHostFunction(thread -> {
            assertTrue(thread.startsWith("sluice-host-"), thread);
            e.synchronize();
        });
        assertRefused(t, "DeviceEvent.synchronize() in a host function");
    }

    @Test
    void syncStreamCallsAreRefusedInAHostFunction() {
        DeviceBuffer b = closeLater(ctx.allocate(DType.I32, 16));
        Throwable t = inHostFunction(thread -> ctx.sync().fill(b, 2));
        assertRefused(t, "SyncStream.fill in a host function");
    }

    @Test
    void anInterruptedSyncStreamWaitThrowsAndKeepsTheInterruptFlag() throws Exception {
        DeviceBuffer b = closeLater(ctx.allocate(DType.I32, 16));
        DeviceStream held = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        held.waitFor(gate); // the fill below cannot finish before the call looks: it has to wait
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        CompletableFuture<Boolean> flag = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            Thread.currentThread().interrupt();
            try {
                held.sync().fill(b, 3);
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
            flag.complete(Thread.currentThread().isInterrupted());
        });
        Throwable t = outcome(outcome);
        assertInstanceOf(SluiceException.class, t, "an interrupted wait ends with an exception, not " + t);
        assertInstanceOf(InterruptedException.class, t.getCause());
        assertTrue(flag.get(OUTCOME_SECONDS, TimeUnit.SECONDS), "the interrupt flag is kept");
        gate.complete(null);
        assertEquals(3, readInts(held, b)[0], "the operation itself still ran");
    }

    @Test
    void anEventSynchronizeWaitingForAHeldRecordEndsOnInterrupt() throws Exception {
        DeviceStream s = ctx.createStream();
        DeviceEvent e = closeLater(ctx.createEvent());
        CompletableFuture<Void> gate = new CompletableFuture<>();
        try {
            s.waitFor(gate);
            s.enqueueRecord(e); // held behind the wait for the host (or waiting on the device behind a gate)
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            CompletableFuture<Boolean> flag = new CompletableFuture<>();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    e.synchronize();
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
                flag.complete(Thread.currentThread().isInterrupted());
            });
            Thread.sleep(100);
            if (outcome.isDone()) {
                fail("synchronize() returned before the recorded work could run: " + outcome.join());
            }
            waiter.interrupt();
            Throwable t = outcome(outcome);
            if (t == null && !gate.isDone()) {
                fail("synchronize() returned while the record still waits");
            }
            assertInstanceOf(SluiceException.class, t);
            assertInstanceOf(InterruptedException.class, t.getCause());
            assertTrue(flag.get(OUTCOME_SECONDS, TimeUnit.SECONDS), "the interrupt flag is kept");
        } finally {
            gate.complete(null);
        }
        e.synchronize();
    }

    @Test
    void joinAndGetOfAPendingFutureAreRefusedOnTheCompletionThread() {
        DeviceStream slow = closeLater(ctx.createStream());
        CompletableFuture<Void> gate = new CompletableFuture<>();
        slow.waitFor(gate);
        DeviceFuture<Void> pending = slow.enqueueMarker(); // completes only after the gate, which the test opens last
        Throwable join = onCompletionThread(thread -> pending.join());
        Throwable get = onCompletionThread(thread -> {
            try {
                pending.get();
            } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
                throw new AssertionError(e);
            }
        });
        gate.complete(null);
        assertRefused(join, "join() of a pending future on the completion thread");
        assertRefused(get, "get() of a pending future on the completion thread");
        await(pending);
    }

    @Test
    void closingStreamsAndTheContextIsRefusedWhereItWouldWaitForItself() {
        DeviceStream other = ctx.createStream();
        assertRefused(onCompletionThread(thread -> other.close()), "DeviceStream.close() on the completion thread");
        assertRefused(inHostFunction(thread -> other.close()), "DeviceStream.close() in a host function");
        assertRefused(inHostFunction(thread -> ctx.close()), "DeviceContext.close() in a host function");
        assertRefused(onCompletionThread(thread -> ctx.synchronize()), "DeviceContext.synchronize() on the completion thread");
        assertTrue(!other.isClosed() && !ctx.isClosed());
        other.close();
    }

    @Test
    void closingAStreamHeldBehindAStageThatNeverCompletesEndsOnInterrupt() throws Exception {
        DeviceStream s = ctx.createStream();
        CompletableFuture<Void> never = new CompletableFuture<>();
        s.waitFor(never);
        DeviceFuture<Void> held = s.enqueueMarker();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                s.close();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        Thread.sleep(100); // let close() start waiting
        closer.interrupt();
        Throwable t = outcome(outcome);
        assertInstanceOf(SluiceException.class, t, "an interrupted close() ends with an exception, not " + t);
        assertInstanceOf(InterruptedException.class, t.getCause());
        assertTrue(s.isClosed(), "the stream is closed to new work all the same");
        assertInstanceOf(dev.sluice.ClosedResourceException.class, awaitFailure(held), "its held work is dropped");
    }
}
