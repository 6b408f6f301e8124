package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * The public pool of pinned buffers on a fake context: its size classes, reuse, limit, refusals and close. That a buffer
 * with a copy in flight is not handed out again is checked where copies run (the Arrow factory's and the pipelines'
 * tests, on the CPU simulator).
 */
class HostBufferPoolTest {

    private final FakeDevices.Releases releases = new FakeDevices.Releases();
    private final DeviceContext ctx = FakeDevices.open(Api.CPU, n -> (StreamHandle) Proxy.newProxyInstance(
            HostBufferPoolTest.class.getClassLoader(), new Class<?>[] {StreamHandle.class}, (p, m, a) -> null), releases);

    @Test
    void sizeClassesArePagesThenEighthsOfThePowerOfTwo() {
        assertEquals(4096, HostBufferPool.sizeClass(1));
        assertEquals(4096, HostBufferPool.sizeClass(4096));
        assertEquals(8192, HostBufferPool.sizeClass(4097));
        assertEquals(1 << 20, HostBufferPool.sizeClass(1 << 20));
        assertEquals((1 << 20) + (1 << 17), HostBufferPool.sizeClass((1 << 20) + 1));
        assertEquals(18L << 20, HostBufferPool.sizeClass((16L << 20) + 4160));
        for (long size = 4097; size < 1 << 24; size = size * 3 / 2 + 7) {
            long c = HostBufferPool.sizeClass(size);
            assertTrue(c >= size && c <= size + size / 8 + HostBufferPool.PAGE, size + " -> " + c);
        }
        var e = assertThrows(InvalidArgumentException.class, () -> HostBufferPool.sizeClass(0));
        assertEquals("bytes", e.argument());
    }

    @Test
    void aBufferGivenBackServesTheNextRequestOfItsClass() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 1 << 20)) {
            HostBuffer a = pool.take(DType.F32, 1000);
            assertEquals(1000, a.count());
            assertEquals(DType.F32, a.dtype());
            long address = a.segment().address();
            a.setFloat(0, 7f);
            pool.give(a);
            assertEquals(4096, pool.reusableBytes(), "no copy pending: reusable at once");
            HostBuffer b = pool.take(DType.I32, 900); // the same 4 KiB class, another type
            assertEquals(address, b.segment().address());
            assertEquals(Float.floatToRawIntBits(7f), b.getInt(0), "reused memory holds what its last user left");
            assertEquals(1, pool.allocations());
            assertEquals(1, pool.reuses());
            HostBuffer c = pool.take(DType.F32, 2000); // another class: newly pinned
            assertNotEquals(address, c.segment().address());
            assertEquals(2, pool.allocations());
            assertEquals(2, pool.takenBuffers());
            pool.give(b);
            pool.give(c);
        }
    }

    @Test
    void theLimitFreesTheOldestReusableBuffersFirst() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 8192)) {
            HostBuffer a = pool.take(DType.U8, 4096);
            HostBuffer b = pool.take(DType.U8, 4096);
            HostBuffer c = pool.take(DType.U8, 4096);
            long addressB = b.segment().address();
            long addressC = c.segment().address();
            pool.give(a);
            pool.give(b);
            pool.give(c); // over the limit: a, the oldest, is freed
            assertEquals(8192, pool.heldBytes());
            assertEquals(1, releases.hostFrees.get());
            HostBuffer big = pool.take(DType.U8, 3 * 4096);
            pool.give(big); // larger than all the pool may keep beside nothing: freed
            assertEquals(2, releases.hostFrees.get(), "and the oversized buffer");
            assertEquals(8192, pool.heldBytes());
            HostBuffer d = pool.take(DType.U8, 10);
            HostBuffer e = pool.take(DType.U8, 10);
            List<Long> reused = List.of(d.segment().address(), e.segment().address());
            assertTrue(reused.contains(addressB) && reused.contains(addressC), reused::toString);
            pool.give(d); // given back, not left for the leak detector to report once unreachable
            pool.give(e);
        }
    }

    @Test
    void aPoolOfLimitZeroKeepsNothingAndPinsExactSizes() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 0)) {
            HostBuffer a = pool.take(DType.F64, 3);
            assertEquals(24, a.byteSize());
            pool.give(a);
            assertEquals(0, pool.heldBytes());
            assertEquals(1, releases.hostFrees.get());
        }
    }

    @Test
    void refusesWhatItDidNotLendAndBadRequests() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 1 << 20); HostBuffer own = ctx.allocateHost(DType.U8, 10)) {
            var e = assertThrows(InvalidArgumentException.class, () -> pool.give(own));
            assertEquals("buffer", e.argument());
            HostBuffer a = pool.take(DType.U8, 10);
            pool.give(a);
            e = assertThrows(InvalidArgumentException.class, () -> pool.give(a));
            assertTrue(e.getMessage().contains("given back already"), e.getMessage());
            e = assertThrows(InvalidArgumentException.class, () -> pool.take(DType.F32, 0));
            assertEquals("count", e.argument());
            e = assertThrows(InvalidArgumentException.class, () -> pool.take(null, 1));
            assertEquals("type", e.argument());
        }
        var e = assertThrows(InvalidArgumentException.class, () -> HostBufferPool.of(ctx, -1));
        assertEquals("limitBytes", e.argument());
        e = assertThrows(InvalidArgumentException.class, () -> HostBufferPool.of(null, 1));
        assertEquals("context", e.argument());
    }

    @Test
    void aTakenBuffersCloseLeavesTheMemoryToThePool() {
        try (HostBufferPool pool = HostBufferPool.of(ctx, 1 << 20)) {
            HostBuffer a = pool.take(DType.U8, 10);
            a.close();
            assertFalse(a.isClosed(), "a view: the pool owns the memory");
            pool.give(a);
            assertEquals(0, releases.hostFrees.get());
        }
    }

    @Test
    void closeFreesWhatItKeepsOnceAndLaterBuffersGivenBackAreFreed() throws Exception {
        HostBufferPool pool = HostBufferPool.of(ctx, 1 << 20);
        HostBuffer kept = pool.take(DType.U8, 10);
        HostBuffer out = pool.take(DType.U8, 10);
        pool.give(kept);
        CyclicBarrier start = new CyclicBarrier(4);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 4; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    pool.close();
                    pool.close();
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of(), failures);
        assertTrue(pool.isClosed());
        assertEquals(1, releases.hostFrees.get(), "the reusable buffer, freed once");
        assertFalse(out.isClosed(), "a buffer taken stays its taker's");
        pool.give(out);
        assertEquals(2, releases.hostFrees.get());
        HostBuffer after = pool.take(DType.U8, 10); // still serves, reusing nothing
        pool.give(after);
        assertEquals(3, releases.hostFrees.get());
        assertEquals(0, pool.heldBytes());
    }
}
