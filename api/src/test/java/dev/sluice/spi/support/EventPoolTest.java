package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventPoolTest {

    /** Events numbered from 1; records which were destroyed. */
    static class CountingEvents implements NativeEvents {
        long next = 1;
        final List<Long> destroyed = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        boolean failDestroy;

        @Override
        public synchronized long create() {
            return next++;
        }

        @Override
        public synchronized void destroy(long event) {
            destroyed.add(event);
            if (failDestroy) {
                throw new IllegalStateException("device faulted (test)");
            }
        }

        @Override
        public boolean query(long event) {
            calls.add("query " + event);
            return true;
        }

        @Override
        public void synchronize(long event) {
            calls.add("synchronize " + event);
        }

        @Override
        public float elapsedMillis(long start, long end) {
            calls.add("elapsed " + start + " " + end);
            return 1.5f;
        }

        @Override
        public void record(long event, long stream) {
            calls.add("record " + event + " on " + stream);
        }

        @Override
        public void waitOnDevice(long stream, long event) {
            calls.add("wait " + stream + " for " + event);
        }
    }

    @Test
    void takeReusesAGivenBackEventBeforeCreatingOne() {
        CountingEvents events = new CountingEvents();
        EventPool pool = new EventPool(events);
        long a = pool.take();
        long b = pool.take();
        pool.give(a);
        assertEquals(a, pool.take());
        assertEquals(2, pool.created());
        assertEquals(3, pool.take(), "none free: a new one");
        pool.give(b);
    }

    @Test
    void destroyDestroysEveryEventCreatedOnceGivenBackOrNot() {
        CountingEvents events = new CountingEvents();
        EventPool pool = new EventPool(events);
        long a = pool.take();
        pool.take();
        pool.give(a);
        pool.destroy();
        pool.destroy();
        assertEquals(List.of(1L, 2L), events.destroyed);
        pool.give(2); // late: dropped, not destroyed twice
        assertEquals(2, events.destroyed.size());
        var e = assertThrows(IllegalStateException.class, pool::take);
        assertEquals("event pool destroyed", e.getMessage());
    }

    @Test
    void aFailingDestroyDoesNotStopTheOthers() {
        CountingEvents events = new CountingEvents();
        events.failDestroy = true;
        EventPool pool = new EventPool(events);
        pool.take();
        pool.take();
        pool.destroy();
        assertEquals(List.of(1L, 2L), events.destroyed);
    }

    @Test
    void growsPastItsFirstArrays() {
        EventPool pool = new EventPool(new CountingEvents());
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            out.add(pool.take());
        }
        out.forEach(pool::give);
        for (int i = 0; i < 200; i++) {
            pool.take();
        }
        assertEquals(200, pool.created());
    }
}
