package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When the completion thread asks the driver about a fault ({@link StallWatch}); runs without a GPU. */
class StallWatchTest {

    private final StallWatch watch = new StallWatch(100);

    @Test
    void markersThatKeepCompletingNeverAsk() {
        for (long seq = 1, now = 0; seq < 1_000; seq++, now += 90) {
            assertFalse(watch.due(seq, now), "marker " + seq);
            assertFalse(watch.due(seq, now + 50), "marker " + seq + " polled again");
        }
    }

    @Test
    void aStalledMarkerAsksOncePerInterval() {
        assertFalse(watch.due(7, 1_000), "first seen");
        assertFalse(watch.due(7, 1_099), "not yet an interval");
        assertTrue(watch.due(7, 1_100), "an interval not done");
        assertFalse(watch.due(7, 1_150), "asked 50 ns ago");
        assertTrue(watch.due(7, 1_200), "another interval");
    }

    @Test
    void aNewMarkerStartsANewStall() {
        watch.due(7, 0);
        assertFalse(watch.due(8, 500), "marker 8 was first seen now, however long 7 took");
        assertTrue(watch.due(8, 600));
    }

    @Test
    void timesAreComparedAsDifferencesSoTheClockMayWrap() {
        long start = Long.MAX_VALUE - 50;
        assertFalse(watch.due(3, start));
        assertTrue(watch.due(3, start + 100), "nanoTime past Long.MAX_VALUE");
    }
}
