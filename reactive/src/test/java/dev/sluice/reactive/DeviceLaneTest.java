package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lane type the pipeline and the Flink function share: slots reused and grown, staging from and back to the pool,
 * a large fill split over the copy threads and ordered before the upload, repeated work, and release.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeviceLaneTest {

    private static DeviceContext ctx;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    @Test
    void slotsAreReusedAndGrownAndStagingGoesBackToThePool() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 1 << 20)) {
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 0, pool, false, false);
            DeviceBuffer d = lane.deviceBuffer(0, DType.F32, 100);
            HostBuffer h = lane.staging(0, DType.F32, 100);
            assertEquals(d.address(), lane.deviceBuffer(0, DType.F32, 50).address(), "a slice of the same buffer");
            assertEquals(h.segment().address(), lane.staging(0, DType.F32, 60).segment().address(), "the same memory");
            assertEquals(1, pool.takenBuffers());
            HostBuffer larger = lane.staging(0, DType.F32, 5000); // another size class: the old one goes back
            assertEquals(5000, larger.count());
            assertEquals(1, pool.takenBuffers());
            assertEquals(4096, pool.heldBytes());
            assertEquals(200, lane.deviceBuffer(0, DType.F32, 200).count());
            lane.close();
            lane.close();
            assertEquals(0, pool.takenBuffers(), "every staging buffer given back");
            var e = assertThrows(ClosedResourceException.class, () -> lane.staging(0, DType.F32, 1));
            assertTrue(e.getMessage().contains("released"), e.getMessage());
        }
    }

    @Test
    void aSlotOutOfRangeOrANullBodyIsRefusedNamingIt() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 1 << 20)) {
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 0, pool, false, false);
            for (int slot : new int[] {-1, DeviceLane.MAX_SLOT + 1, Integer.MAX_VALUE}) {
                // a table grown to Integer.MAX_VALUE slots would take the heap
                var d = assertThrows(InvalidArgumentException.class, () -> lane.deviceBuffer(slot, DType.F32, 4));
                assertEquals("slot", d.argument());
                assertTrue(d.getMessage().contains(slot + " is outside 0 to 1023"), d.getMessage());
                var h = assertThrows(InvalidArgumentException.class, () -> lane.staging(slot, DType.F32, 4));
                assertEquals("slot", h.argument());
            }
            assertEquals(4, lane.staging(DeviceLane.MAX_SLOT, DType.F32, 4).count(), "the highest slot is one");
            var b = assertThrows(InvalidArgumentException.class, () -> lane.repeat(null));
            assertEquals("body", b.argument());
            lane.close();
            assertEquals(0, pool.takenBuffers());
        }
    }

    @Test
    void aLargeFillIsCopiedBeforeTheUploadThatFollowsIt() throws Exception {
        int n = 3 << 20; // 12 MiB: split over the copy threads
        float[] in = new float[n];
        for (int i = 0; i < n; i++) {
            in[i] = i;
        }
        try (HostBufferPool pool = HostBufferPool.of(ctx, 64 << 20)) {
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 0, pool, false, false);
            HostBuffer staging = lane.staging(0, DType.F32, n);
            DeviceBuffer d = lane.deviceBuffer(0, DType.F32, n);
            CompletableFuture<Void> filled = lane.fill(staging, MemorySegment.ofArray(in));
            lane.stream().enqueueCopy(staging, d);
            HostBuffer back = lane.staging(1, DType.F32, n);
            lane.stream().enqueueCopy(d, back).get(30, TimeUnit.SECONDS);
            assertTrue(filled.isDone());
            float[] out = back.segment().toArray(ValueLayout.JAVA_FLOAT);
            assertArrayEquals(in, out);
            lane.release(LanePool.CLOSER).get(30, TimeUnit.SECONDS);
            assertEquals(0, pool.takenBuffers());
        }
    }

    @Test
    void aFillThatFailsCompletesItsFutureExceptionally() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 64 << 20)) {
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 0, pool, false, false);
            HostBuffer staging = lane.staging(0, DType.U8, 4 << 20);
            MemorySegment gone;
            try (Arena arena = Arena.ofShared()) {
                gone = arena.allocate(4 << 20);
            }
            MemorySegment closed = gone;
            CompletableFuture<Void> f = lane.fill(staging, closed);
            assertThrows(CompletionException.class, f::join);
            var e = assertThrows(InvalidArgumentException.class,
                    () -> lane.fill(staging, MemorySegment.ofArray(new byte[(4 << 20) + 1])));
            assertEquals("source", e.argument());
            lane.close();
        }
    }

    @Test
    void repeatRecordsTheBodyAndReplaysItWithGraphReplay() throws Exception {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 1 << 20);
                DeviceFunction addOne = ctx.compile(TestDevice.ADD_ONE)) {
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 3, pool, true, true);
            assertEquals(3, lane.index());
            DeviceBuffer d = lane.deviceBuffer(0, DType.F32, 256);
            lane.stream().enqueueFill(d, 0f);
            for (int i = 0; i < 4; i++) {
                Object got = lane.repeat(s -> s.enqueueLaunch(addOne, LaunchConfig.forElements(256), d, 256L));
                assertTrue(got instanceof CompletableFuture<?>, "the body's value: " + got);
            }
            HostBuffer h = lane.staging(0, DType.F32, 256);
            lane.stream().enqueueCopy(d, h).get(30, TimeUnit.SECONDS);
            assertEquals(4f, h.getFloat(255));
            String counts = "replays " + lane.replays() + ", builds " + lane.builds() + ", fallbacks " + lane.fallbacks();
            assertEquals(1, lane.builds(), counts);
            assertEquals(4, lane.replays(), "every call launched the graph, the first after building it: " + counts);
            assertEquals(0, lane.fallbacks(), counts);
            lane.close();
        }
    }

    @Test
    void anUploadLaunchAndDownloadThroughTheLanesBuffersReplayAsOneGraph() throws Exception {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 1 << 20);
                DeviceFunction addOne = ctx.compile(TestDevice.ADD_ONE)) {
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 0, pool, true, true);
            for (int item = 0; item < 4; item++) {
                int n = 1000; // not a size class: the staging buffer is a view of part of the pool's buffer
                HostBuffer staging = lane.staging(0, DType.F32, n);
                DeviceBuffer d = lane.deviceBuffer(0, DType.F32, n);
                for (int i = 0; i < n; i++) {
                    staging.setFloat(i, item);
                }
                CompletableFuture<Void> done = lane.repeat(s -> {
                    s.enqueueCopy(staging, d);
                    s.enqueueLaunch(addOne, LaunchConfig.forElements(n), d, (long) n);
                    return s.enqueueCopy(d, staging);
                });
                done.get(30, TimeUnit.SECONDS);
                assertEquals(item + 1f, staging.getFloat(n - 1));
            }
            String counts = "replays " + lane.replays() + ", builds " + lane.builds() + ", fallbacks " + lane.fallbacks();
            assertEquals(0, lane.fallbacks(), counts);
            assertEquals(4, lane.replays(), counts);
            lane.close();
        }
    }

    @Test
    void openRefusesWhatItCannotUse() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 0)) {
            var e = assertThrows(InvalidArgumentException.class, () -> DeviceLane.open(null, 0, pool, false, false));
            assertEquals("stream", e.argument());
            e = assertThrows(InvalidArgumentException.class, () -> DeviceLane.open(ctx.createStream(), -1, pool, false, false));
            assertEquals("index", e.argument());
        }
    }

    @Test
    void hostCopiesSplitLargeCopiesAndCopyEveryByte() {
        HostCopies copies = HostCopies.fromProperties();
        for (long bytes : new long[] {10, (1 << 20) - 1, 1 << 20, (5L << 20) + 77}) {
            byte[] from = new byte[(int) bytes];
            for (int i = 0; i < from.length; i++) {
                from[i] = (byte) (i * 31 + 7);
            }
            byte[] to = new byte[(int) bytes + 5];
            CompletableFuture<Void> f = copies.copy(MemorySegment.ofArray(from), MemorySegment.ofArray(to));
            assertSame(null, f.join());
            for (int i = 0; i < from.length; i++) {
                if (to[i] != from[i]) {
                    throw new AssertionError("byte " + i + " of " + bytes);
                }
            }
            assertEquals(0, to[from.length], "nothing past the copy");
        }
        byte[] out = new byte[3 << 20];
        DeviceLane.copy(MemorySegment.ofArray(new byte[3 << 20]).fill((byte) 9), MemorySegment.ofArray(out)).join();
        assertEquals(9, out[out.length - 1], "the public copy, split");
        var e = assertThrows(InvalidArgumentException.class,
                () -> DeviceLane.copy(MemorySegment.ofArray(new byte[10]), MemorySegment.ofArray(new byte[9])));
        assertEquals("to", e.argument());
    }
}
