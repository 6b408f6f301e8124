package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import dev.sluice.kernel.Kernels;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Repeated work fuses consecutive launches of generated element-wise kernels into one where that is the same
 * computation ({@link RepeatedWork}, "Fusion"): every backend must give the results of plain enqueues, fuse what may be
 * fused and leave the rest as it is.
 */
public abstract class AbstractRepeatedWorkFusionTest extends ConformanceBase {

    private static final int N = 256;
    private static final int CALLS = 12;
    private static final LaunchConfig CONFIG = LaunchConfig.forElements(N);

    /** {@code y = x * a + i}, in {@code i32}. */
    private DeviceFunction step() {
        return fn(Kernels.elementwise("step").input(KernelParam.pointer("x", DType.I32))
                .input(KernelParam.scalar("a", DType.I32)).output(KernelParam.pointer("y", DType.I32))
                .body("y = x * a + (i32) i").build());
    }

    /** {@code w = u - v * 3}, in {@code i32}. */
    private DeviceFunction mix() {
        return fn(Kernels.elementwise("mix").input(KernelParam.pointer("u", DType.I32))
                .input(KernelParam.pointer("v", DType.I32)).output(KernelParam.pointer("w", DType.I32))
                .body("w = u - v * 3").build());
    }

    /** An update in place when {@code p} and {@code q} are one buffer: reads {@code p} after assigning {@code q}. */
    private DeviceFunction bump() {
        return fn(Kernels.elementwise("bump").input(KernelParam.pointer("p", DType.I32))
                .output(KernelParam.pointer("q", DType.I32)).body("q = p + 1; q = q * 2 + p").build());
    }

    private RepeatedWork work(DeviceStream s) {
        return closeLater(s.repeatedWork());
    }

    /** Runs {@code body} as repeated work on buffers of its own and as plain enqueues on a copy of them; compares. */
    private RepeatedWork compare(int buffers, int elements, IntBody body) {
        DeviceStream s = ctx.createStream();
        DeviceBuffer[] fused = new DeviceBuffer[buffers];
        DeviceBuffer[] plain = new DeviceBuffer[buffers];
        for (int k = 0; k < buffers; k++) {
            fused[k] = closeLater(intBuffer(ctx, iota(elements, 7 * k - 100)));
            plain[k] = closeLater(intBuffer(ctx, iota(elements, 7 * k - 100)));
        }
        RepeatedWork w = work(s);
        for (int i = 0; i < CALLS; i++) {
            int call = i;
            await(w.enqueue(c -> body.enqueue(c, call, fused)));
            body.enqueue(s, call, plain);
        }
        for (int k = 0; k < buffers; k++) {
            assertArrayEquals(readInts(s, plain[k]), readInts(s, fused[k]), "buffer " + k);
        }
        assertEquals(0, w.fallbacks(), "no call fell back");
        assertEquals(CALLS, w.replays(), "one graph launch per call");
        return w;
    }

    /** One call's work on buffers {@code b}. */
    private interface IntBody {
        void enqueue(DeviceStream s, int call, DeviceBuffer[] b);
    }

    @Test
    void anIntegerChainFusesIntoOneLaunchAndEqualsPlainEnqueuesBitForBit() {
        DeviceFunction step = step();
        DeviceFunction mix = mix();
        DeviceFunction bump = bump();
        RepeatedWork w = compare(3, N, (s, call, b) -> {
            s.enqueueLaunch(step, CONFIG, b[0], 3 + call, b[1], (long) N); // b1 = b0 * a + i
            s.enqueueLaunch(mix, CONFIG, b[1], b[0], b[2], (long) N);      // reads b1 as written, b0 as the same argument
            s.enqueueLaunch(bump, CONFIG, b[2], b[2], (long) N);           // in place
        });
        assertEquals(3L * CALLS, w.fusedLaunches(), "every call ran its three launches as one");
        assertEquals(1, w.builds(), "one plan, one graph");
    }

