package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.HostMemory;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link DeviceAllocation} and {@link PinnedHostMemory}: freed at most once, whichever path frees them. */
class AllocationsTest {

    @Test
    void ofManyThreadsFreeingOneAllocationExactlyOneFrees() throws Exception {
        for (int round = 0; round < 200; round++) {
            DeviceAllocation m = new DeviceAllocation(0x1000, 64, true, 0);
            int threads = 4;
            CyclicBarrier start = new CyclicBarrier(threads);
            AtomicInteger claims = new AtomicInteger();
            Thread[] ts = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                ts[i] = Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    if (m.claimFree()) {
                        claims.incrementAndGet();
                    }
                });
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(1, claims.get());
        }
    }

    @Test
    void aModuleVariableIsNeverFreed() {
        DeviceAllocation v = DeviceAllocation.moduleVariable(0x2000, 4, 1);
        assertFalse(v.claimFree());
        assertFalse(v.streamOrdered());
        assertEquals(1, v.device());
        assertEquals(0x2000, v.address());
    }

    @Test
    void memoryOfAnotherBackendIsRefusedByName() {
        DeviceMemory foreign = new DeviceMemory() {
            @Override
            public long byteSize() {
                return 8;
            }

            @Override
            public long address() {
                return 0;
            }

            @Override
            public String toString() {
                return "CpuMemory[8 bytes]";
            }
        };
        var e = assertThrows(IllegalArgumentException.class, () -> DeviceAllocation.of(foreign));
        assertEquals("memory CpuMemory[8 bytes] was not allocated by this backend", e.getMessage());
        DeviceAllocation own = new DeviceAllocation(0x1000, 8, false, 0);
        assertSame(own, DeviceAllocation.of(own));
    }

    @Test
    void hostMemoryIsFreedOnceAndForeignHostMemoryRefused() {
        PinnedHostMemory h = new PinnedHostMemory(MemorySegment.ofArray(new byte[16]), true);
        assertTrue(h.registered());
        assertTrue(h.claimFree());
        assertFalse(h.claimFree());
        assertSame(h, PinnedHostMemory.of(h));
        HostMemory foreign = new HostMemory() {
            @Override
            public MemorySegment segment() {
                return MemorySegment.NULL;
            }

            @Override
            public boolean registered() {
                return false;
            }
        };
        assertThrows(IllegalArgumentException.class, () -> PinnedHostMemory.of(foreign));
    }
}
