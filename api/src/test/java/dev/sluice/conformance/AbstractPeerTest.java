package dev.sluice.conformance;

import dev.sluice.testing.ExpectWarning;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two devices of one backend: peer access and peer copies (cudarc's {@code memcpy_peer}, Mojo's copies between
 * device contexts). Each test opens device 1 next to the test's context on device 0, and is skipped, saying so,
 * where the backend has one device (the CPU suite simulates two).
 */
public abstract class AbstractPeerTest extends ConformanceBase {

    private static final int N = 1 << 20;

    private DeviceContext other;

    @BeforeEach
    void openSecondDevice() {
        int count = DeviceContext.deviceCount(target().backendName());
        Assumptions.assumeTrue(count >= 2, () -> "needs two " + target().backendName() + " devices; this machine has " + count);
        other = open(1, ContextOptions.defaults());
    }

    private static int[] pattern(int seed) {
        int[] v = new int[N];
        for (int i = 0; i < N; i++) {
            v[i] = i * 31 + seed;
        }
        return v;
    }

    /** Copies device 1 → device 0 and back on {@code s} (a stream of either context) and checks every element. */
    private void roundTrip(DeviceStream s) {
        int[] expected = pattern(s.context() == ctx ? 7 : 11);
        DeviceBuffer onOther = other.allocate(DType.I32, N);
        DeviceBuffer here = ctx.allocate(DType.I32, N);
        DeviceBuffer back = other.allocate(DType.I32, N);
        await(other.stream().enqueueCopy(HostData.of(expected), onOther));
        await(s.enqueueCopy(onOther, here));
        await(s.enqueueCopy(here, back));
        int[] got = new int[N];
        await(ctx.stream().enqueueCopy(here, HostData.of(got)));
        assertArrayEquals(expected, got, "device 1 → device 0");
        await(other.stream().enqueueCopy(back, HostData.of(got)));
        assertArrayEquals(expected, got, "device 0 → device 1");
    }

    @Test
    void peerCopiesWithoutPeerAccessKeepEveryElement() {
        roundTrip(ctx.stream());
        roundTrip(other.createStream());
    }

    @Test
    void peerCopiesWithPeerAccessKeepEveryElement() {
        Assumptions.assumeTrue(ctx.canAccess(other) && other.canAccess(ctx),
                () -> ctx.name() + " and " + other.name() + " cannot access each other's memory (canAccess is false)");
        ctx.enablePeerAccess(other);
        other.enablePeerAccess(ctx);
        ctx.enablePeerAccess(other); // a second time is harmless
        roundTrip(ctx.createStream());
        roundTrip(other.stream());
    }

    @Test
    void theTraceSaysWhetherAPeerCopyWentDirectlyOrThroughTheHost() {
        DeviceContext traced = open(0, ContextOptions.defaults().withTracing(true));
        DeviceContext tracedPeer = open(1, ContextOptions.defaults().withTracing(true));
        DeviceBuffer there = tracedPeer.allocate(DType.I32, 1024);
        DeviceBuffer here = traced.allocate(DType.I32, 1024);
        await(tracedPeer.stream().enqueueMemset(there, 0));
        DeviceStream s = traced.createStream();
        await(s.enqueueCopy(there, here));
        boolean direct = traced.canAccess(tracedPeer);
        if (direct) {
            traced.enablePeerAccess(tracedPeer);
        }
        await(s.enqueueCopy(there, here));
        traced.synchronize();
        java.util.List<String> kinds = traced.trace().spans().stream().map(dev.sluice.TraceSpan::kind)
                .filter(k -> k.startsWith("peer")).toList();
        assertEquals(java.util.List.of("peer-staged", direct ? "peer" : "peer-staged"), kinds,
                "without peer access, then " + (direct ? "with it" : "still without: canAccess is false"));
    }

    @Test
    void listenersHearThePeerCopysBytesWhetherItWentDirectlyOrThroughTheHost() {
        DeviceContext watched = open(0, ContextOptions.defaults());
        DeviceContext peer = open(1, ContextOptions.defaults());
        java.util.List<String> heard = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        watched.addListener(new dev.sluice.DeviceListener() {
            @Override
            public void operationEnqueued(DeviceStream stream, String category, long bytes) {
                if (category.startsWith("peer")) {
                    heard.add(category + " " + bytes);
                }
            }
        });
        DeviceBuffer there = peer.allocate(DType.I32, 1024);
        DeviceBuffer here = watched.allocate(DType.I32, 1024);
        await(peer.stream().enqueueMemset(there, 0));
        DeviceStream s = watched.createStream();
        await(s.enqueueCopy(there, here));
        boolean direct = watched.canAccess(peer);
        if (direct) {
            watched.enablePeerAccess(peer);
        }
        await(s.enqueueCopy(there, here));
        assertEquals(java.util.List.of("peer-staged 4096", (direct ? "peer" : "peer-staged") + " 4096"), heard);
    }

    @Test
    void peerCopyOfSlicesTouchesOnlyTheRange() {
        int[] source = pattern(3);
        DeviceBuffer onOther = other.allocate(DType.I32, N);
        DeviceBuffer here = ctx.allocate(DType.I32, N);
        await(other.stream().enqueueCopy(HostData.of(source), onOther));
        await(ctx.stream().enqueueFill(here, -1));
        await(ctx.stream().enqueueCopy(onOther.slice(1000, 4096), here.slice(5000, 4096)));
        int[] got = new int[N];
        await(ctx.stream().enqueueCopy(here, HostData.of(got)));
        for (int i = 0; i < N; i++) {
            int want = i >= 5000 && i < 5000 + 4096 ? source[i - 5000 + 1000] : -1;
            if (got[i] != want) {
                throw new AssertionError("element " + i + ": expected " + want + " but was " + got[i]);
            }
        }
    }

