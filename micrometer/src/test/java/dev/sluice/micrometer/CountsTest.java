package dev.sluice.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class CountsTest {

    @Test
    void addReturnsTheCountBeforeAndSumAddsEveryCount() {
        Counts c = new Counts(13);
        assertEquals(13, c.size());
        assertEquals(0, c.add(9, 1), "the first add sees 0: the binder registers the meter then");
        assertEquals(1, c.add(9, 1));
        assertEquals(0, c.add(0, 256));
        assertEquals(2, c.get(9));
        assertEquals(256, c.get(0));
        assertEquals(258, c.sum());
    }

    @Test
    void anIndexOutsideTheCountsIsRefusedNotWrittenIntoThePadding() {
        Counts c = new Counts(4);
        assertThrows(IndexOutOfBoundsException.class, () -> c.add(4, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> c.add(-1, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> c.get(4));
        assertEquals(0, c.sum());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void atomicAddsFromSeveralThreadsLoseNothing() throws Exception {
        Counts c = new Counts(2);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 50_000; i++) {
                    c.addAtomic(1, 1);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(200_000, c.get(1));
        assertEquals(0, c.get(0));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aReaderSeesTheSingleWritersCountsGrowWithoutGoingBack() throws Exception {
        Counts c = new Counts(1);
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 200_000; i++) {
                c.add(0, 1);
            }
        });
        long last = 0;
        while (last < 200_000) {
            long now = c.get(0);
            if (now < last) {
                throw new AssertionError("count went back from " + last + " to " + now);
            }
            last = now;
        }
        writer.join();
        assertEquals(200_000, c.sum());
    }
}
