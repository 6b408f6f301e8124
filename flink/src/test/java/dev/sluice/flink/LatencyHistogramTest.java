package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import org.apache.flink.metrics.HistogramStatistics;
import org.junit.jupiter.api.Test;

/** {@link LatencyHistogram}: the statistics of the latest window of values, exact, with writers on many threads. */
class LatencyHistogramTest {

    @Test
    void statisticsAreThoseOfTheValuesRecorded() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100; v++) {
            h.update(101 - v);
        }
        HistogramStatistics s = h.getStatistics();
        assertEquals(100, h.getCount());
        assertEquals(100, s.size());
        assertEquals(1, s.getMin());
        assertEquals(100, s.getMax());
        assertEquals(50.5, s.getMean(), 1e-9);
        assertEquals(50, s.getQuantile(0.5));
        assertEquals(99, s.getQuantile(0.99));
        assertEquals(1, s.getQuantile(0));
        assertEquals(100, s.getQuantile(1));
        assertEquals(29.011, s.getStdDev(), 1e-3);
    }

    @Test
    void theStatisticsCoverTheLatestWindowWhileTheCountCoversEveryValue() {
        LatencyHistogram h = new LatencyHistogram(4);
        for (long v = 1; v <= 10; v++) {
            h.update(v);
        }
        assertEquals(10, h.getCount());
        assertArrayEquals(new long[] {7, 8, 9, 10}, h.getStatistics().getValues());
    }

    @Test
    void anEmptyHistogramHasNoQuantile() {
        HistogramStatistics s = new LatencyHistogram().getStatistics();
        assertEquals(0, s.size());
        assertTrue(Double.isNaN(s.getQuantile(0.5)));
        assertEquals(0, s.getMean());
    }

    @Test
    void theWindowStaysExactOverManyRoundsOfItsSlots() {
        LatencyHistogram h = new LatencyHistogram(4);
        for (long v = 1; v <= 10_000; v++) { // 2,500 rounds: the rounds' tags wrap around many times
            h.update(v);
            if (v % 997 == 0) {
                assertArrayEquals(new long[] {v - 3, v - 2, v - 1, v}, h.getStatistics().getValues(), "after " + v);
            }
        }
        assertArrayEquals(new long[] {9_997, 9_998, 9_999, 10_000}, h.getStatistics().getValues());
        assertEquals(10_000, h.getCount());
    }

    @Test
    void valuesAreRecordedAsTheyAreUpToMoreThanAYearInNanosecondsAndClampedBeyond() {
        LatencyHistogram h = new LatencyHistogram(8);
        long year = 365L * 24 * 3600 * 1_000_000_000L;
        for (long v : new long[] {-7, 0, year, LatencyHistogram.MAX_VALUE, LatencyHistogram.MIN_VALUE, Long.MAX_VALUE,
                Long.MIN_VALUE}) {
            h.update(v);
        }
        assertArrayEquals(new long[] {LatencyHistogram.MIN_VALUE, LatencyHistogram.MIN_VALUE, -7, 0, year,
                LatencyHistogram.MAX_VALUE, LatencyHistogram.MAX_VALUE}, h.getStatistics().getValues());
        assertTrue(LatencyHistogram.MAX_VALUE > year, "over a year in nanoseconds");
    }

    @Test
    void anUpdateNotYetStoredIsLeftOutAndAStalledOneNeverShowsOverALaterValue() {
        LatencyHistogram h = new LatencyHistogram(4);
        h.update(10);
        long pending = h.number(); // update 1 has its number, not yet its value: its slot still holds nothing
        h.update(12);
        assertEquals(3, h.getCount());
        assertArrayEquals(new long[] {10, 12}, h.getStatistics().getValues(), "the slot of update 1 is not read as 0");
        h.store(pending, 11);
        assertArrayEquals(new long[] {10, 11, 12}, h.getStatistics().getValues());

        long stalled = h.number(); // update 3 stalls for a whole round of the window
        for (long v = 14; v <= 17; v++) {
            h.update(v); // updates 4 to 7: update 7 takes the slot of update 3
        }
        h.store(stalled, 13); // update 3 stores at last, over update 7's value
        assertArrayEquals(new long[] {14, 15, 16}, h.getStatistics().getValues(),
                "update 7's value is missing until its slot's next round, and update 3's, now out of the window, not shown");
        h.update(18);
        assertArrayEquals(new long[] {15, 16, 18}, h.getStatistics().getValues());
        h.update(19);
        h.update(20);
        h.update(21);
        assertArrayEquals(new long[] {18, 19, 20, 21}, h.getStatistics().getValues(), "the slot's next round");
    }

    @Test
    void aWindowThatIsNoPowerOfTwoIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LatencyHistogram(1000));
        assertThrows(IllegalArgumentException.class, () -> new LatencyHistogram(0));
    }

    /**
     * Four writers at once (twice the cores of a CI machine, so that writers are preempted between taking a number and
     * storing its value) and a reader: every update is counted, every value the reader sees was recorded (the values
     * encode writer and update, from 1: an unwritten slot's 0 is none of them) and is there once, and after a last
     * round from one thread the window is exactly that round.
     */
    @Test
    void concurrentWritersAreAllCountedAndReadersSeeOnlyValuesRecorded() throws InterruptedException {
        int writers = 4;
        int each = 200_000;
        LatencyHistogram h = new LatencyHistogram();
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        List<String> wrong = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            long base = (w + 1) * 1_000_000L;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long i = 0; i < each; i++) {
                    h.update(base + i);
                }
            }));
        }
        int[] snapshots = new int[1];
        Thread reader = Thread.ofPlatform().start(() -> {
            long lastCount = 0;
            while (writing.get()) {
                long count = h.getCount();
                long[] values = h.getStatistics().getValues();
                snapshots[0]++;
                if (count < lastCount) {
                    wrong.add("the count went back from " + lastCount + " to " + count);
                }
                lastCount = count;
                if (values.length > LatencyHistogram.WINDOW) {
                    wrong.add(values.length + " values in a window of " + LatencyHistogram.WINDOW);
                }
                Set<Long> seen = new HashSet<>();
                for (long v : values) {
                    long writer = v / 1_000_000L;
                    if (writer < 1 || writer > writers || v % 1_000_000L >= each) {
                        wrong.add("value " + v + " was never recorded");
                    }
                    if (!seen.add(v)) {
                        wrong.add("value " + v + " twice");
                    }
                }
            }
        });
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        writing.set(false);
        reader.join();
        assertEquals(List.of(), wrong.subList(0, Math.min(10, wrong.size())), "over " + snapshots[0] + " snapshots");
        assertTrue(snapshots[0] > 0);
        assertEquals((long) writers * each, h.getCount(), "every update counted");
        HistogramStatistics quiet = h.getStatistics();
        // A writer preempted between its number and its store may have stored over a later value: at most one slot each.
        assertTrue(quiet.size() >= LatencyHistogram.WINDOW - writers && quiet.size() <= LatencyHistogram.WINDOW,
                "window of " + quiet.size());
        for (long v = 1; v <= LatencyHistogram.WINDOW; v++) {
            h.update(v);
        }
        assertArrayEquals(LongStream.rangeClosed(1, LatencyHistogram.WINDOW).toArray(), h.getStatistics().getValues(),
                "the last round, from one thread, is the window");
        assertEquals((long) writers * each + LatencyHistogram.WINDOW, h.getCount());
    }
}
