package dev.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class OwnLineTest {

    @Test
    void aLongKeepsWhatWasSetPlainOrVolatile() {
        OwnLine.OfLong l = new OwnLine.OfLong();
        assertEquals(0, l.get());
        l.set(41);
        assertEquals(41, l.getVolatile());
        l.setVolatile(Long.MIN_VALUE);
        assertEquals(Long.MIN_VALUE, l.get());
    }

    @Test
    void aReferenceStartsWithItsValueAndKeepsWhatWasSet() {
        Object first = new Object();
        OwnLine.OfReference<Object> r = new OwnLine.OfReference<>(first);
        assertSame(first, r.get());
        assertSame(first, r.getVolatile());
        Object second = new Object();
        r.setVolatile(second);
        assertSame(second, r.get());
        r.set(null);
        assertNull(r.getVolatile());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aVolatileWritePublishesWhatCameBefore() throws Exception {
        // the completed sequence's protocol: data written before the volatile store is seen by a reader that sees it
        OwnLine.OfLong flag = new OwnLine.OfLong();
        long[] data = new long[1];
        Thread writer = Thread.ofPlatform().start(() -> {
            for (long i = 1; i <= 100_000; i++) {
                data[0] = i;
                flag.setVolatile(i);
                while (flag.getVolatile() != -i) {
                    Thread.onSpinWait();
                }
            }
        });
        for (long i = 1; i <= 100_000; i++) {
            while (flag.getVolatile() != i) {
                Thread.onSpinWait();
            }
            assertEquals(i, data[0]);
            flag.setVolatile(-i);
        }
        writer.join();
    }
}
