package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Pinned host memory of one context used by the streams of another ({@link DeviceContext#sharesPinnedMemoryWith}):
 * one set of pinned buffers feeding several devices. Each test runs against a second context on device 0 and, where
 * the backend has one, a context on device 1. A backend whose contexts do not share pinned memory must refuse such a
 * copy, naming the argument and enqueuing nothing.
 */
public abstract class AbstractSharedPinnedMemoryTest extends ConformanceBase {

    private static final int N = 1 << 16;

    /** Other contexts to share with: one more on device 0, and one on device 1 where there is one. */
    private List<DeviceContext> others() {
        List<DeviceContext> out = new ArrayList<>();
        out.add(open(0, ContextOptions.defaults()));
        if (DeviceContext.deviceCount(target().backendName()) >= 2) {
            out.add(open(1, ContextOptions.defaults()));
        }
        return out;
    }

    private static int[] pattern(int seed) {
        int[] v = new int[N];
        for (int i = 0; i < N; i++) {
            v[i] = i * 7 + seed;
        }
        return v;
    }

    private static HostBuffer pinned(DeviceContext owner, int[] values) {
        HostBuffer h = owner.allocateHost(DType.I32, values.length);
        h.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(values));
        return h;
    }

    private static int[] read(HostBuffer h) {
        return h.segment().toArray(java.lang.foreign.ValueLayout.JAVA_INT);
    }

    @Test
    void sharingHoldsForTheContextItselfAndBothWays() {
        assertTrue(ctx.sharesPinnedMemoryWith(ctx));
        for (DeviceContext other : others()) {
            assertEquals(ctx.sharesPinnedMemoryWith(other), other.sharesPinnedMemoryWith(ctx), ctx + " and " + other);
        }
    }

    @Test
    void aStreamCopiesToAndFromPinnedMemoryOfAnotherContextWithWhichItShares() {
        for (DeviceContext other : others()) {
            Assumptions.assumeTrue(ctx.sharesPinnedMemoryWith(other), () -> ctx + " does not share pinned memory with " + other);
            try (HostBuffer in = pinned(other, pattern(3)); HostBuffer out = other.allocateHost(DType.I32, N);
                 HostBuffer ranged = other.allocateHost(DType.I32, N); DeviceBuffer d = ctx.allocate(DType.I32, N)) {
                DeviceStream s = ctx.createStream();
                s.enqueueCopy(in, d);
                await(s.enqueueCopy(d, out));
                assertArrayEquals(pattern(3), read(out), "whole buffers, " + other);
                // Ranges of both sides, and a 2-D copy of 4 rows of 100 elements with pitches 128 and 256.
                await(s.enqueueCopy(in.slice(1000, 5000), d.slice(0, 5000)));
                await(s.enqueueCopy(d.slice(0, 5000), ranged.slice(20_000, 5000)));
                int[] got = read(ranged);
                for (int i = 0; i < 5000; i++) {
                    assertEquals(pattern(3)[1000 + i], got[20_000 + i], "ranged element " + i + ", " + other);
                }
                await(s.enqueueCopy2D(in, 128, d, 256, 100, 4));
                await(s.enqueueCopy2D(d, 256, out, 128, 100, 4));
                assertArrayEquals(pattern(3), read(out), "a 2-D round trip changes nothing, " + other);
            }
        }
    }

    @Test
    void aBackendThatDoesNotSharePinnedMemoryRefusesTheCopyNamingTheArgument() {
        for (DeviceContext other : others()) {
            Assumptions.assumeFalse(ctx.sharesPinnedMemoryWith(other), () -> ctx + " shares pinned memory with " + other);
            try (HostBuffer h = other.allocateHost(DType.I32, N); DeviceBuffer d = ctx.allocate(DType.I32, N)) {
                DeviceStream s = ctx.createStream();
                assertInvalid("source", s, () -> s.enqueueCopy(h, d), "sharesPinnedMemoryWith");
                assertInvalid("destination", s, () -> s.enqueueCopy(d, h), "sharesPinnedMemoryWith");
            }
        }
    }

    /** A copy from pinned memory of another context, held on {@link #ctx}'s stream behind about 300 ms of work. */
    private record PendingCopy(DeviceContext owner, HostBuffer in, DeviceStream stream, DeviceBuffer into,
            DeviceFuture<Void> copy) {
    }

    private PendingCopy pendingCopyFromAnotherContext(int seed) {
        DeviceContext owner = others().getLast();
        Assumptions.assumeTrue(ctx.sharesPinnedMemoryWith(owner), () -> ctx + " does not share pinned memory with " + owner);
        HostBuffer in = pinned(owner, pattern(seed));
        DeviceStream s = ctx.createStream();
        DeviceBuffer busy = ctx.allocate(DType.I32, 1);
        DeviceBuffer d = ctx.allocate(DType.I32, N);
        slowFill(s, busy, 1, Duration.ofMillis(300)); // the copy waits behind this
        return new PendingCopy(owner, in, s, d, s.enqueueCopy(in, d));
    }

    @Test
    void closingTheContextThatOwnsTheMemoryWaitsForAnotherContextsPendingCopy() {
        PendingCopy p = pendingCopyFromAnotherContext(5);
        p.owner().close(); // must not free the pinned memory under the pending copy
        assertTrue(p.in().isClosed(), "the owner's close closes its host buffers");
        await(p.copy());
        assertArrayEquals(pattern(5), readInts(ctx.stream(), p.into()), "the copy read the memory after it was freed");
        assertFalse(ctx.isFaulted());
        assertThrows(ClosedResourceException.class, () -> p.stream().enqueueCopy(p.in(), p.into()),
                "a closed host buffer is refused");
    }

    @Test
    void closingTheHostBufferFreesItOnlyAfterAnotherContextsPendingCopy() {
        PendingCopy p = pendingCopyFromAnotherContext(9);
        DeviceContext owner = p.owner();
        p.in().close();
        await(p.copy());
        assertArrayEquals(pattern(9), readInts(ctx.stream(), p.into()), "the copy read the memory after it was freed");
        // The owner goes on: its own streams still use pinned memory of their own.
        try (HostBuffer again = pinned(owner, pattern(1))) {
            DeviceBuffer there = owner.allocate(DType.I32, N);
            await(owner.stream().enqueueCopy(again, there));
            assertArrayEquals(pattern(1), readInts(owner.stream(), there));
        }
    }
}