    @Test
    void peerCopyWaitsForWorkOnTheSourceDeviceWhenToldTo() {
        DeviceBuffer onOther = other.allocate(DType.I32, N);
        DeviceBuffer here = ctx.allocate(DType.I32, N);
        DeviceStream s = ctx.createStream();
        await(other.stream().enqueueFill(onOther, 0));
        // device 1 writes 42 only after about 200 ms of spinning: the copy enqueued meanwhile on device 0 must wait for it
        DeviceFuture<Void> filled = slowFill(other.createStream(), onOther, 42, Duration.ofMillis(200));
        s.waitFor(filled);
        DeviceFuture<Void> copied = s.enqueueCopy(onOther, here);
        int[] got = new int[N];
        await(s.enqueueCopy(here, HostData.of(got)));
        assertTrue(copied.isDone(), "futures of one stream complete in order");
        await(filled); // device 1's own completion thread completes it, perhaps a moment after device 0's
        for (int i = 0; i < N; i += 4099) {
            if (got[i] != 42) {
                throw new AssertionError("element " + i + " was " + got[i] + ": the copy ran before the fill it waited for");
            }
        }
    }

    @Test
    void closingAContextWaitsForAPendingPeerCopyOfAnotherContextBeforeFreeingItsMemory() {
        DeviceContext source = open(1, ContextOptions.defaults()); // closed by the test, while the copy is pending
        DeviceBuffer onSource = source.allocate(DType.I32, N);
        await(source.stream().enqueueCopy(HostData.of(pattern(5)), onSource));
        DeviceBuffer here = ctx.allocate(DType.I32, N);
        DeviceStream s = ctx.createStream();
        fn(TestKernels.SLOW_FILL);
        DeviceBuffer busy = ctx.allocate(DType.I32, 1);
        slowFill(s, busy, 1, java.time.Duration.ofMillis(300)); // the copy waits behind this
        DeviceFuture<Void> copy = s.enqueueCopy(onSource, here);
        source.close(); // must not free onSource under the pending copy
        await(copy);
        int[] got = new int[N];
        await(ctx.stream().enqueueCopy(here, HostData.of(got)));
        assertArrayEquals(pattern(5), got, "the peer copy read the closed context's memory before it was freed");
        assertFalse(ctx.isFaulted());
    }

    /** Opens device 1 with a close that waits {@code millis} for futures (the deadline a timed-out close reaches). */
    private DeviceContext openWithCloseDeadline(long millis) {
        System.setProperty("sluice.close.futuresMillis", Long.toString(millis));
        try {
            return open(1, ContextOptions.defaults());
        } finally {
            System.clearProperty("sluice.close.futuresMillis");
        }
    }

    /** A copy into memory of {@code target}, enqueued on a stream of {@code user} held on the host behind {@code gate}. */
    private record HeldCopy(DeviceBuffer there, DeviceStream stream, java.util.concurrent.CompletableFuture<Void> gate,
            DeviceFuture<Void> into) {
    }

    private static HeldCopy heldCopy(DeviceContext user, DeviceContext target, int seed) {
        DeviceBuffer there = target.allocate(DType.I32, N);
        DeviceBuffer here = intBuffer(user, pattern(seed));
        DeviceStream s = user.createStream();
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        s.waitFor(gate); // held on the host: what follows waits for the gate, not for the device
        return new HeldCopy(there, s, gate, s.enqueueCopy(here, there));
    }

    @ExpectWarning(logger = "dev.sluice.engine.LeftBehind", containing = "kept allocated")
    @Test
    void aCloseThatTimesOutKeepsMemoryThatAnotherContextsHeldCopiesStillWriteAndRead() {
        DeviceContext target = openWithCloseDeadline(200);
        HeldCopy held = heldCopy(ctx, target, 3);
        DeviceBuffer back = ctx.allocate(DType.I32, N);
        DeviceFuture<Void> outOf = held.stream().enqueueCopy(held.there(), back);
        long t0 = System.nanoTime();
        target.close(); // reaches its deadline with the copies still held
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(WAIT_SECONDS).toNanos(), "close returned");
        assertTrue(target.isClosed());
        held.gate().complete(null);
        await(held.into());
        await(outOf);
        assertArrayEquals(pattern(3), readInts(held.stream(), back), "the closed context's memory was kept for the held copies");
        assertFalse(ctx.isFaulted(), "no copy touched freed memory");
        assertStreamUsable(held.stream());
    }

    @ExpectWarning(logger = "dev.sluice.engine.LeftBehind", containing = "kept allocated")
    @Test
    void aCloseThatTimesOutKeepsMemoryForACopyHeldBehindABufferCloseToo() {
        DeviceContext target = openWithCloseDeadline(200);
        HeldCopy held = heldCopy(ctx, target, 4);
        held.there().close(); // its free is enqueued behind the held copy
        target.close();
        held.gate().complete(null);
        await(held.into());
        assertFalse(ctx.isFaulted(), "the copy did not write freed memory");
        assertStreamUsable(held.stream());
    }

    @ExpectWarning(logger = "dev.sluice.engine.LeftBehind", containing = "kept allocated")
    @Test
    void memoryKeptForAnotherContextsHeldCopyIsLetGoWhenThatContextDropsIt() {
        DeviceContext target = openWithCloseDeadline(200);
        DeviceContext user = open(0, ContextOptions.defaults());
        HeldCopy held = heldCopy(user, target, 5); // its gate never opens
        target.close();
        user.close(); // drops the held copy: nothing touches the kept memory any more
        awaitFailure(held.into());
        assertFalse(user.isFaulted());
    }
}
