package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceException;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.EventFlag;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectWarning;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Device faults: a kernel that faults fails its future and every pending future of the context with a
 * {@link DeviceException}, leaves none hanging, makes every later call on the context throw at once, and
 * leaves other contexts usable. Every test faults a context of its own ({@link #openIsolated()}), which reports the
 * fault as a warning.
 */
@ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
public abstract class AbstractFaultTest extends ConformanceBase {

    private DeviceFuture<Void> launchFault(DeviceStream s) {
        return s.enqueueLaunch(fn(s.context(), TestKernels.FAULT), LaunchConfig.of(1, 1), 42);
    }

    private static void assertDeviceFault(Throwable t) {
        DeviceException e = assertInstanceOf(DeviceException.class, t, () -> "expected a DeviceException, got " + t);
        assertTrue(e.isSticky(), "a fault that stops the context is sticky: " + e);
    }

    @Test
    void faultingKernelFailsItsFutureWithADeviceException() {
        DeviceContext c = openIsolated();
        DeviceStream s = c.createStream();
        assertDeviceFault(awaitFailure(launchFault(s)));
        assertTrue(c.isFaulted());
    }

    @Test
    void everyLaterPendingFutureOfTheStreamFails() {
        DeviceContext c = openIsolated();
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 16);
        fn(c, TestKernels.FAULT);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> fault = launchFault(s);
        List<DeviceFuture<?>> later = List.of(s.enqueueFill(b, 1), s.enqueueCopy(b, HostData.of(new int[16])),
                s.enqueueLaunch(fn(c, TestKernels.MUL_ADD), LaunchConfig.of(1, 16), b, 16L, 1, 1), s.enqueueMarker(),
                s.enqueueRecord(c.createEvent()));
        gate.complete(null);
        assertDeviceFault(awaitFailure(fault));
        for (DeviceFuture<?> f : later) {
            assertDeviceFault(awaitFailure(f));
        }
    }

    @Test
    void pendingFuturesOfOtherStreamsOfTheContextFail() {
        DeviceContext c = openIsolated();
        DeviceStream faulting = c.createStream();
        DeviceStream held = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 16);
        CompletableFuture<Void> never = new CompletableFuture<>();
        held.waitFor(never);
        DeviceFuture<Void> pending = held.enqueueFill(b, 1);
        c.stream().waitFor(never);
        DeviceFuture<Void> pendingOnDefault = c.stream().enqueueMarker();
        assertDeviceFault(awaitFailure(launchFault(faulting)));
        // none is left hanging, even behind a gate that never opens
        assertDeviceFault(awaitFailure(pending));
        assertDeviceFault(awaitFailure(pendingOnDefault));
    }

    @Test
    void laterCallsOnTheContextThrowAtOnce() {
        DeviceContext c = openIsolated();
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 16);
        awaitFailure(launchFault(s));
        assertTrue(c.isFaulted());
        assertDeviceFault(assertThrows(DeviceException.class, () -> s.enqueueFill(b, 1)));
        assertDeviceFault(assertThrows(DeviceException.class, () -> s.enqueueMarker()));
        assertDeviceFault(assertThrows(DeviceException.class, () -> c.stream().enqueueCopy(HostData.of(new int[16]), b)));
        assertDeviceFault(assertThrows(DeviceException.class, () -> c.allocate(DType.I32, 4)));
        assertDeviceFault(assertThrows(DeviceException.class, () -> c.createStream()));
        assertDeviceFault(assertThrows(DeviceException.class, () -> c.createEvent(EventFlag.TIMING)));
        assertDeviceFault(assertThrows(DeviceException.class, () -> c.compile(TestKernels.MUL_ADD)));
        assertDeviceFault(assertThrows(DeviceException.class, c::synchronize));
        assertDeviceFault(assertThrows(DeviceException.class, s::synchronize));
        assertDeviceFault(assertThrows(DeviceException.class, () -> s.sync().fill(b, 1)));
    }

    @Test
    void synchronizeAfterAFaultThrowsInsteadOfHanging() {
        DeviceContext c = openIsolated();
        DeviceStream s = c.createStream();
        fn(c, TestKernels.FAULT);
        launchFault(s);
        assertTimeoutPreemptively(Duration.ofSeconds(WAIT_SECONDS), () -> {
            assertThrows(DeviceException.class, s::synchronize);
        });
        assertTimeoutPreemptively(Duration.ofSeconds(WAIT_SECONDS), () -> {
            assertThrows(DeviceException.class, c::synchronize);
        });
    }

    @Test
    void anotherContextStaysUsable() {
        int device = 0;
        if (target().faultPoisonsDevice()) {
            int count = DeviceContext.deviceCount(target().backendName());
            Assumptions.assumeTrue(count >= 2, () -> "needs a second device: on " + target().backendName() + " a device fault leaves"
                    + " every context of the faulted device unusable for the rest of the process, so the bystander must be"
                    + " on another device, and this machine has " + count);
            device = 1;
        }
        DeviceContext bystander = open(device, ContextOptions.defaults().withPrimaryContext(false));
        DeviceContext c = openIsolated();
        DeviceBuffer before = intBuffer(bystander, iota(32, 0));
        assertDeviceFault(awaitFailure(launchFault(c.createStream())));
        if (target().faultPoisonsProcess()) {
            // The driver fails the bystander too: Sluice must say so as a device fault, at once or through the future,
            // never hang, and close it cleanly.
            assertTimeoutPreemptively(Duration.ofSeconds(WAIT_SECONDS), () -> {
                Throwable failure;
                try {
                    failure = awaitFailure(bystander.stream().enqueueCopy(before, HostData.of(new int[32])));
                } catch (DeviceException refused) {
                    failure = refused;
                }
                assertDeviceFault(failure);
                assertThrows(DeviceException.class, bystander::synchronize);
            });
            long until = System.nanoTime() + Duration.ofSeconds(WAIT_SECONDS).toNanos();
            while (!bystander.isFaulted() && System.nanoTime() - until < 0) {
                Thread.onSpinWait(); // a sticky error returned to a call faults the context on its completion thread
            }
            assertTrue(bystander.isFaulted(), "the bystander knows it faulted");
            assertTimeoutPreemptively(Duration.ofSeconds(WAIT_SECONDS), bystander::close);
            return;
        }
        assertFalse(bystander.isFaulted());
        assertArrayEquals(iota(32, 0), readInts(bystander.stream(), before), "memory of the other context is intact");
        assertStreamUsable(bystander.stream());
        DeviceStream s = bystander.createStream();
        s.enqueueLaunch(fn(bystander, TestKernels.MUL_ADD), LaunchConfig.of(1, 32), before, 32L, 2, 0);
        assertArrayEquals(doubled(iota(32, 0)), readInts(s, before));
        DeviceContext fresh = open(device, ContextOptions.defaults());
        assertStreamUsable(fresh.stream());
    }

    private static int[] doubled(int[] a) {
        int[] r = a.clone();
        for (int i = 0; i < r.length; i++) {
            r[i] *= 2;
        }
        return r;
    }

    @Test
    void hostFunctionAfterAFaultNeverRuns() {
        DeviceContext c = openIsolated();
        DeviceStream s = c.createStream();
        fn(c, TestKernels.FAULT);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        launchFault(s);
        AtomicBoolean ran = new AtomicBoolean();
        DeviceFuture<Void> host = s.enqueueHostFunction(() -> ran.set(true));
        gate.complete(null);
        assertDeviceFault(awaitFailure(host));
        assertFalse(ran.get(), "a host function behind a fault never runs");
    }

    @Test
    void aListenerHearsOfTheFaultOnceAndOfTheFailedOperation() {
        DeviceContext c = openIsolated();
        List<Throwable> faults = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Throwable> failed = new java.util.concurrent.CopyOnWriteArrayList<>();
        c.addListener(new dev.sluice.DeviceListener() {
            @Override
            public void faulted(DeviceContext context, Throwable fault) {
                faults.add(fault);
            }

            @Override
            public void operationCompleted(DeviceStream stream, String category, long bytes, long latencyNanos,
                    @org.jspecify.annotations.Nullable Throwable failure) {
                if (failure != null) {
                    failed.add(failure);
                }
            }
        });
        DeviceStream s = c.createStream();
        assertDeviceFault(awaitFailure(launchFault(s)));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while ((faults.isEmpty() || failed.isEmpty()) && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // the listener runs on the completion thread, maybe after the waiter woke
        }
        assertEquals(1, faults.size(), faults.toString());
        assertTrue(failed.stream().anyMatch(f -> f instanceof DeviceException), "the kernel's failure, unwrapped: " + failed);
    }

    @Test
    void faultedContextClosesCleanly() {
        DeviceContext c = openIsolated();
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 16);
        awaitFailure(launchFault(s));
        b.close();
        s.close();
        c.close();
        assertTrue(c.isClosed());
        c.close(); // idempotent
    }
}