    @Test
    void outputsOverwrittenLaterInTheRunGivePlainResults() {
        DeviceFunction step = step();
        DeviceFunction accumulate = fn(Kernels.elementwise("accumulate").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I32)).body("y = y + x").build());
        RepeatedWork w = compare(4, N, (s, call, b) -> {
            s.enqueueLaunch(step, CONFIG, b[0], 2 + call, b[1], (long) N); // b1, written again below: kept in a register
            s.enqueueLaunch(step, CONFIG, b[1], -3, b[2], (long) N);
            s.enqueueLaunch(step, CONFIG, b[2], 5, b[1], (long) N);        // b1 again: its last value is stored
            s.enqueueLaunch(step, CONFIG, b[1], 7, b[3], (long) N);
            s.enqueueLaunch(accumulate, CONFIG, b[1], b[3], (long) N);      // reads b3 from memory: its store stays
        });
        assertEquals(5L * CALLS, w.fusedLaunches(), "every call ran its five launches as one");
    }

    @Test
    void twoLaunchesOfOneKernelFuse() {
        DeviceFunction step = step();
        RepeatedWork w = compare(3, N, (s, call, b) -> {
            s.enqueueLaunch(step, CONFIG, b[0], 2, b[1], (long) N);
            s.enqueueLaunch(step, CONFIG, b[1], -5 + call, b[2], (long) N);
            s.enqueueLaunch(step, CONFIG, b[2], 3, b[0], (long) N); // writes what the first read
        });
        assertEquals(3L * CALLS, w.fusedLaunches());
    }

    @Test
    void aFloatChainWithoutMultiplyAddsAcrossLaunchesEqualsPlainEnqueuesBitForBit() {
        DeviceFunction scale = fn(Kernels.elementwise("scale").input(KernelParam.pointer("x", DType.F32))
                .input(KernelParam.scalar("a", DType.F32)).output(KernelParam.pointer("y", DType.F32)).body("y = x * a").build());
        DeviceFunction ratio = fn(Kernels.elementwise("ratio").input(KernelParam.pointer("y", DType.F32))
                .input(KernelParam.pointer("x", DType.F32)).input(KernelParam.scalar("b", DType.F32))
                .output(KernelParam.pointer("w", DType.F32)).body("w = y / b + x").build());
        DeviceFunction root = fn(Kernels.elementwise("root").input(KernelParam.pointer("w", DType.F32))
                .output(KernelParam.pointer("z", DType.F64)).body("z = sqrt(w < 0.0f ? -w : w) * 0.5").build());
        DeviceStream s = ctx.createStream();
        float[] xs = new float[N];
        for (int i = 0; i < N; i++) {
            xs[i] = (i - N / 2) * 0.37f + 1e-3f * i * i;
        }
        DeviceBuffer[][] sets = new DeviceBuffer[2][];
        for (int k = 0; k < 2; k++) {
            DeviceBuffer x = closeLater(ctx.allocate(DType.F32, N));
            await(s.enqueueCopy(HostData.of(xs), x));
            sets[k] = new DeviceBuffer[] {x, closeLater(ctx.allocate(DType.F32, N)), closeLater(ctx.allocate(DType.F32, N)),
                    closeLater(ctx.allocate(DType.F64, N))};
        }
        RepeatedWork w = work(s);
        for (int i = 0; i < CALLS; i++) {
            float a = 1.1f + i;
            float b = 3.3f - i;
            for (int k = 0; k < 2; k++) {
                DeviceBuffer[] v = sets[k];
                Consumer<DeviceStream> body = c -> {
                    c.enqueueLaunch(scale, CONFIG, v[0], a, v[1], (long) N);
                    c.enqueueLaunch(ratio, CONFIG, v[1], v[0], b, v[2], (long) N);
                    c.enqueueLaunch(root, CONFIG, v[2], v[3], (long) N);
                };
                if (k == 0) {
                    await(w.enqueue(body));
                } else {
                    body.accept(s);
                }
            }
        }
        for (int k = 1; k < 4; k++) {
            assertArrayEquals(bytes(s, sets[1][k]), bytes(s, sets[0][k]), "buffer " + k);
        }
        assertEquals(3L * CALLS, w.fusedLaunches());
    }

    @Test
    void aShiftedSliceOfAnOutputIsNotFusedAndGivesPlainResults() {
        DeviceFunction step = step();
        RepeatedWork w = compare(3, N + 1, (s, call, b) -> {
            s.enqueueLaunch(step, CONFIG, b[0].slice(0, N), 2 + call, b[1].slice(0, N), (long) N);
            // Element i reads what the first launch's thread i + 1 wrote: fused, that thread may not have run yet.
            s.enqueueLaunch(step, CONFIG, b[1].slice(1, N), 3, b[2].slice(0, N), (long) N);
        });
        assertEquals(0, w.fusedLaunches());
    }

    @Test
    void anOutputReadAsAnotherTypeIsNotFused() {
        DeviceFunction step = step();
        DeviceFunction widen = fn(Kernels.elementwise("widen").input(KernelParam.pointer("x", DType.I16))
                .output(KernelParam.pointer("y", DType.I32)).body("y = x * 3").build());
        RepeatedWork w = compare(3, N, (s, call, b) -> {
            s.enqueueLaunch(step, CONFIG, b[0], 5 + call, b[1], (long) N);
            s.enqueueLaunch(widen, CONFIG, b[1].reinterpret(DType.I16), b[2], (long) N);
        });
        assertEquals(0, w.fusedLaunches());
    }

    @Test
    void anotherElementCountEndsTheRun() {
        DeviceFunction step = step();
        RepeatedWork w = compare(4, N, (s, call, b) -> {
            s.enqueueLaunch(step, CONFIG, b[0], 2, b[1], (long) N);
            s.enqueueLaunch(step, CONFIG, b[1], 3 + call, b[2], (long) N - 3);
            s.enqueueLaunch(step, CONFIG, b[2], 5, b[3], (long) N - 3); // a run of its own with the one before
        });
        assertEquals(2L * CALLS, w.fusedLaunches(), "the second and third launches fused, not the first");
    }

    @Test
    void aLongRunOfHeavyLaunchesFusesIntoKernelsWithinTheSizeCap() {
        Kernel heavy = Kernels.elementwise("heavy").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I32))
                .body("i32 t = x;\n" + "t = t * 3 + 1;\n".repeat(60) + "y = t").build();
        int size = heavy.fusion().orElseThrow().size();
        int perKernel = Kernel.Fusion.MAX_FUSED_SIZE / size;
        assertTrue(perKernel >= 2 && perKernel < 7, "the test's kernel fits " + perKernel + " times in one fused kernel");
        DeviceFunction f = fn(heavy);
        int launches = 7;
        RepeatedWork w = compare(2, N, (s, call, b) -> {
            for (int k = 0; k < launches; k++) {
                s.enqueueLaunch(f, CONFIG, k == 0 ? b[0] : b[1], b[1], (long) N); // b0 into b1, then b1 in place
            }
        });
        int fusedPerCall = 0;
        for (int left = launches; left > 0; left -= perKernel) {
            int inKernel = Math.min(perKernel, left);
            fusedPerCall += inKernel >= 2 ? inKernel : 0; // a launch left alone runs as recorded
        }
        assertEquals((long) fusedPerCall * CALLS, w.fusedLaunches(), "runs of " + perKernel + " launches, not one of "
                + launches);
    }

    @Test
    void aLaunchLargerThanTheCapIsNotFused() {
        Kernel huge = Kernels.elementwise("huge").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I32))
                .body("i32 t = x;\n" + "t = t * 3 + 1;\n".repeat(Kernel.Fusion.MAX_FUSED_SIZE / 6) + "y = t").build();
        assertTrue(huge.fusion().orElseThrow().size() > Kernel.Fusion.MAX_FUSED_SIZE / 2);
        DeviceFunction f = fn(huge);
        RepeatedWork w = compare(2, N, (s, call, b) -> {
            s.enqueueLaunch(f, CONFIG, b[0], b[1], (long) N);
            s.enqueueLaunch(f, CONFIG, b[1], b[1], (long) N);
        });
        assertEquals(0, w.fusedLaunches(), "two launches of it would be over the cap");
    }

    @Test
    void aFillBetweenLaunchesEndsTheRun() {
        DeviceFunction step = step();
        RepeatedWork w = compare(3, N, (s, call, b) -> {
            s.enqueueLaunch(step, CONFIG, b[0], 2, b[1], (long) N);
            s.enqueueFill(b[0], call);
            s.enqueueLaunch(step, CONFIG, b[1], 3, b[2], (long) N);
        });
        assertEquals(0, w.fusedLaunches());
    }

    @Test
    void callsOfOneShapeWhoseBuffersAliasDifferentlyHaveTheirOwnPlans() {
        DeviceFunction step = step();
        DeviceFunction mix = mix();
        RepeatedWork w = compare(5, N + 1, (s, call, b) -> {
            DeviceBuffer first = b[1].slice(0, N);
            // Even calls: mix reads what step wrote; odd calls: another buffer; every third: a shifted slice of it.
            DeviceBuffer read = call % 3 == 2 ? b[1].slice(1, N) : call % 2 == 0 ? first : b[3].slice(0, N);
            s.enqueueLaunch(step, CONFIG, b[0].slice(0, N), 2 + call, first, (long) N);
            s.enqueueLaunch(mix, CONFIG, read, b[0].slice(0, N), b[2].slice(0, N), (long) N);
            s.enqueueLaunch(mix, CONFIG, b[2].slice(0, N), read, b[4].slice(0, N), (long) N);
        });
        long unfused = 0;
        for (int call = 0; call < CALLS; call++) {
            unfused += call % 3 == 2 ? 1 : 0;
        }
        // A shifted slice splits the run after the first launch; the other two still fuse.
        assertEquals(3L * (CALLS - unfused) + 2L * unfused, w.fusedLaunches());
    }

    @Test
    void fusionSwitchedOffFusesNothing() {
        DeviceFunction step = step();
        DeviceFunction mix = mix();
        DeviceStream s = ctx.createStream();
        DeviceBuffer[] b = {closeLater(intBuffer(ctx, iota(N, 1))), closeLater(intBuffer(ctx, filled(N, 0))),
                closeLater(intBuffer(ctx, filled(N, 0)))};
        RepeatedWork w = work(s).fuseElementwise(false);
        for (int call = 0; call < CALLS; call++) {
            int a = call;
            await(w.enqueue(c -> {
                c.enqueueLaunch(step, CONFIG, b[0], a, b[1], (long) N);
                c.enqueueLaunch(mix, CONFIG, b[1], b[0], b[2], (long) N);
            }));
        }
        assertEquals(CALLS, w.replays());
        assertEquals(0, w.fusedLaunches());
        w.fuseElementwise(true);
        await(w.enqueue(c -> {
            c.enqueueLaunch(step, CONFIG, b[0], 1, b[1], (long) N);
            c.enqueueLaunch(mix, CONFIG, b[1], b[0], b[2], (long) N);
        }));
        assertEquals(2, w.fusedLaunches(), "on again");
    }

    private static byte[] bytes(DeviceStream s, DeviceBuffer b) {
        byte[] out = new byte[Math.toIntExact(b.byteSize())];
        await(s.enqueueCopy(b, HostData.of(MemorySegment.ofArray(out))));
        return out;
    }
}
