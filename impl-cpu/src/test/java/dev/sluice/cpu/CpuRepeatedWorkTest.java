package dev.sluice.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import dev.sluice.TraceSpan;
import dev.sluice.conformance.TestKernels;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * PairedBench's "chain of 8 tiny kernels per chunk" on the simulator: repeated work replays one graph per chunk, built
 * once, and the trace shows each launch as a {@link TraceSpan#REPLAY} span. Also prints the time per chunk of the plain
 * enqueues and of the replay (simulator figures, not GPU ones).
 */
class CpuRepeatedWorkTest {

    private static final int CHUNKS = 2_000;

    @Test
    void aChainOfEightKernelsPerChunkIsOneReplayPerChunkAndTheTraceSaysSo() {
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0, ContextOptions.defaults().withTracing(true))) {
            DeviceFunction mulAdd = ctx.compile(TestKernels.MUL_ADD);
            DeviceBuffer v = ctx.allocate(DType.I32, 1);
            DeviceBuffer plain = ctx.allocate(DType.I32, 1);
            DeviceStream s = ctx.createStream();
            s.enqueueFill(v, 0);
            s.enqueueFill(plain, 0);
            LaunchConfig one = LaunchConfig.of(1, 1);
            long t0 = System.nanoTime();
            for (int c = 0; c < CHUNKS; c++) {
                for (int k = 0; k < 8; k++) {
                    s.enqueueLaunch(mulAdd, one, plain, 1L, 1, c * 8 + k);
                }
            }
            s.synchronize();
            long plainNs = System.nanoTime() - t0;
            try (RepeatedWork work = s.repeatedWork()) {
                t0 = System.nanoTime();
                for (int c = 0; c < CHUNKS; c++) {
                    int chunk = c;
                    work.enqueue(w -> {
                        for (int k = 0; k < 8; k++) {
                            w.enqueueLaunch(mulAdd, one, v, 1L, 1, chunk * 8 + k);
                        }
                    });
                }
                s.synchronize();
                long replayNs = System.nanoTime() - t0;
                System.out.printf("chain8 on cpu: plain %.2f us/chunk, replay %.2f us/chunk%n",
                        plainNs / 1e3 / CHUNKS, replayNs / 1e3 / CHUNKS);
                assertEquals(CHUNKS, work.replays());
                assertEquals(1, work.builds());
                assertEquals(0, work.fallbacks());
            }
            int[] a = new int[1];
            int[] b = new int[1];
            s.enqueueCopy(v, HostData.of(a));
            s.enqueueCopy(plain, HostData.of(b));
            s.synchronize();
            assertArrayEquals(b, a, "the replays add what the plain launches add");
            List<TraceSpan> spans = ctx.trace().spans(s.name());
            long replays = spans.stream().filter(t -> t.kind().equals(TraceSpan.REPLAY)).count();
            long built = spans.stream().filter(t -> t.kind().equals(TraceSpan.REPLAY_BUILT)).count();
            assertEquals(1, built, "the first call builds the graph");
            assertTrue(replays > 0, "later calls are replays in the trace");
            s.close();
        }
    }

    @Test
    void listenersHearOfEachRecordedOperationAndTheSpanSaysWhatTheGraphRan() {
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0, ContextOptions.defaults().withTracing(true))) {
            DeviceFunction mulAdd = ctx.compile(TestKernels.MUL_ADD);
            DeviceBuffer v = ctx.allocate(DType.I32, 4);
            DeviceStream s = ctx.createStream();
            List<String> enqueued = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<String> completed = new java.util.concurrent.CopyOnWriteArrayList<>();
            ctx.addListener(new dev.sluice.DeviceListener() {
                @Override
                public void operationEnqueued(DeviceStream stream, String category, long bytes) {
                    enqueued.add(category);
                }

                @Override
                public void operationCompleted(DeviceStream stream, String category, long bytes, long latencyNanos,
                        Throwable failure) {
                    completed.add(category + (failure == null ? "" : " failed"));
                }
            });
            try (RepeatedWork work = s.repeatedWork(); var label = s.label("chunk 7")) {
                for (int c = 0; c < 3; c++) {
                    int chunk = c;
                    work.enqueue(w -> {
                        w.enqueueFill(v, chunk);
                        w.enqueueLaunch(mulAdd, LaunchConfig.of(1, 4), v, 4L, 2, chunk);
                    }).join();
                }
                assertEquals(3, work.replays());
            }
            s.synchronize();
            List<String> perCall = List.of(TraceSpan.MEMSET, TraceSpan.KERNEL, TraceSpan.REPLAY);
            assertEquals(perCall, enqueued.subList(0, 3),
                    "each recorded operation under its own category, then the graph launch (built anew, still replay)");
            assertEquals(perCall, enqueued.subList(3, 6));
            assertEquals(9, completed.size(), "every operation completes once, none failed: " + completed);
            assertTrue(completed.containsAll(perCall), completed.toString());
            List<TraceSpan> spans = ctx.trace().spans(s.name()).stream()
                    .filter(t -> t.kind().startsWith(TraceSpan.REPLAY)).toList();
            assertEquals(3, spans.size(), "one span per graph launch: " + spans);
            for (TraceSpan t : spans) {
                assertEquals("chunk 7: memset, kernel " + TestKernels.MUL_ADD.name() + " (2 operations)", t.label());
            }
            s.close();
        }
    }

    @Test
    void fusedLaunchesAreStillHeardOneByOneAndTheSpanSaysTheyWereFused() {
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0, ContextOptions.defaults().withTracing(true))) {
            DeviceFunction scale = ctx.compile(dev.sluice.kernel.Kernels.elementwise("scale")
                    .input(dev.sluice.KernelParam.pointer("x", DType.I32))
                    .output(dev.sluice.KernelParam.pointer("y", DType.I32)).body("y = x * 2").build());
            DeviceFunction addOne = ctx.compile(dev.sluice.kernel.Kernels.elementwise("add_one")
                    .input(dev.sluice.KernelParam.pointer("u", DType.I32))
                    .output(dev.sluice.KernelParam.pointer("w", DType.I32)).body("w = u + 1").build());
            DeviceBuffer x = ctx.allocate(DType.I32, 8);
            DeviceBuffer y = ctx.allocate(DType.I32, 8);
            DeviceBuffer z = ctx.allocate(DType.I32, 8);
            DeviceStream s = ctx.createStream();
            s.enqueueCopy(HostData.of(new int[] {0, 1, 2, 3, 4, 5, 6, 7}), x);
            List<String> enqueued = new java.util.concurrent.CopyOnWriteArrayList<>();
            ctx.addListener(new dev.sluice.DeviceListener() {
                @Override
                public void operationEnqueued(DeviceStream stream, String category, long bytes) {
                    enqueued.add(category);
                }
            });
            try (RepeatedWork work = s.repeatedWork()) {
                for (int c = 0; c < 2; c++) {
                    work.enqueue(w -> {
                        w.enqueueLaunch(scale, LaunchConfig.forElements(8), x, y, 8L);
                        w.enqueueLaunch(addOne, LaunchConfig.forElements(8), y, z, 8L);
                    }).join();
                }
                assertEquals(4, work.fusedLaunches(), "two launches a call ran fused");
            }
            int[] got = new int[8];
            s.enqueueCopy(z, HostData.of(got)).join();
            assertArrayEquals(new int[] {1, 3, 5, 7, 9, 11, 13, 15}, got);
            assertEquals(List.of(TraceSpan.KERNEL, TraceSpan.KERNEL, TraceSpan.REPLAY), enqueued.subList(0, 3),
                    "each fused launch heard as a launch of its own, then the graph launch");
            List<TraceSpan> spans = ctx.trace().spans(s.name()).stream()
                    .filter(t -> t.kind().startsWith(TraceSpan.REPLAY)).toList();
            assertEquals(2, spans.size(), spans.toString());
            for (TraceSpan t : spans) {
                assertTrue(String.valueOf(t.label()).endsWith("(2 operations, 2 launches fused into 1 kernel)"), t.label());
            }
            s.close();
        }
    }
}
