package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DeviceContext;
import dev.sluice.HostBufferPool;
import java.util.Collection;
import java.util.List;
import org.apache.flink.streaming.api.functions.async.CollectionSupplier;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.junit.jupiter.api.Test;

/** {@link SubtaskLanes}: each element keeps its number wherever it is, so that a timeout can name it. */
class SubtaskLanesTest {

    /** A result nobody reads, one per invocation as Flink's: these tests look at the lanes only. */
    private static ResultFuture<Object> nowhere() {
        return new ResultFuture<>() {
            @Override
            public void complete(Collection<Object> result) {
            }

            @Override
            public void completeExceptionally(Throwable error) {
            }

            @Override
            public void complete(CollectionSupplier<Object> supplier) {
            }
        };
    }

    @Test
    void aTimedOutElementIsFoundWithItsNumberOnALaneOrWaitingAndNotAfterwards() {
        try (DeviceContext context = DeviceContext.open(TestBackend.select(), 0);
                HostBufferPool pool = HostBufferPool.of(context, HostBufferPool.DEFAULT_LIMIT_BYTES)) {
            SubtaskLanes<Object, Object> lanes = new SubtaskLanes<>();
            lanes.open(context, pool, 1, kernel -> {
                throw new AssertionError("no kernel here");
            });
            // One element instance given twice (Flink allows it of an immutable type): found by its invocation's result.
            Object element = new float[1];
            ResultFuture<Object> first = nowhere();
            ResultFuture<Object> second = nowhere();
            Runnable closed = () -> {
                throw new AssertionError("not closed");
            };
            SubtaskLanes.Running running = lanes.admit(element, first, 0, 40, closed);
            assertNotNull(running, "the one lane is free");
            assertEquals(40, running.number());
            assertNull(lanes.admit(element, second, 0, 41, closed), "no lane left: it waits");

            SubtaskLanes.Lookup waiting = lanes.timedOut(second);
            assertTrue(waiting.wasWaiting());
            assertEquals(41, waiting.number());
            SubtaskLanes.Lookup onLane = lanes.timedOut(first);
            assertSame(running, onLane.running());
            assertEquals(40, onLane.number());
            assertEquals(1, onLane.inFlight());

            assertNull(lanes.free(running.lane(), first), "the timed-out waiting element was dropped, not handed the lane");
            SubtaskLanes.Lookup gone = lanes.timedOut(first);
            assertNull(gone.running());
            assertFalse(gone.wasWaiting());
            assertEquals(Elements.UNKNOWN, gone.number(), "a finished element's number is not made up");
            List<GpuLane> toClose = lanes.close();
            assertNotNull(toClose);
            toClose.forEach(GpuLane::close);
        }
    }

    @Test
    void aLateFreeOfAnEarlierLaneLeavesTheRetryOfTheSameResultOnItsNewLane() {
        try (DeviceContext context = DeviceContext.open(TestBackend.select(), 0);
                HostBufferPool pool = HostBufferPool.of(context, HostBufferPool.DEFAULT_LIMIT_BYTES)) {
            SubtaskLanes<Object, Object> lanes = new SubtaskLanes<>();
            lanes.open(context, pool, 2, kernel -> {
                throw new AssertionError("no kernel here");
            });
            Runnable closed = () -> {
                throw new AssertionError("not closed");
            };
            // Flink's retry gives the element again with the same result while its first attempt's lane still works.
            ResultFuture<Object> result = nowhere();
            SubtaskLanes.Running first = lanes.admit(new float[1], result, 0, 7, closed);
            SubtaskLanes.Running retry = lanes.admit(new float[1], result, 0, 8, closed);
            assertNotNull(first);
            assertNotNull(retry);
            assertTrue(first.lane() != retry.lane(), "two lanes");

            assertNull(lanes.free(first.lane(), result), "nothing waits for the lane");
            SubtaskLanes.Lookup found = lanes.timedOut(result);
            assertSame(retry, found.running(), "the first attempt's late free left the retry's entry");
            assertEquals(8, found.number());

            assertNull(lanes.free(retry.lane(), result));
            assertNull(lanes.timedOut(result).running(), "its own lane's free removes it");
            List<GpuLane> toClose = lanes.close();
            assertNotNull(toClose);
            toClose.forEach(GpuLane::close);
        }
    }
}
