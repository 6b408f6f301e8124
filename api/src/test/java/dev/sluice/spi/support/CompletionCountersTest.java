package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The streams' completion counters ({@link CompletionCounters}) over fake mapped memory; runs without a GPU. */
class CompletionCountersTest {

    private final FakePinnedMemory memory = new FakePinnedMemory();
    private final CompletionCounters counters = new CompletionCounters(memory, 100);

    @AfterEach
    void close() {
        counters.destroy();
        memory.close();
    }

    /** What the device does: writes marker number {@code n} (its low 32 bits) at the counter's device address. */
    private static void deviceWrites(CompletionCounters.Counter c, long n) {
        MemorySegment.ofAddress(c.device() - FakePinnedMemory.DEVICE_OFFSET).reinterpret(4)
                .set(ValueLayout.JAVA_INT, 0, (int) n);
    }

    @Test
    void aCounterStartsAtZeroAndIsReachedByTheMarkersWritten() {
        CompletionCounters.Counter c = counters.tryAcquire();
        assertEquals(0, c.value(), "the fake memory is filled with 0x5a: the pool must clear the counter");
        assertFalse(c.reached(1));
        deviceWrites(c, 3);
        assertTrue(c.reached(1));
        assertTrue(c.reached(3));
        assertFalse(c.reached(4));
        assertEquals(1, memory.mappedAllocations);
    }

    @Test
    void theComparisonIsCyclicAcrossTheWrapOfThe32BitWord() {
        CompletionCounters.Counter c = counters.tryAcquire();
        long beforeWrap = 0xFFFF_FFFFL;
        deviceWrites(c, beforeWrap - 1);
        assertFalse(c.reached(beforeWrap));
        deviceWrites(c, beforeWrap + 2); // 1 in the word
        assertTrue(c.reached(beforeWrap), "a marker before the wrap stays done after it");
        assertTrue(c.reached(beforeWrap + 2));
        assertFalse(c.reached(beforeWrap + 3));
        assertFalse(c.reached(beforeWrap + 5_000), "a marker far ahead is not done");
    }

    @Test
    void countersSitACacheLineApartAndAReleasedOneComesBackCleared() {
        Set<Long> addresses = new HashSet<>();
        CompletionCounters.Counter first = null;
        for (int i = 0; i < 70; i++) { // more than one page
            CompletionCounters.Counter c = counters.tryAcquire();
            if (first == null) {
                first = c;
            }
            assertTrue(addresses.add(c.device()));
        }
        assertEquals(2, counters.pages());
        deviceWrites(first, 99);
        counters.release(first);
        CompletionCounters.Counter again = counters.tryAcquire();
        assertEquals(first.device(), again.device(), "the released counter is reused");
        assertEquals(0, again.value(), "and cleared for its new stream");
        assertEquals(2, counters.pages(), "no page more");
        long[] sorted = addresses.stream().mapToLong(Long::longValue).sorted().toArray();
        for (int i = 1; i < sorted.length; i++) {
            assertTrue(sorted[i] - sorted[i - 1] >= 64, "two counters share a cache line");
        }
    }

    @Test
    void noMoreThanTheLimitAreHandedOutAtOnce() {
        try (FakePinnedMemory m = new FakePinnedMemory()) {
            CompletionCounters two = new CompletionCounters(m, 2);
            CompletionCounters.Counter a = two.tryAcquire();
            CompletionCounters.Counter b = two.tryAcquire();
            assertNotNull(a);
            assertNotNull(b);
            assertNull(two.tryAcquire(), "a third stream polls events");
            assertEquals(2, two.inUse());
            two.release(a);
            assertNotNull(two.tryAcquire(), "a counter given back serves the next stream");
            two.destroy();
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CompletionCounters(memory, 0));
        assertTrue(e.getMessage().contains("limit") && e.getMessage().contains("0"), e.getMessage());
    }

    @Test
    void theProbeGivesItsCounterBackOnlyWhenTheDeviceWroteIt() {
        assertNull(counters.probe((device, value) -> MemorySegment.ofAddress(device - FakePinnedMemory.DEVICE_OFFSET)
                .reinterpret(4).set(ValueLayout.JAVA_INT, 0, value)));
        assertEquals(0, counters.inUse(), "a written counter is given back");

        String unwritten = counters.probe((device, value) -> { });
        assertTrue(unwritten.contains("read 0") && unwritten.contains("not 1"), unwritten);
        String refused = counters.probe((device, value) -> {
            throw new IllegalStateException("cuStreamWriteValue32 refused (test)");
        });
        assertTrue(refused.contains("refused") && refused.contains("cuStreamWriteValue32"), refused);
        assertEquals(2, counters.inUse(), "a counter the device may still write is not handed out again");

        memory.failAllocation = true;
        String noMemory = new CompletionCounters(memory, 1).probe((device, value) -> { });
        assertTrue(noMemory.contains("host-mapped memory"), noMemory);
    }

    @Test
    void destroyFreesEveryPageOnceAndRefusesLaterCounters() {
        counters.tryAcquire();
        counters.destroy();
        counters.destroy();
        assertEquals(memory.allocations, memory.frees);
        IllegalStateException e = assertThrows(IllegalStateException.class, counters::tryAcquire);
        assertTrue(e.getMessage().contains("destroyed"), e.getMessage());
    }

    @Test
    void aPageTheDriverRefusesIsNotKeptAndTheNextAcquireTriesAgain() {
        memory.failMapping = true;
        assertThrows(IllegalStateException.class, counters::tryAcquire);
        assertEquals(memory.allocations, memory.frees, "the page whose mapping failed was freed");
        CompletionCounters.Counter c = counters.tryAcquire();
        assertEquals(0, c.value());
    }
}
