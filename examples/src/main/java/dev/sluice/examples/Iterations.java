package dev.sluice.examples;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import dev.sluice.kernel.Kernels;
import dev.sluice.reactive.DevicePlan;
import dev.sluice.reactive.RepeatedPlan;
import java.util.Arrays;
import java.util.Locale;

/**
 * The same iteration of two kernels run 200 times three ways: as plain enqueues (400 launches), as {@link RepeatedWork}
 * (each iteration recorded and launched as one graph, its two generated element-wise kernels fused into one) and as a
 * reactive {@link RepeatedPlan} (a {@link DevicePlan} replayed the same way). Prints each way's first elements, what ran
 * (graph launches, launches fused), whether the three results are equal bit for bit, and the times of all iterations but
 * the first (which loads the kernels, builds the graph and compiles the fused kernel), which depend on the machine.
 */
public final class Iterations {

    /**
     * One step of the logistic map, {@code y = r' * x * (1 - x)}, with {@code r'} from {@code r} to {@code r + 0.8} across
     * the elements (so that they settle on different cycles); takes (r, x, y, n).
     */
    static final Kernel LOGISTIC = Kernels.elementwise("logistic")
            .input(KernelParam.scalar("r", DType.F32))
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = (r + 0.8f * (f32) i / (f32) n) * x * (1.0f - x)")
            .build();

    /** {@code x = y} kept within [lo, hi]; takes (y, lo, hi, x, n). */
    static final Kernel CLAMP = Kernels.elementwise("clamp")
            .input(KernelParam.pointer("y", DType.F32))
            .input(KernelParam.scalar("lo", DType.F32))
            .input(KernelParam.scalar("hi", DType.F32))
            .output(KernelParam.pointer("x", DType.F32))
            .body("x = min(max(y, lo), hi)")
            .build();

    static final int ELEMENTS = 1 << 16;
    static final int ITERATIONS = 200;

    private Iterations() {
    }

    public static void main(String[] args) {
        try (DeviceContext ctx = DeviceContext.open()) {
            run(ctx);
        }
    }

    static void run(DeviceContext ctx) {
        Examples.printDevice(ctx);
        float[] start = new float[ELEMENTS];
        for (int i = 0; i < ELEMENTS; i++) {
            start[i] = (i + 0.5f) / ELEMENTS;
        }
        LaunchConfig config = LaunchConfig.forElements(ELEMENTS);
        long n = ELEMENTS;
        try (DeviceStream s = ctx.createStream(); DeviceFunction logistic = ctx.compile(LOGISTIC);
                DeviceFunction clamp = ctx.compile(CLAMP);
                DeviceBuffer x = ctx.allocate(DType.F32, ELEMENTS); DeviceBuffer y = ctx.allocate(DType.F32, ELEMENTS)) {
            float[] plain = new float[ELEMENTS];
            float[] repeated = new float[ELEMENTS];
            float[] replayedPlan = new float[ELEMENTS];

            // Each way's first iteration runs untimed: it loads the kernels (and the repeated forms build their graph and
            // generate and compile the fused kernel), once; the times are of the other iterations.
            s.enqueueCopy(HostData.of(start), x);
            long t0 = 0;
            for (int k = 0; k < ITERATIONS; k++) {
                s.enqueueLaunch(logistic, config, 2.9f, x, y, n);
                s.enqueueLaunch(clamp, config, y, 0.05f, 0.95f, x, n);
                t0 = k == 0 ? started(s) : t0;
            }
            s.synchronize();
            long plainNanos = System.nanoTime() - t0;
            s.enqueueCopy(x, HostData.of(plain)).join();
            System.out.println("plain enqueues:   " + head(plain) + ", " + 2 * ITERATIONS + " launches");

            long workNanos;
            s.enqueueCopy(HostData.of(start), x);
            try (RepeatedWork work = s.repeatedWork()) {
                long t1 = 0;
                for (int k = 0; k < ITERATIONS; k++) {
                    work.enqueue(w -> {
                        w.enqueueLaunch(logistic, config, 2.9f, x, y, n);
                        w.enqueueLaunch(clamp, config, y, 0.05f, 0.95f, x, n);
                    });
                    t1 = k == 0 ? started(s) : t1;
                }
                s.synchronize();
                workNanos = System.nanoTime() - t1;
                s.enqueueCopy(x, HostData.of(repeated)).join();
                System.out.println("repeated work:    " + head(repeated) + ", " + work.replays() + " graph launches ("
                        + work.builds() + " built), " + work.fusedLaunches() + " launches fused");
            }

            long planNanos;
            s.enqueueCopy(HostData.of(start), x);
            try (RepeatedPlan iteration = DevicePlan.on(s)
                    .then(t -> t.enqueueLaunch(logistic, config, 2.9f, x, y, n))
                    .then(t -> t.enqueueLaunch(clamp, config, y, 0.05f, 0.95f, x, n))
                    .repeated()) {
                long t2 = 0;
                for (int k = 0; k < ITERATIONS; k++) {
                    iteration.enqueue();
                    t2 = k == 0 ? started(s) : t2;
                }
                s.synchronize();
                planNanos = System.nanoTime() - t2;
                s.enqueueCopy(x, HostData.of(replayedPlan)).join();
                System.out.println("repeated plan:    " + head(replayedPlan) + ", " + iteration.replays() + " graph launches, "
                        + iteration.fusedLaunches() + " launches fused");
            }

            System.out.println("equal bit for bit: " + (Arrays.equals(plain, repeated) && Arrays.equals(plain, replayedPlan)));
            System.out.println(String.format(Locale.ROOT, "times of iterations 2 to %d (this machine): plain %.2f ms, repeated work"
                    + " %.2f ms, repeated plan %.2f ms", ITERATIONS, plainNanos / 1e6, workNanos / 1e6, planNanos / 1e6));
            if (ctx.api() == Api.CPU) {
                System.out.println(CPU_NOTE);
            }
        }
    }

    /**
     * Why the simulator's times of repeated work mean nothing: a graph saves a GPU the driver's work per launch, and the
     * simulator has no driver to save; it replays its recording on host threads, at a cost of its own.
     */
    static final String CPU_NOTE = "note: on the CPU simulator these times say nothing of a GPU: a graph launch saves a"
            + " GPU the driver's work per operation, which the simulator does not have; it replays its recording on host"
            + " threads, so repeated work may come out slower than plain enqueues there (or faster, for reasons of its own)";

    /** Waits for the first iteration, then returns the time the others start from. */
    private static long started(DeviceStream s) {
        s.synchronize();
        return System.nanoTime();
    }

    private static String head(float[] v) {
        return String.format(Locale.ROOT, "x[0, n/2, n-1] = %.6f %.6f %.6f", v[0], v[v.length / 2], v[v.length - 1]);
    }
}
