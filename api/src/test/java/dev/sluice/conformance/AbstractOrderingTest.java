package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Ordering within one stream: operations run, and their futures complete, in the order of the calls. */
public abstract class AbstractOrderingTest extends ConformanceBase {

    @Test
    void copyAfterSlowKernelSeesTheKernelsResult() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 1024);
        s.enqueueFill(b, 0);
        slowFill(s, b, 7, Duration.ofMillis(300));
        int[] out = new int[1024];
        await(s.enqueueCopy(b, HostData.of(out)));
        assertArrayEquals(filled(1024, 7), out, "the copy must run after the slow kernel enqueued before it");
    }

    @Test
    void kernelAfterSlowKernelSeesItsResult() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 256);
        slowFill(s, b, 5, Duration.ofMillis(200));
        s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(256), b, 256L, 3, 1);
        assertArrayEquals(filled(256, 16), readInts(s, b), "5 * 3 + 1: the launch must see the slow kernel's result");
    }

    @Test
    void launchesRunInCallOrder() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 100);
        s.enqueueFill(b, 1);
        long expected = 1;
        for (int k = 1; k <= 20; k++) {
            s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(100), b, 100L, k % 2 == 0 ? 2 : -1, k);
            expected = expected * (k % 2 == 0 ? 2 : -1) + k;
        }
        assertArrayEquals(filled(100, (int) expected), readInts(s, b), "non-commuting launches must apply in call order");
    }

    @Test
    void copiesFillsAndLaunchesInterleaveInCallOrder() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer a = ctx.allocate(DType.I32, 64);
        DeviceBuffer c = ctx.allocate(DType.I32, 64);
        s.enqueueCopy(HostData.of(iota(64, 0)), a);
        s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), a, 64L, 2, 0);
        s.enqueueLaunch(fn(TestKernels.COPY_I32), LaunchConfig.forElements(64), a, c, 64L);
        s.enqueueFill(a, -1);
        s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), c, 64L, 1, 1);
        int[] expected = new int[64];
        for (int i = 0; i < 64; i++) {
            expected[i] = 2 * i + 1;
        }
        assertArrayEquals(expected, readInts(s, c));
        assertArrayEquals(filled(64, -1), readInts(s, a));
    }

    @Test
    void futuresCompleteInSequenceOrder() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 256);
        DeviceEvent e = ctx.createEvent();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        List<DeviceFuture<?>> futures = new ArrayList<>();
        futures.add(s.waitFor(gate));
        for (int round = 0; round < 5; round++) {
            futures.add(slowFill(s, b, round, Duration.ofMillis(20)));
            futures.add(s.enqueueFill(b, round));
            futures.add(s.enqueueMemset(b, round));
            futures.add(s.enqueueCopy(HostData.of(iota(256, round)), b));
            futures.add(s.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(256), b, 256L, 1, 1));
            futures.add(s.enqueueRecord(e));
            futures.add(s.enqueueMarker());
            futures.add(s.enqueueCopy(b, HostData.of(new int[256])));
        }
        List<Long> completed = Collections.synchronizedList(new ArrayList<>());
        for (DeviceFuture<?> f : futures) {
            f.whenComplete((v, x) -> completed.add(f.sequence()));
        }
        for (int i = 1; i < futures.size(); i++) {
            assertEquals(futures.get(i - 1).sequence() + 1, futures.get(i).sequence(), "sequence numbers count the calls");
        }
        assertTrue(completed.isEmpty(), "nothing may complete while the stream waits at the gate: " + completed);
        gate.complete(null);
        await(futures.getLast());
        List<Long> expected = futures.stream().map(DeviceFuture::sequence).toList();
        synchronized (completed) {
            assertEquals(expected, completed, "futures of one stream must complete in sequence order");
        }
    }

    @Test
    void sequenceCountsFromOneOnANewStream() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 4);
        DeviceFuture<Void> first = s.enqueueFill(b, 1);
        DeviceFuture<Void> second = s.enqueueMarker();
        DeviceFuture<Void> third = s.enqueueCopy(b, HostData.of(new int[4]));
        assertEquals(1, first.sequence());
        assertEquals(2, second.sequence());
        assertEquals(3, third.sequence());
        assertSame(s, first.stream());
        assertSame(s, third.stream());
        await(third);
    }

    @Test
    void enqueueReturnsBeforeTheDeviceFinishes() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        fn(TestKernels.SLOW_FILL); // compile outside the timed call
        long t0 = System.nanoTime();
        DeviceFuture<Void> f = slowFill(s, b, 1, Duration.ofMillis(1500));
        long took = System.nanoTime() - t0;
        assertFalse(f.isDone(), "a 1.5 s kernel cannot be done when its enqueue returns");
        assertTrue(took < 750_000_000L, "enqueue must return at once, took " + took / 1_000_000 + " ms");
        await(f);
    }

    @Test
    void streamSynchronizeWaitsForWorkAndFutures() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        DeviceFuture<Void> f = slowFill(s, b, 3, Duration.ofMillis(300));
        DeviceFuture<Void> m = s.enqueueMarker();
        s.synchronize();
        assertTrue(f.isDone() && m.isDone(), "synchronize returns after the stream's futures have completed");
        assertFalse(f.isCompletedExceptionally());
    }

    @Test
    void contextSynchronizeWaitsForEveryStream() {
        DeviceStream s1 = ctx.createStream();
        DeviceStream s2 = ctx.createStream();
        DeviceBuffer a = ctx.allocate(DType.I32, 16);
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        DeviceFuture<Void> f1 = slowFill(s1, a, 1, Duration.ofMillis(300));
        DeviceFuture<Void> f2 = slowFill(s2, b, 2, Duration.ofMillis(300));
        DeviceFuture<Void> f0 = slowFill(ctx.stream(), b, 2, Duration.ofMillis(100));
        ctx.synchronize();
        assertTrue(f1.isDone() && f2.isDone() && f0.isDone(), "context synchronize covers every stream");
    }

    @Test
    void closingAStreamWaitsForItsWork() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 32);
        ctx.stream().enqueueFill(b, 0);
        ctx.synchronize();
        DeviceFuture<Void> f = slowFill(s, b, 9, Duration.ofMillis(300));
        s.close();
        assertTrue(s.isClosed());
        await(f);
        assertArrayEquals(filled(32, 9), readInts(ctx.stream(), b), "work enqueued before close still runs");
    }

    @Test
    void closingAStreamWaitsForTheFuturesOfItsWorkSoResultsCanBeReadAtOnce() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 32);
        await(ctx.stream().enqueueFill(b, 6));
        int[] out = new int[32];
        slowFill(s, ctx.allocate(DType.I32, 1), 1, Duration.ofMillis(200)); // the download waits behind it
        DeviceFuture<Void> download = s.enqueueCopy(b, HostData.of(out));
        s.close();
        assertTrue(download.isDone(), "close() returned before the download's future completed");
        assertArrayEquals(filled(32, 6), out, "the result can be read as soon as close() returns");
    }

    @Test
    void closingAContextWaitsForItsWork() {
        DeviceContext other = open(dev.sluice.ContextOptions.defaults());
        DeviceBuffer b = other.allocate(DType.I32, 32);
        DeviceFuture<Void> f = slowFill(other.stream(), b, 9, Duration.ofMillis(300));
        DeviceFuture<Void> m = other.stream().enqueueMarker();
        other.close();
        assertTrue(other.isClosed());
        assertTrue(f.isDone() && m.isDone(), "close waits for the work and its futures");
        assertFalse(f.isCompletedExceptionally() || m.isCompletedExceptionally(), "work enqueued before close succeeds");
    }
}
