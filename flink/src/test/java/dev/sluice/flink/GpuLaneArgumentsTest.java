package dev.sluice.flink;

import static dev.sluice.testing.Attacks.assertRefused;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.DType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.streaming.util.MockStreamingRuntimeContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bad arguments of {@link GpuLane}'s calls, made by a stage on a lane of a function opened without a cluster. */
class GpuLaneArgumentsTest {

    @AfterEach
    void everyContextClosed() throws InterruptedException {
        TestJobs.assertEveryContextClosed();
    }

    /** Runs {@code probe} on a lane as an element's stage; what it throws fails the test. */
    private static void onALane(LaneProbe probe) throws Exception {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        GpuStage<float[], float[]> stage = (lane, in) -> {
            try {
                probe.run(lane);
            } catch (Throwable t) {
                failures.add(t);
            }
            return CompletableFuture.completedFuture(in);
        };
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of(stage, 1).backend(TestBackend.select());
        f.setRuntimeContext(new MockStreamingRuntimeContext(1, 0));
        f.open(null);
        try {
            SluiceAsyncFunctionArgumentsTest.Result r = new SluiceAsyncFunctionArgumentsTest.Result();
            f.asyncInvoke(new float[] {1}, r);
            assertArrayEquals(new float[] {1}, r.value());
        } finally {
            f.close();
        }
        assertEquals(List.of(), failures);
    }

    @FunctionalInterface
    interface LaneProbe {
        void run(GpuLane lane) throws Throwable;
    }

    @Test
    void slotsOutsideZeroTo1023AreRefusedNamingTheSlotAndTheLimit() throws Exception {
        onALane(lane -> {
            // Accepted, a large slot number grew the lane's tables to it: Integer.MAX_VALUE ran the JVM out of heap.
            for (int bad : new int[] {1024, Integer.MAX_VALUE, -1, Integer.MIN_VALUE}) {
                assertRefused("slot", () -> lane.staging(bad, DType.F32, 1), "value " + bad, "0 to 1023");
                assertRefused("slot", () -> lane.deviceBuffer(bad, DType.F32, 1), "value " + bad, "0 to 1023");
            }
            assertEquals(4, lane.staging(1023, DType.F32, 1).byteSize());
            assertEquals(4, lane.deviceBuffer(1023, DType.F32, 1).byteSize());
        });
    }

    @Test
    void aNullBodyOrKernelIsRefusedNamingIt() throws Exception {
        onALane(lane -> {
            assertRefused("body", () -> lane.repeat(null), "null");
            assertRefused("kernel", () -> lane.function(null), "null");
        });
    }
}
