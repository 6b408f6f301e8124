package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DeviceException;
import dev.sluice.testing.ExpectWarning;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EventMarkerTest {

    /** A stream whose events complete when the test says so. */
    static class FakeStream implements EventMarker.Events {
        final AtomicBoolean complete = new AtomicBoolean();
        final AtomicInteger queries = new AtomicInteger();
        final List<Long> recycled = new ArrayList<>();
        final List<String> waits = new ArrayList<>();
        RuntimeException fault;

        @Override
        public boolean isComplete(long event, long sequence) {
            queries.incrementAndGet();
            if (fault != null) {
                throw fault;
            }
            return complete.get();
        }

        @Override
        public void waitOnDevice(long stream, long event) {
            waits.add(stream + " waits for " + event);
        }

        @Override
        public void recycle(long event) {
            recycled.add(event);
        }
    }

    @Test
    void isDoneAsksTheStreamUntilCompleteThenNeverAgain() {
        FakeStream s = new FakeStream();
        EventMarker m = new EventMarker(s, 7, 42, null);
        assertFalse(m.isDone());
        s.complete.set(true);
        assertTrue(m.isDone());
        assertTrue(m.isDone());
        assertEquals(2, s.queries.get());
        assertEquals(7, m.sequence());
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.spi.support.EventMarker", containing = "host work after a completion marker failed")
    void hostWorkRunsOnceWhenFirstSeenCompleteEvenIfOnePieceFails() {
        FakeStream s = new FakeStream();
        AtomicInteger ran = new AtomicInteger();
        List<Runnable> work = new ArrayList<>();
        work.add(() -> {
            throw new IllegalStateException("copy failed (test)");
        });
        work.add(ran::incrementAndGet);
        EventMarker m = new EventMarker(s, 1, 42, work);
        assertFalse(m.isDone());
        assertEquals(0, ran.get(), "not before the device work finished");
        s.complete.set(true);
        assertTrue(m.isDone());
        assertTrue(m.isDone());
        assertEquals(1, ran.get());
    }

    @Test
    void releaseRecyclesTheEventOnceAndLaterWaitsEnqueueNothing() {
        FakeStream s = new FakeStream();
        EventMarker m = new EventMarker(s, 1, 42, null);
        m.waitOn(9);
        assertEquals(42, m.event());
        s.complete.set(true);
        assertTrue(m.isDone());
        m.release();
        m.release();
        assertEquals(List.of(42L), s.recycled);
        assertEquals(0, m.event());
        m.waitOn(9);
        assertEquals(List.of("9 waits for 42"), s.waits);
        assertTrue(m.isDone(), "a released marker is done without asking the stream");
    }

    @Test
    void aFaultReachesTheCaller() {
        FakeStream s = new FakeStream();
        s.fault = new DeviceException("illegal address (test)", "CUDA_ERROR_ILLEGAL_ADDRESS", 700, true, null);
        EventMarker m = new EventMarker(s, 1, 42, null);
        assertThrows(DeviceException.class, m::isDone);
    }

    @Test
    void awaitDoneByDefaultPollsUntilCompleteOrTimeout() throws Exception {
        FakeStream s = new FakeStream();
        EventMarker m = new EventMarker(s, 1, 42, null);
        long start = System.nanoTime();
        assertFalse(m.awaitDone(2_000_000));
        assertTrue(System.nanoTime() - start >= 2_000_000, "waited out the timeout");
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            s.complete.set(true);
        });
        assertTrue(m.awaitDone(10_000_000_000L));
        t.join();
    }
}
