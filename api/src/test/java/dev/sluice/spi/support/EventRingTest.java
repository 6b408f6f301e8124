package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class EventRingTest {

    @Test
    void pollReturnsEventsInOfferOrderAndZeroWhenEmpty() {
        EventRing ring = new EventRing(4);
        assertEquals(0, ring.poll());
        for (long e = 1; e <= 4; e++) {
            assertTrue(ring.offer(e));
        }
        assertFalse(ring.offer(5), "full at its capacity");
        assertEquals(1, ring.poll());
        assertTrue(ring.offer(5), "room again after a poll");
        assertEquals(2, ring.poll());
        assertEquals(3, ring.poll());
        assertEquals(4, ring.poll());
        assertEquals(5, ring.poll());
        assertEquals(0, ring.poll());
    }

    @Test
    void capacityMustBeAPowerOfTwo() {
        var e = assertThrows(IllegalArgumentException.class, () -> new EventRing(1000));
        assertTrue(e.getMessage().contains("1000"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new EventRing(0));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void oneProducerAndOneConsumerLoseAndReorderNothing() throws Exception {
        EventRing ring = new EventRing(64);
        long n = 200_000;
        Thread producer = Thread.ofPlatform().start(() -> {
            for (long e = 1; e <= n; ) {
                if (ring.offer(e)) {
                    e++;
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        long expected = 1;
        while (expected <= n) {
            long e = ring.poll();
            if (e == 0) {
                Thread.onSpinWait();
                continue;
            }
            assertEquals(expected, e);
            expected++;
        }
        producer.join();
        assertEquals(0, ring.poll());
    }
}
