package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.EventFlag;
import dev.sluice.InvalidArgumentException;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Events: record, query, synchronize, elapsed time, and the errors of elapsed time. */
public abstract class AbstractEventTest extends ConformanceBase {

    @Test
    void neverRecordedEventIsComplete() {
        DeviceEvent e = ctx.createEvent();
        assertTrue(e.query(), "an event never recorded is complete");
        e.synchronize();
    }

    @Test
    void recordedEventQueriesFalseUntilTheWorkBeforeItFinishes() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 8);
        DeviceEvent e = ctx.createEvent();
        slowFill(s, b, 1, Duration.ofMillis(500));
        s.enqueueRecord(e);
        assertFalse(e.query(), "the event cannot be complete while a 500 ms kernel before it runs");
        e.synchronize();
        assertTrue(e.query(), "after synchronize the event is complete");
    }

    @Test
    void synchronizeBlocksUntilTheRecordedWorkHasFinished() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(64, 0));
        DeviceEvent e = ctx.createEvent();
        long t0 = System.nanoTime();
        slowFill(s, b, 6, Duration.ofMillis(300));
        s.enqueueRecord(e);
        e.synchronize();
        long took = System.nanoTime() - t0;
        assertTrue(took >= 150_000_000L, "synchronize returned after " + took / 1_000_000 + " ms, before a 300 ms kernel");
        // No ordering between the streams: only the completed kernel explains the new value.
        assertArrayEquals(filled(64, 6), readInts(other, b));
    }

    @Test
    void blockingSyncEventSynchronizes() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 8);
        DeviceEvent e = ctx.createEvent(EventFlag.BLOCKING_SYNC);
        assertEquals(Set.of(EventFlag.BLOCKING_SYNC), e.flags());
        slowFill(s, b, 1, Duration.ofMillis(200));
        s.enqueueRecord(e);
        e.synchronize();
        assertTrue(e.query());
    }

    @Test
    void recordFutureCompletesWithTheEvent() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 8);
        DeviceEvent e = ctx.createEvent();
        slowFill(s, b, 1, Duration.ofMillis(200));
        DeviceFuture<Void> f = s.enqueueRecord(e);
        assertFalse(f.isDone());
        await(f);
        assertTrue(e.query(), "when the record's future completes, the event has completed");
    }

    @Test
    void eventsReportTheirContextAndFlags() {
        DeviceEvent e = ctx.createEvent(EventFlag.TIMING);
        assertEquals(Set.of(EventFlag.TIMING), e.flags());
        assertEquals(ctx, e.context());
        assertEquals(Set.of(), ctx.createEvent().flags(), "timing is off by default");
        e.close();
        assertTrue(e.isClosed());
        e.close(); // idempotent
    }

    @Test
    void elapsedTimeRoughlyMatchesAKnownSlowKernel() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 8);
        DeviceEvent start = ctx.createEvent(EventFlag.TIMING);
        DeviceEvent end = ctx.createEvent(EventFlag.TIMING);
        s.enqueueRecord(start);
        slowFill(s, b, 1, Duration.ofMillis(200));
        s.enqueueRecord(end);
        end.synchronize();
        Duration d = start.elapsed(end);
        assertTrue(d.compareTo(Duration.ofMillis(100)) >= 0, "elapsed " + d + " is far below the 200 ms kernel");
        assertTrue(d.compareTo(Duration.ofSeconds(5)) < 0, "elapsed " + d + " is far above the 200 ms kernel");
    }

    @Test
    void elapsedTimeOfBackToBackEventsIsSmallAndNotNegative() {
        DeviceStream s = ctx.createStream();
        DeviceEvent start = ctx.createEvent(EventFlag.TIMING);
        DeviceEvent end = ctx.createEvent(EventFlag.TIMING);
        s.enqueueRecord(start);
        s.enqueueRecord(end);
        end.synchronize();
        Duration d = start.elapsed(end);
        assertFalse(d.isNegative(), "elapsed " + d);
        assertTrue(d.compareTo(Duration.ofSeconds(1)) < 0, "elapsed " + d);
    }

    @Test
    void elapsedTimeNeedsTheTimingFlag() {
        DeviceStream s = ctx.createStream();
        DeviceEvent start = ctx.createEvent();
        DeviceEvent end = ctx.createEvent(EventFlag.TIMING);
        s.enqueueRecord(start);
        s.enqueueRecord(end);
        end.synchronize();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> start.elapsed(end));
        assertEquals("start", e.argument());
        assertMentions(e, "TIMING");
        InvalidArgumentException e2 = assertThrows(InvalidArgumentException.class, () -> end.elapsed(start));
        assertEquals("end", e2.argument());
        assertMentions(e2, "TIMING");
    }

    @Test
    void elapsedTimeOfAnUnrecordedEventIsRejected() {
        DeviceStream s = ctx.createStream();
        DeviceEvent start = ctx.createEvent(EventFlag.TIMING);
        DeviceEvent end = ctx.createEvent(EventFlag.TIMING);
        s.enqueueRecord(start);
        start.synchronize();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> start.elapsed(end));
        assertEquals("end", e.argument());
        assertMentions(e, "never recorded");
    }

    @Test
    void elapsedTimeBeforeTheEventsCompleteIsRejected() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 8);
        DeviceEvent start = ctx.createEvent(EventFlag.TIMING);
        DeviceEvent end = ctx.createEvent(EventFlag.TIMING);
        s.enqueueRecord(start);
        slowFill(s, b, 1, Duration.ofMillis(500));
        s.enqueueRecord(end);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> start.elapsed(end));
        assertMentions(e, "not completed");
        end.synchronize();
        assertFalse(start.elapsed(end).isNegative());
    }

    @Test
    void elapsedTimeBetweenContextsIsRejected() {
        DeviceContext other = open(ContextOptions.defaults());
        DeviceEvent start = ctx.createEvent(EventFlag.TIMING);
        DeviceEvent end = other.createEvent(EventFlag.TIMING);
        ctx.stream().enqueueRecord(start);
        other.stream().enqueueRecord(end);
        start.synchronize();
        end.synchronize();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> start.elapsed(end));
        assertEquals("event", e.argument());
        assertMentions(e, "another context");
    }

    @Test
    void executionTimeMeasuresAllIterations() {
        DeviceBuffer b = ctx.allocate(DType.I32, 8);
        Duration d = ctx.executionTime(3, (s, i) -> slowFill(s, b, i, Duration.ofMillis(60)));
        assertTrue(d.compareTo(Duration.ofMillis(90)) >= 0, "3 x 60 ms measured as " + d);
        assertTrue(d.compareTo(Duration.ofSeconds(10)) < 0, "3 x 60 ms measured as " + d);
    }
}
