package dev.sluice.flink;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.HostBufferPool;
import dev.sluice.LaunchConfig;
import dev.sluice.reactive.DeviceLane;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The built stage on one lane, as a subtask runs it: elements given as bytes are staged on the copy threads (a large one
 * split over several) and their upload, launch and download replay as one graph of the lane, small or large.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KernelStageReplayTest {

    @Test
    void elementsGivenAsBytesReplayTheirWorkAsOneGraph() throws Exception {
        KernelStage<float[], float[]> stage = new KernelStage<>(() -> SluiceAsyncFunctionTest.SQUARE,
                List.of(KernelStage.Input.<float[]>ofBytes(DType.F32, MemorySegment::ofArray)),
                List.of(new KernelStage.Output<float[]>(DType.F32, (e, n) -> n)),
                (e, results, n) -> results.getFirst().toArray(JAVA_FLOAT), List.of(), LaunchConfig::forElements);
        try (DeviceContext ctx = DeviceContext.open(TestBackend.select(), 0);
                HostBufferPool pool = HostBufferPool.of(ctx, 64 << 20);
                DeviceFunction square = ctx.compile(SluiceAsyncFunctionTest.SQUARE)) {
            DeviceLane deviceLane = DeviceLane.open(ctx.createStream(), 0, pool, true, true);
            GpuLane lane = new GpuLane(deviceLane, k -> square); // compiled once, as the function's lanes share it
            try {
                for (int size : new int[] {1000, 1000, 1000, 300_000, 300_000}) { // 1.2 MiB: split over copy threads
                    for (int item = 0; item < 2; item++) {
                        float[] in = new float[size];
                        for (int i = 0; i < size; i++) {
                            in[i] = item + i % 7;
                        }
                        float[] out = stage.apply(lane, in).get(30, TimeUnit.SECONDS);
                        for (int i = 0; i < size; i += 997) {
                            assertEquals(in[i] * in[i], out[i], "element " + i + " of " + size);
                        }
                    }
                }
            } finally {
                lane.close();
            }
            String counts = "replays " + deviceLane.replays() + ", builds " + deviceLane.builds() + ", fallbacks "
                    + deviceLane.fallbacks();
            assertEquals(0, deviceLane.fallbacks(), counts);
            assertEquals(10, deviceLane.replays(), counts);
            assertEquals(2, deviceLane.builds(), "a graph per shape (element size): " + counts);
        }
    }
}
