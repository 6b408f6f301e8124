package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.arrow.ArrowColumns;
import dev.sluice.arrow.DeviceColumn;
import dev.sluice.arrow.PinnedAllocationFactory;
import dev.sluice.kernel.Kernels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;

/**
 * One float column through upload, kernel ({@code y = x * 2 + 1}) and download, three ways in one process, alternating
 * run by run: Arrow vectors of Sluice's pinned allocator ({@code arrow-pinned}), Sluice pinned host buffers
 * ({@code sluice-pinned}, the yardstick), and Arrow vectors of Arrow's default allocator copied through float arrays
 * ({@code arrow-arrays}, what a user without sluice-arrow does). Prints each way's median in ms and GiB/s of column,
 * and the ratios of arrow-pinned to the others.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.ArrowBench \
 *     [--api cuda|hip|cpu] [--mib 1024] [--reps 7]
 * </pre>
 */
public final class ArrowBench {

    static final Kernel SCALE = Kernels.elementwise("scale_plus_one")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = x * 2.0f + 1.0f")
            .build();

    private ArrowBench() {
    }

    public static void main(String[] args) throws Exception {
        String api = null;
        long mib = 1024;
        int reps = 7;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--api" -> api = args[++i];
                case "--mib" -> mib = Long.parseLong(args[++i]);
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: ArrowBench [--api cuda|hip|cpu] [--mib 1024] [--reps 7]");
            }
        }
        try (DeviceContext ctx = api == null ? DeviceContext.open() : DeviceContext.open(api, 0)) {
            for (String line : run(ctx, mib, reps)) {
                System.out.println(line);
            }
        }
    }

    /** The report's lines: one per way, then the ratios. */
    static List<String> run(DeviceContext ctx, long mib, int reps) throws Exception {
        int n = Math.toIntExact(mib * (1 << 20) / 4);
        double[][] ms = new double[3][reps];
        String[] names = {"arrow-pinned", "sluice-pinned", "arrow-arrays"};
        try (RootAllocator pinned = PinnedAllocationFactory.of(ctx).newRootAllocator(Long.MAX_VALUE);
                RootAllocator plain = new RootAllocator();
                Float4Vector px = new Float4Vector("x", pinned); Float4Vector py = new Float4Vector("y", pinned);
                Float4Vector ax = new Float4Vector("x", plain); Float4Vector ay = new Float4Vector("y", plain);
                HostBuffer hx = ctx.allocateHost(DType.F32, n); HostBuffer hy = ctx.allocateHost(DType.F32, n);
                DeviceStream s = ctx.createStream(); DeviceFunction scale = ctx.compile(SCALE);
                DeviceBuffer dy = ctx.allocate(DType.F32, n)) {
            px.allocateNew(n);
            ax.allocateNew(n);
            for (int i = 0; i < n; i++) {
                px.set(i, i);
                ax.set(i, i);
                hx.setFloat(i, i);
            }
            px.setValueCount(n);
            ax.setValueCount(n);
            float[] array = new float[n];
            // One warm-up round, then reps rounds, the three ways in turn within each.
            for (int r = -1; r < reps; r++) {
                for (int way = 0; way < 3; way++) {
                    long t0 = System.nanoTime();
                    switch (way) {
                        case 0 -> {
                            try (DeviceColumn x = ArrowColumns.upload(s, px); DeviceColumn y = DeviceColumn.allocate(ctx, DType.F32, n, false)) {
                                s.enqueueLaunch(scale, LaunchConfig.forElements(n), x.data(), y.data(), (long) n);
                                ArrowColumns.download(s, y, py).get(600, TimeUnit.SECONDS);
                            }
                        }
                        case 1 -> {
                            try (DeviceBuffer dx = ctx.allocate(DType.F32, n)) {
                                s.enqueueCopy(hx, dx);
                                s.enqueueLaunch(scale, LaunchConfig.forElements(n), dx, dy, (long) n);
                                s.enqueueCopy(dy, hy).get(600, TimeUnit.SECONDS);
                            }
                        }
                        default -> {
                            for (int i = 0; i < n; i++) { // what a user without sluice-arrow writes
                                array[i] = ax.get(i);
                            }
                            try (DeviceBuffer dx = ctx.allocate(DType.F32, n)) {
                                s.enqueueCopy(HostData.of(array), dx);
                                s.enqueueLaunch(scale, LaunchConfig.forElements(n), dx, dy, (long) n);
                                s.enqueueCopy(dy, HostData.of(array)).get(600, TimeUnit.SECONDS);
                            }
                            ay.allocateNew(n);
                            for (int i = 0; i < n; i++) {
                                ay.set(i, array[i]);
                            }
                            ay.setValueCount(n);
                        }
                    }
                    if (r >= 0) {
                        ms[way][r] = (System.nanoTime() - t0) / 1e6;
                    }
                }
            }
            check(py, n);
            check(ay, n);
            for (int i = 0; i < n; i += Math.max(1, n / 64)) {
                if (hy.getFloat(i) != i * 2.0f + 1.0f) {
                    throw new IllegalStateException("sluice-pinned: y[" + i + "] = " + hy.getFloat(i));
                }
            }
        }
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "ArrowBench: %s, %d MiB float column (%d values), %d reps, upload -> kernel -> download",
                ctx.name(), mib, n, reps));
        double[] median = new double[3];
        for (int w = 0; w < 3; w++) {
            median[w] = median(ms[w]);
            out.add(String.format(Locale.ROOT, "%-14s median %10.2f ms  %7.2f GiB/s", names[w], median[w],
                    mib / 1024.0 / (median[w] / 1000)));
        }
        out.add(String.format(Locale.ROOT, "ratio arrow-pinned / sluice-pinned (throughput): %.3f", median[1] / median[0]));
        out.add(String.format(Locale.ROOT, "ratio arrow-pinned / arrow-arrays (throughput): %.3f", median[2] / median[0]));
        return out;
    }

    private static void check(Float4Vector y, int n) {
        for (int i = 0; i < n; i += Math.max(1, n / 64)) {
            if (y.get(i) != i * 2.0f + 1.0f) {
                throw new IllegalStateException(y.getName() + "[" + i + "] = " + y.get(i));
            }
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
