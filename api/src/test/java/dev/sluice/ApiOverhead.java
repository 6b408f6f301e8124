package dev.sluice;

import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.WorkStep;
import java.util.Locale;

/**
 * The host cost of the api layer alone per {@code enqueueLaunch} of a 5-argument kernel, future included: a context
 * over a backend whose calls do nothing and whose markers are done at once, so what is timed is argument checks and
 * marshalling, the stream's lock, the future and the completion thread's queue, with that thread completing the
 * futures on another core. Not a test: a measuring tool for the per-call targets (docs/benchmarks.md).
 *
 * <pre>./mvnw -q -pl api test-compile && java [-Dlaunch.nanos=3300] -cp api/target/classes:api/target/test-classes:$JSPECIFY dev.sluice.ApiOverhead</pre>
 *
 * With {@code -Dlaunch.nanos} each launch spins that long, standing for the driver's host time per launch: what the
 * api layer adds on top of it, with the completion thread busy on another core, is then the figure;
 * {@code -Dmarker.nanos} does the same for each completion marker recorded, and {@code -Dsluice.markers.batch=N}
 * shows what batching markers saves when they cost that much.
 */
public final class ApiOverhead {

    /** {@code -Dlaunch.nanos=N}: each launch spins N ns, standing for the driver's own host time (C's 3.3 µs). */
    private static final long LAUNCH_NANOS = Long.getLong("launch.nanos", 0L);
    /** {@code -Dmarker.nanos=N}: each marker record spins N ns (CUDA's event record: 0.25 to 1 us measured). */
    private static final long MARKER_NANOS = Long.getLong("marker.nanos", 0L);

    /** A stream that does nothing; its launches only count their arguments, so the call is not optimised away. */
    private static final class NoWorkStream implements StreamHandle {
        long arguments;

        @Override
        public void enqueue(WorkStep step) {
            if (step instanceof WorkStep.Launch l) {
                arguments += l.arguments().count();
                spin(LAUNCH_NANOS);
            }
        }

        @Override
        public DeviceMemory allocate(long bytes) {
            return FakeDevices.memory(bytes);
        }

        @Override
        public void free(DeviceMemory memory) {
        }

        @Override
        public void record(EventHandle event) {
        }

        @Override
        public void waitEvent(EventHandle event) {
        }

        @Override
        public Marker recordMarker() {
            spin(MARKER_NANOS);
            return Marker.DONE; // nothing reaches a device here
        }

        @Override
        public void waitMarker(Marker marker) {
        }

        @Override
        public HostGate enqueueHostGate() {
            throw new UnsupportedOperationException("not measured here");
        }

        @Override
        public void synchronize() {
        }

        @Override
        public void destroy() {
        }
    }

    private static void spin(long nanos) {
        if (nanos > 0) {
            long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }
    }

    private ApiOverhead() {
    }

    public static void main(String[] args) throws Exception {
        if ("repeated".equals(System.getProperty("mode"))) {
            repeated();
            return;
        }
        DeviceContext ctx = FakeDevices.open(Api.CUDA, n -> new NoWorkStream());
        Kernel empty5 = Kernel.named("empty5")
                .params(KernelParam.pointer("a", DType.F32), KernelParam.scalar("n", DType.I64), KernelParam.scalar("s", DType.F32),
                        KernelParam.scalar("k", DType.I32), KernelParam.pointer("b", DType.F32))
                .cudaSource("never compiled here").build();
        DeviceFunction f = ctx.compile(empty5);
        Object[] arguments = {ctx.allocate(DType.F32, 1024), 1024L, 2.5f, 7, ctx.allocate(DType.F32, 1024)};
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        int n = LAUNCH_NANOS + MARKER_NANOS > 0 ? 200_000 : 1_000_000;
        for (int r = 0; r < 15; r++) {
            long t0 = System.nanoTime();
            DeviceFuture<Void> last = null;
            for (int i = 0; i < n; i++) {
                last = s.enqueueLaunch(f, one, arguments);
            }
            long t1 = System.nanoTime();
            last.join();
            System.out.printf(Locale.ROOT, "enqueueLaunch, 5 arguments, future: %.1f ns/call%n", (t1 - t0) / (double) n);
        }
        System.exit(0); // the context's backend cannot be closed for real
    }

    /**
     * {@code -Dmode=repeated}: PairedBench's chain8 on the api layer alone, a repeated work's call of 8 one-argument
     * launches whose argument changes every launch, recorded and replayed as a graph that does nothing, against the same
     * 8 launches enqueued plainly: what recording, comparing and submitting cost the host per call.
     */
    private static void repeated() {
        DeviceContext ctx = FakeDevices.openWithGraphs(Api.CUDA, n -> new NoWorkStream());
        Kernel writeOne = Kernel.named("write_one")
                .params(KernelParam.pointer("p", DType.I32), KernelParam.scalar("v", DType.I32))
                .cudaSource("never compiled here").build();
        DeviceFunction f = ctx.compile(writeOne);
        DeviceBuffer p = ctx.allocate(DType.I32, 1);
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        int chunks = 100_000;
        Integer[] boxed = new Integer[8 * chunks];
        for (int i = 0; i < boxed.length; i++) {
            boxed[i] = i;
        }
        try (RepeatedWork work = s.repeatedWork()) {
            for (int r = 0; r < 15; r++) {
                long t0 = System.nanoTime();
                DeviceFuture<Void> last = null;
                for (int c = 0; c < chunks; c++) {
                    int chunk = c;
                    last = work.enqueue(w -> {
                        for (int k = 0; k < 8; k++) {
                            w.enqueueLaunch(f, one, p, boxed[chunk * 8 + k]);
                        }
                    });
                }
                long t1 = System.nanoTime();
                last.join();
                DeviceFuture<Void> plain = null;
                for (int c = 0; c < chunks; c++) {
                    for (int k = 0; k < 8; k++) {
                        plain = s.enqueueLaunch(f, one, p, boxed[c * 8 + k]);
                    }
                }
                long t2 = System.nanoTime();
                plain.join();
                System.out.printf(Locale.ROOT, "chain of 8 launches: repeated work %.1f ns/call, plain %.1f ns/call (replays %d)%n",
                        (t1 - t0) / (double) chunks, (t2 - t1) / (double) chunks, work.replays());
            }
        }
        System.exit(0);
    }
}
