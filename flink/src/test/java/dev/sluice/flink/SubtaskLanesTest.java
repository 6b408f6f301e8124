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

    /** A result nobody reads: these tests look at the lanes only. */
    private static final ResultFuture<Object> NOWHERE = new ResultFuture<>() {
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

    @Test
    void aTimedOutElementIsFoundWithItsNumberOnALaneOrWaitingAndNotAfterwards() {
        try (DeviceContext context = DeviceContext.open(TestBackend.select(), 0);
                HostBufferPool pool = HostBufferPool.of(context, HostBufferPool.DEFAULT_LIMIT_BYTES)) {
            SubtaskLanes<Object, Object> lanes = new SubtaskLanes<>();
            lanes.open(context, pool, 1, kernel -> {
                throw new AssertionError("no kernel here");
            });
            Object first = new float[1];
            Object second = new float[1]; // equal to the first, but another element: found by identity
            Runnable closed = () -> {
                throw new AssertionError("not closed");
            };
            SubtaskLanes.Running running = lanes.admit(first, NOWHERE, 0, 40, closed);
            assertNotNull(running, "the one lane is free");
            assertEquals(40, running.number());
            assertNull(lanes.admit(second, NOWHERE, 0, 41, closed), "no lane left: it waits");

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
}
