package dev.sluice.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LatencyRingTest {

    @Test
    void entriesComeOutInOrderWithTheirCategoryAndAFullRingRefuses() {
        LatencyRing ring = new LatencyRing(4);
        for (int i = 0; i < 4; i++) {
            assertTrue(ring.offer(LatencyRing.entry(i, 1000 + i)));
        }
        assertFalse(ring.offer(LatencyRing.entry(5, 1)), "full");
        List<String> out = new ArrayList<>();
        ring.drain((c, latency) -> out.add(c + ":" + latency));
        assertEquals(List.of("0:1000", "1:1001", "2:1002", "3:1003"), out);
        assertTrue(ring.offer(LatencyRing.entry(12, 7)), "room again after the drain");
        out.clear();
        ring.drain((c, latency) -> out.add(c + ":" + latency));
        assertEquals(List.of("12:7"), out);
    }

    @Test
    void aDrainGivesSlotsBackAsItGoesNotOnlyAtItsEnd() {
        LatencyRing ring = new LatencyRing(128);
        for (int i = 0; i < 128; i++) {
            assertTrue(ring.offer(LatencyRing.entry(1, i)));
        }
        assertFalse(ring.offer(LatencyRing.entry(1, 999)), "full");
        List<Boolean> roomWhileDraining = new ArrayList<>();
        int[] seen = new int[1];
        ring.drain((c, latency) -> {
            if (++seen[0] == 65) { // the first 64 slots were given back
                roomWhileDraining.add(ring.offer(LatencyRing.entry(2, 7)));
            }
        });
        assertEquals(List.of(true), roomWhileDraining);
        assertEquals(128, seen[0], "the drain read what was published when it began");
        List<String> out = new ArrayList<>();
        ring.drain((c, latency) -> out.add(c + ":" + latency));
        assertEquals(List.of("2:7"), out);
    }

    @Test
    void latenciesAreClampedToTheirBits() {
        List<Long> out = new ArrayList<>();
        LatencyRing ring = new LatencyRing(2);
        ring.offer(LatencyRing.entry(3, -5));
        ring.offer(LatencyRing.entry(3, Long.MAX_VALUE));
        ring.drain((c, latency) -> {
            assertEquals(3, c);
            out.add(latency);
        });
        assertEquals(List.of(0L, (1L << 56) - 1), out);
    }

    @Test
    void aCapacityThatIsNotAPowerOfTwoIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LatencyRing(3));
    }

    /** The producer racing a draining consumer: every accepted entry comes out once, in order; refused ones are the producer's. */
    @Test
    @Timeout(60)
    void theProducerRacingTheConsumerLosesNothing() throws InterruptedException {
        LatencyRing ring = new LatencyRing(64);
        int each = 800_000;
        AtomicLong refused = new AtomicLong();
        AtomicLong refusedSum = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        Thread producer = new Thread(() -> {
            for (int i = 1; i <= each; i++) {
                if (!ring.offer(LatencyRing.entry(5, i))) {
                    refused.incrementAndGet();
                    refusedSum.addAndGet(i);
                }
            }
            done.countDown();
        });
        producer.start();
        long[] count = new long[1];
        long[] sum = new long[1];
        long[] last = new long[1];
        AtomicBoolean ordered = new AtomicBoolean(true);
        AtomicBoolean category = new AtomicBoolean(true);
        LatencyRing.Sink sink = (c, latency) -> {
            count[0]++;
            sum[0] += latency;
            if (latency <= last[0]) {
                ordered.set(false);
            }
            if (c != 5) {
                category.set(false);
            }
            last[0] = latency;
        };
        while (!done.await(0, TimeUnit.MILLISECONDS)) {
            ring.drain(sink);
        }
        ring.drain(sink);
        assertEquals(each, count[0] + refused.get(), "every entry drained or refused");
        assertEquals(each * (each + 1L) / 2, sum[0] + refusedSum.get());
        assertTrue(ordered.get(), "entries come out in the producer's order");
        assertTrue(category.get(), "each with its category");
    }
}
