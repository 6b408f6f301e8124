package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StagingPoolTest {

    @Test
    void aPieceTakesTheSmallestPowerOfTwoThatHoldsItUpToTheLargest() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            StagingPool pool = new StagingPool(mem, 1024, 8192, 100);
            assertEquals(0, pool.sizeClass(0));
            assertEquals(0, pool.sizeClass(1024));
            assertEquals(1, pool.sizeClass(1025));
            assertEquals(3, pool.sizeClass(8192));
            assertEquals(3, pool.sizeClass(1 << 30), "a longer copy is cut into largest pieces");
            StagingPool.Buffer b = pool.acquire(3000);
            assertEquals(4096, b.capacity());
            assertEquals(2, b.sizeClass());
            assertEquals(8192, pool.acquire(1 << 20).capacity());
            assertEquals(4096 + 8192, pool.pinnedBytes());
            assertEquals(0, mem.mappedAllocations, "staging memory is not mapped");
        }
    }

    @Test
    void aReleasedBufferIsReusedForItsSizeClass() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            StagingPool pool = new StagingPool(mem, 1024, 8192, 100);
            StagingPool.Buffer b = pool.acquire(2000);
            pool.release(b);
            assertSame(b, pool.acquire(1500));
            assertEquals(1, mem.allocations);
            pool.acquire(500);
            assertEquals(2, mem.allocations, "another size class: another buffer");
        }
    }

    @Test
    void atTheLimitTryAcquireWaitsForAReleaseAndAcquireSaysWhy() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            StagingPool pool = new StagingPool(mem, 4096, 4096, 2);
            StagingPool.Buffer a = pool.acquire(4096);
            pool.acquire(4096);
            assertNull(pool.tryAcquire(100));
            var e = assertThrows(IllegalStateException.class, () -> pool.acquire(100));
            assertTrue(e.getMessage().contains("all 2 staging buffers"), e.getMessage());
            pool.release(a);
            assertSame(a, pool.tryAcquire(100));
        }
    }

    @Test
    void aFailedAllocationDoesNotCountAgainstTheLimit() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            StagingPool pool = new StagingPool(mem, 4096, 4096, 1);
            mem.failAllocation = true;
            assertThrows(IllegalStateException.class, () -> pool.tryAcquire(1));
            mem.failAllocation = false;
            assertNotNull(pool.tryAcquire(1));
        }
    }

    @Test
    void destroyFreesEveryBufferOnceInUseOrNot() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            StagingPool pool = new StagingPool(mem, 1024, 8192, 100);
            StagingPool.Buffer a = pool.acquire(1000);
            pool.acquire(5000);
            pool.release(a);
            pool.destroy();
            pool.destroy();
            assertEquals(2, mem.frees);
            assertEquals(0, mem.live());
            pool.release(a); // late: dropped
            var e = assertThrows(IllegalStateException.class, () -> pool.tryAcquire(1));
            assertEquals("staging buffers destroyed", e.getMessage());
        }
    }

    @Test
    void badPoliciesAreRefusedNamingTheArgument() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            var e = assertThrows(IllegalArgumentException.class, () -> new StagingPool(mem, 1000, 8192, 1));
            assertTrue(e.getMessage().startsWith("smallest 1000"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> new StagingPool(mem, 1024, 512, 1));
            assertTrue(e.getMessage().startsWith("largest 512"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> new StagingPool(mem, 1024, 1024, 0));
            assertTrue(e.getMessage().startsWith("maxBuffers 0"), e.getMessage());
        }
    }
}
