package dev.sluice.flink;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.HostBufferPool;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import dev.sluice.reactive.DeviceLane;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
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

    @Test
    void severalInputsGivenAsBytesOutputsAndAScalarReplayAsOneGraph() throws Exception {
        DeviceLane lane = runAxpyAndProduct(x -> MemorySegment.ofArray(reversed(x)), null);
        String counts = "replays " + lane.replays() + ", builds " + lane.builds() + ", fallbacks " + lane.fallbacks();
        assertEquals(0, lane.fallbacks(), counts);
        assertEquals(4, lane.replays(), counts);
        assertEquals(2, lane.builds(), "a graph per shape, the per-element scalar updated in place: " + counts);
    }

    @Test
    void anInputGivenAsAJavaArraysHostDataMixesWithBytesAndRunsPlainly() throws Exception {
        DeviceLane lane = runAxpyAndProduct(null, x -> HostData.of(reversed(x)));
        // A recording cannot describe a copy from Java memory (RepeatedWork): each element's work is enqueued plainly.
        assertEquals(4, lane.fallbacks(), "replays " + lane.replays() + ", builds " + lane.builds());
    }

    /**
     * {@code sum = a x + y}, {@code product = x y} over four elements of two shapes, x given as bytes, y (x reversed) as
     * {@code yBytes} or {@code yData}, a = x[0] + 1 per element; checks the results and that the large ones (1.6 MiB
     * together) were read on the copy threads. Returns the closed lane, for its counts.
     */
    private static DeviceLane runAxpyAndProduct(KernelStageBuilder.@Nullable InputBytes<float[]> yBytes,
            KernelStageBuilder.@Nullable InputData<float[]> yData) throws Exception {
        KernelStage<float[], float[]> stage = new KernelStage<>(() -> KernelStageTest.AXPY_AND_PRODUCT,
                List.of(KernelStage.Input.<float[]>ofBytes(DType.F32, MemorySegment::ofArray),
                        new KernelStage.Input<>(DType.F32, yData, yBytes)),
                List.of(new KernelStage.Output<float[]>(DType.F32, (e, n) -> n),
                        new KernelStage.Output<float[]>(DType.F32, (e, n) -> n)),
                (e, results, n) -> {
                    READ_THREADS.add(Thread.currentThread().getName());
                    float[] r = new float[(int) (n[0] + n[1])];
                    MemorySegment.copy(results.get(0), JAVA_FLOAT, 0, r, 0, (int) n[0]);
                    MemorySegment.copy(results.get(1), JAVA_FLOAT, 0, r, (int) n[0], (int) n[1]);
                    return r;
                }, List.of((e, n) -> e[0] + 1f), LaunchConfig::forElements);
        READ_THREADS.clear();
        try (DeviceContext ctx = DeviceContext.open(TestBackend.select(), 0);
                HostBufferPool pool = HostBufferPool.of(ctx, 64 << 20);
                DeviceFunction axpy = ctx.compile(KernelStageTest.AXPY_AND_PRODUCT)) {
            DeviceLane deviceLane = DeviceLane.open(ctx.createStream(), 0, pool, true, true);
            GpuLane lane = new GpuLane(deviceLane, k -> axpy);
            try {
                for (int size : new int[] {1000, 1000, 200_000, 200_000}) {
                    float[] x = new float[size];
                    for (int i = 0; i < size; i++) {
                        x[i] = size + i % 5;
                    }
                    float[] y = reversed(x);
                    float a = x[0] + 1f;
                    float[] r = stage.apply(lane, x).get(30, TimeUnit.SECONDS);
                    for (int i = 0; i < size; i += 991) {
                        assertEquals(a * x[i] + y[i], r[i], "sum " + i + " of " + size);
                        assertEquals(x[i] * y[i], r[size + i], "product " + i + " of " + size);
                    }
                }
            } finally {
                lane.close();
            }
            assertTrue(READ_THREADS.stream().anyMatch(t -> t.startsWith("sluice-host-copy-")),
                    () -> "the large results read on the copy threads: " + READ_THREADS);
            return deviceLane;
        }
    }

    private static final Set<String> READ_THREADS = ConcurrentHashMap.newKeySet();

    private static float[] reversed(float[] x) {
        float[] r = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            r[i] = x[x.length - 1 - i];
        }
        return r;
    }
}
