package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamCounter} against a fake driver that records each write the backend would enqueue on the marker stream
 * and plays the device on demand ({@link FakeWriter#land}): when each arming setting arms a marker, that writes go in
 * increasing order, that a marker seen done is never armed, that a refusal turns the stream to events for good, and that
 * closing gives the counter back only after the marker stream drained.
 */
class StreamCounterTest {

    private final FakePinnedMemory memory = new FakePinnedMemory();
    private final CompletionCounters counters = new CompletionCounters(memory, 2);

    @AfterEach
    void close() {
        counters.destroy();
        memory.close();
    }

    /** The marker stream of a fake driver: the writes enqueued on it, in order, which {@link #land} carries out. */
    private static final class FakeWriter implements StreamCounter.Writer {
        final List<long[]> enqueued = new ArrayList<>(); // {event, device, value}
        int streamsMade;
        int streamsDestroyed;
        int binds;
        boolean refuse;
        boolean drainFails;

        @Override
        public synchronized void bind() {
            binds++;
        }

        @Override
        public synchronized long createStream() {
            streamsMade++;
            return 0x1000 + streamsMade;
        }

        @Override
        public synchronized void writeAfter(long stream, long event, long device, int value) {
            if (refuse) {
                throw new IllegalStateException("stream memory operations refused (test)");
            }
            enqueued.add(new long[] {event, device, value});
        }

        @Override
        public synchronized boolean destroyStream(long stream) {
            streamsDestroyed++;
            return !drainFails;
        }

        /** The device: every write enqueued so far lands, in order. */
        synchronized void land() {
            for (long[] w : enqueued) {
                MemorySegment.ofAddress(w[1] - FakePinnedMemory.DEVICE_OFFSET).reinterpret(4)
                        .set(ValueLayout.JAVA_INT, 0, (int) w[2]);
            }
        }

        synchronized List<Integer> values() {
            return enqueued.stream().map(w -> (int) w[2]).toList();
        }
    }

    private StreamCounter counter(StreamCounter.Arming arming, FakeWriter w) {
        return new StreamCounter(counters, arming, w, "stream (test)");
    }

    @Test
    void byDefaultAMarkerRecordedOnAnIdleStreamIsArmedAtOnceAnyOtherAtItsFirstPoll() {
        FakeWriter w = new FakeWriter();
        StreamCounter c = counter(StreamCounter.Arming.AUTO, w);
        c.recorded(11, 1, false);
        assertEquals(List.of(1), w.values(), "nothing before it is pending: someone is likely to wait for it now");
        assertEquals(1, w.streamsMade);
        assertEquals(0, w.binds, "the recording thread has the context current: no native call to bind it");
        c.recorded(12, 2, false);
        c.awaited(12, 2, false);
        assertEquals(List.of(1), w.values(), "recorded behind a marker not seen done: not armed when recorded or awaited");
        assertFalse(c.reached(1), "not written yet");
        w.land();
        assertTrue(c.reached(1));
        assertFalse(c.isArmed(2));
        c.polledNotDone(12, 2, false);
        assertEquals(List.of(1, 2), w.values(), "a marker a poll found not done is armed at that poll");
        assertEquals(1, w.binds, "by a poller, which binds the context first");
        w.land();
        assertTrue(c.reached(2));
        c.recorded(13, 3, false);
        assertEquals(List.of(1, 2, 3), w.values(), "every earlier marker seen done: armed when recorded");
        assertEquals(1, w.streamsMade, "one marker stream for the stream's life");
    }

    @Test
    void underAwaitedAMarkerIsArmedByTheThreadAboutToWaitForIt() {
        FakeWriter w = new FakeWriter();
        StreamCounter c = counter(StreamCounter.Arming.AWAITED, w);
        c.recorded(11, 1, false);
        assertEquals(List.of(), w.values(), "recording arms nothing: the enqueuing thread makes no counter call");
        c.awaited(11, 1, false);
        c.awaited(11, 1, false);
        assertEquals(List.of(1), w.values(), "armed once, by the waiting thread");
        c.recorded(12, 2, false);
        c.polledNotDone(12, 2, false);
        assertEquals(List.of(1, 2), w.values(), "or at the first poll that finds it not done");
        assertEquals(StreamCounter.Arming.AWAITED, StreamCounter.Arming.of("awaited"));
    }

    @Test
    void eachSettingArmsWhereItSays() {
        FakeWriter record = new FakeWriter();
        StreamCounter r = counter(StreamCounter.Arming.RECORD, record);
        r.recorded(11, 1, false);
        assertEquals(List.of(1), record.values(), "record: armed when recorded");
        r.close();

        FakeWriter poll = new FakeWriter();
        StreamCounter p = counter(StreamCounter.Arming.POLL, poll);
        p.recorded(11, 1, false); // on an idle stream, which AUTO would arm
        p.awaited(11, 1, false);
        assertEquals(List.of(), poll.values(), "poll: neither when recorded nor when awaited");
        p.polledNotDone(11, 1, false);
        assertEquals(List.of(1), poll.values());
        p.close();

        FakeWriter events = new FakeWriter();
        StreamCounter e = counter(StreamCounter.Arming.EVENTS, events);
        e.recorded(11, 1, false);
        e.awaited(11, 1, false);
        e.polledNotDone(11, 1, false);
        assertEquals(List.of(), events.values(), "events: never");
        assertEquals(0, events.streamsMade);
        assertEquals(StreamCounter.Arming.EVENTS, new StreamCounter(null, StreamCounter.Arming.RECORD, events, "s").arming(),
                "without counters every marker polls its event, whatever the setting");
        assertEquals(StreamCounter.Arming.AUTO, StreamCounter.Arming.of(""));
        assertEquals(StreamCounter.Arming.POLL, StreamCounter.Arming.of("Poll"));
    }

    @Test
    void writesGoInIncreasingOrderAndAMarkerSeenDoneIsNeverArmed() {
        FakeWriter w = new FakeWriter();
        StreamCounter c = counter(StreamCounter.Arming.AWAITED, w);
        c.awaited(13, 3, false);
        c.awaited(12, 2, false); // an earlier marker awaited later: the counter's 3 covers it once written
        c.polledNotDone(11, 1, false);
        assertEquals(List.of(3), w.values(), "never a smaller number after a larger one");
        assertTrue(c.isArmed(2), "markers up to the last armed read the counter");
        c.seenDone(5); // seen done through its event
        c.awaited(15, 5, false);
        c.polledNotDone(14, 4, false);
        assertEquals(List.of(3), w.values(), "a marker seen done (and those before it) is not armed: its event may be reused");
        c.awaited(16, 6, true);
        assertEquals(List.of(3), w.values(), "nothing is armed while the stream captures");
    }

    @Test
    void aRefusedWriteTurnsTheStreamToEventsForGood() {
        FakeWriter w = new FakeWriter();
        StreamCounter c = counter(StreamCounter.Arming.AWAITED, w);
        w.refuse = true;
        c.awaited(11, 1, false);
        w.refuse = false;
        c.awaited(12, 2, false);
        c.polledNotDone(12, 2, false);
        assertEquals(List.of(), w.values());
        assertFalse(c.isArmed(1));
        assertFalse(c.reached(1));
        assertEquals(1, counters.inUse(), "the refused counter is dropped, not released: a write may have been enqueued");
    }

    @Test
    void closeGivesTheCounterBackOnlyOnceTheMarkerStreamDrained() {
        FakeWriter w = new FakeWriter();
        StreamCounter c = counter(StreamCounter.Arming.AWAITED, w);
        c.awaited(11, 1, false);
        assertEquals(1, counters.inUse());
        c.close();
        c.close();
        assertEquals(1, w.streamsDestroyed, "close is idempotent");
        assertEquals(0, counters.inUse());
        assertFalse(c.isArmed(1), "after close, markers poll their events");
        c.awaited(12, 2, false);
        assertEquals(List.of(1), w.values(), "nothing is armed after close");

        FakeWriter faulted = new FakeWriter();
        faulted.drainFails = true;
        StreamCounter f = counter(StreamCounter.Arming.AWAITED, faulted);
        f.awaited(11, 1, false);
        f.close();
        assertEquals(1, counters.inUse(), "a counter whose writes may still land is dropped, not handed to another stream");
    }

    @Test
    void streamsBeyondTheLimitPollEventsAndTryAgainAtTheirNextMarker() {
        FakeWriter a = new FakeWriter();
        FakeWriter b = new FakeWriter();
        FakeWriter third = new FakeWriter();
        StreamCounter ca = counter(StreamCounter.Arming.AWAITED, a);
        StreamCounter cb = counter(StreamCounter.Arming.AWAITED, b);
        StreamCounter cc = counter(StreamCounter.Arming.AWAITED, third);
        ca.awaited(11, 1, false);
        cb.awaited(21, 1, false);
        cc.awaited(31, 1, false);
        assertEquals(List.of(), third.values(), "the pool's limit is 2");
        ca.close();
        cc.awaited(32, 2, false);
        assertEquals(List.of(2), third.values(), "a counter given back serves the next marker of a stream without one");
        cb.close();
        cc.close();
    }

    @Test
    void concurrentArmingNeverEnqueuesASmallerNumberAfterALargerOne() throws Exception {
        FakeWriter w = new FakeWriter();
        StreamCounter c = counter(StreamCounter.Arming.AWAITED, w);
        int threads = 4;
        int markers = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int t = 0; t < threads; t++) {
                int first = t;
                pool.execute(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int m = 1 + first; m <= markers; m += threads) {
                        if ((m & 1) == 0) {
                            c.awaited(m, m, false);
                        } else {
                            c.polledNotDone(m, m, false);
                        }
                    }
                });
            }
            start.countDown();
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
        List<Integer> values = w.values();
        for (int i = 1; i < values.size(); i++) {
            assertTrue(values.get(i) > values.get(i - 1), "write " + i + ": " + values.get(i) + " after " + values.get(i - 1));
        }
        c.close();
    }
}
