package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceStream;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import dev.sluice.kernel.Kernels;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A launch reads each argument once: a count checked against the buffers is the count launched, even where the caller's
 * {@link Number} answers differently on a later reading (an {@link AtomicLong} another thread updates, any mutable
 * {@code Number}). Checked on every way a launch reaches the device: plain, held behind a pending host stage, recorded
 * by repeated work, fused there with another element-wise launch, and captured into a graph.
 */
public abstract class AbstractChangingArgumentTest extends ConformanceBase {

    private static final int N = 8;
    /** What a changing count answers after its first reading: far past every buffer here. */
    private static final long LARGE = 1 << 22;

    /** A {@code Number} of no kind the JDK knows whose first reading of each kind is {@code N}, and later ones large. */
    private static final class ChangingNumber extends Number {
        private final AtomicInteger longReads = new AtomicInteger();
        private final AtomicInteger doubleReads = new AtomicInteger();

        @Override
        public long longValue() {
            return longReads.getAndIncrement() == 0 ? N : LARGE;
        }

        @Override
        public double doubleValue() {
            return doubleReads.getAndIncrement() == 0 ? N : LARGE;
        }

        @Override
        public int intValue() {
            return (int) longValue();
        }

        @Override
        public float floatValue() {
            return (float) doubleValue();
        }
    }

    /** An {@link AtomicLong} that another thread sets to a large count right after the first reading. */
    private static AtomicLong changingAtomic() {
        return new AtomicLong(N) {
            private final AtomicInteger reads = new AtomicInteger();

            @Override
            public long longValue() {
                long v = get();
                if (reads.getAndIncrement() == 0) {
                    set(LARGE);
                }
                return v;
            }
        };
    }

    private DeviceFunction copy() {
        return fn(Kernels.elementwise("copy_count").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I32)).body("y = x + 1").build());
    }

    private interface Launcher {
        void launch(DeviceStream s, DeviceFunction f, DeviceBuffer x, DeviceBuffer y, DeviceBuffer z, Supplier<Number> count);
    }

    private void check(String path, Launcher launcher) {
        for (Supplier<Number> count : java.util.List.<Supplier<Number>>of(ChangingNumber::new,
                AbstractChangingArgumentTest::changingAtomic)) {
            DeviceFunction f = copy();
            DeviceStream s = ctx.createStream();
            DeviceBuffer x = closeLater(intBuffer(ctx, iota(N, 10)));
            DeviceBuffer y = closeLater(intBuffer(ctx, filled(N, 0)));
            DeviceBuffer z = closeLater(intBuffer(ctx, filled(N, 0)));
            launcher.launch(s, f, x, y, z, count);
            s.synchronize();
            assertArrayEquals(iota(N, 11), readInts(s, y), path + " with " + count.get().getClass().getSimpleName()
                    + ": launched with the count it checked");
            assertStreamUsable(s);
        }
    }

    @Test
    void aPlainLaunchLaunchesTheCountItChecked() {
        check("plain", (s, f, x, y, z, n) -> await(s.enqueueLaunch(f, LaunchConfig.forElements(N), x, y, n.get())));
    }

    @Test
    void aLaunchHeldBehindAHostStageLaunchesTheCountItChecked() {
        check("held", (s, f, x, y, z, n) -> {
            CompletableFuture<Void> stage = new CompletableFuture<>();
            s.waitFor(stage);
            var launched = s.enqueueLaunch(f, LaunchConfig.forElements(N), x, y, n.get());
            stage.complete(null);
            await(launched);
        });
    }

    @Test
    void aRecordedLaunchLaunchesTheCountItChecked() {
        check("recorded", (s, f, x, y, z, n) -> {
            try (RepeatedWork w = s.repeatedWork()) {
                w.fuseElementwise(false);
                await(w.enqueue(c -> c.enqueueLaunch(f, LaunchConfig.forElements(N), x, y, n.get())));
            }
        });
    }

    @Test
    void aFusedLaunchLaunchesTheCountItChecked() {
        check("fused", (s, f, x, y, z, n) -> {
            try (RepeatedWork w = s.repeatedWork()) {
                await(w.enqueue(c -> {
                    c.enqueueLaunch(f, LaunchConfig.forElements(N), x, z, n.get());
                    c.enqueueLaunch(f, LaunchConfig.forElements(N), x, y, n.get());
                }));
                assertEquals(2, w.fusedLaunches(), "the two launches ran as one fused kernel");
            }
        });
    }

    @Test
    void aCapturedLaunchLaunchesTheCountItChecked() {
        check("captured", (s, f, x, y, z, n) -> {
            try (DeviceGraph g = s.capture(c -> c.enqueueLaunch(f, LaunchConfig.forElements(N), x, y, n.get()))) {
                await(g.enqueueLaunch(s));
            }
        });
    }
}
