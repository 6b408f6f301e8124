package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.ElementwiseBuilder;
import dev.sluice.kernel.Kernels;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A chain of elementwise stages fused into one kernel ({@link Kernels#fuse}) computes, on this backend, what the same
 * stages launched one after another compute, with every value one stage hands to the next rounded to the handing
 * output's type as its buffer would round it: bit for bit for integers and floats. The chains mix integer and float types,
 * narrow and widen, saturate, wrap and divide, and read an input or an intermediate in more than one stage, over edge
 * values and random ones, with a thread per element and with a grid-stride loop. The chains' float arithmetic has no
 * multiplication whose product is added to or subtracted from, which a GPU's compiler may contract into a fused
 * multiply-add differently in the fused kernel (see {@link dev.sluice.kernel.FusedBuilder}).
 */
public abstract class AbstractFusedKernelTest extends ConformanceBase {

    private static final int N = 5_000;
    private static final List<LaunchConfig> CONFIGS = List.of(LaunchConfig.forElements(N), LaunchConfig.of(3, 64));

    @Test
    void aThreeStageChainWithATwoInputStageMatchesItsStagesLaunchedOneByOne() {
        ElementwiseBuilder widen = Kernels.elementwise("widen").input(KernelParam.pointer("x", DType.I16))
                .input(KernelParam.pointer("f", DType.F32)).input(KernelParam.scalar("a", DType.F64))
                .output(KernelParam.pointer("t", DType.F32))
                .body("t = (f32) (x / a + f)"); // an f32 intermediate of an f64 computation
        ElementwiseBuilder mix = Kernels.elementwise("mix").input(KernelParam.pointer("u", DType.F32))
                .input(KernelParam.pointer("k", DType.I32)).output(KernelParam.pointer("m", DType.I8))
                .body("m = (i8) ((i32) (u * 3.5f) + k)"); // saturates, wraps, narrows
        ElementwiseBuilder finish = Kernels.elementwise("finish").input(KernelParam.pointer("v", DType.I8))
                .input(KernelParam.pointer("w", DType.F32)).output(KernelParam.pointer("y", DType.F64))
                .body("f64 h = v / (f64) w; y = h - w / 3.0f; y = y < 0.0 ? y : -y");
        Kernel fused = Kernels.fuse("chain3").stage(widen).stage(mix).stage(finish)
                .bind("mix.u", "widen.t").bind("finish.v", "mix.m").bind("finish.w", "widen.t")
                .output("widen.t").output("finish.y").build();
        assertEquals(List.of("x", "f", "a", "t", "k", "y", "n"), fused.params().stream().map(KernelParam::name).toList(),
                "the chain's inputs, the outputs named, then n; no parameter for the intermediate m");

        DeviceStream s = ctx.stream();
        DeviceBuffer x = upload(s, DType.I16, edgesAndRandom(DType.I16, 1));
        DeviceBuffer f = upload(s, DType.F32, edgesAndRandom(DType.F32, 2));
        DeviceBuffer k = upload(s, DType.I32, edgesAndRandom(DType.I32, 3));
        double a = -0.3;
        for (LaunchConfig config : CONFIGS) {
            DeviceBuffer t = closeLater(ctx.allocate(DType.F32, N));
            DeviceBuffer m = closeLater(ctx.allocate(DType.I8, N));
            DeviceBuffer y = closeLater(ctx.allocate(DType.F64, N));
            await(s.enqueueLaunch(fn(widen.build()), config, x, f, a, t, (long) N));
            await(s.enqueueLaunch(fn(mix.build()), config, t, k, m, (long) N));
            await(s.enqueueLaunch(fn(finish.build()), config, m, t, y, (long) N));

            DeviceBuffer fusedT = closeLater(ctx.allocate(DType.F32, N));
            DeviceBuffer fusedY = closeLater(ctx.allocate(DType.F64, N));
            await(s.enqueueLaunch(fn(fused), config, x, f, a, fusedT, k, fusedY, (long) N));
            assertArrayEquals(bytes(s, t), bytes(s, fusedT), "the intermediate written, widen.t, with " + config);
            assertArrayEquals(bytes(s, y), bytes(s, fusedY), "finish.y with " + config);
        }
    }

    @Test
    void anEightStageChainOfMixedTypesMatchesItsStagesLaunchedOneByOne() {
        List<ElementwiseBuilder> stages = List.of(
                stage("s1", List.of(pointer("a1", DType.I32), pointer("b1", DType.I32)), "o1", DType.F64,
                        "o1 = (i64) a1 * b1 + 7L"), // widened to f64 as its buffer holds it: rounded past 2^53
                stage("s2", List.of(pointer("p2", DType.F64)), "o2", DType.F64, "o2 = p2 / 3.0"),
                stage("s3", List.of(pointer("p3", DType.F64)), "o3", DType.F32, "o3 = (f32) (p3 * 1.1)"),
                stage("s4", List.of(pointer("p4", DType.F32), KernelParam.scalar("c4", DType.F32)), "o4", DType.F32,
                        "o4 = p4 / c4 - 0.5f"),
                stage("s5", List.of(pointer("p5", DType.F32)), "o5", DType.I16, "o5 = (i16) p5"),
                stage("s6", List.of(pointer("p6", DType.I16), pointer("q6", DType.I32)), "o6", DType.F32,
                        "o6 = p6 * q6 - q6 / 3"), // wraps, then widened to f32: rounded past 2^24
                stage("s7", List.of(pointer("p7", DType.F32)), "o7", DType.U8, "o7 = (u8) ((i32) p7 % 251)"),
                stage("s8", List.of(pointer("p8", DType.U8), pointer("r8", DType.F32)), "o8", DType.F64,
                        "o8 = p8 > 100 ? sqrt((f64) r8) : (f64) r8 / -4.0; o8 = o8 + p8"));
        var chain = Kernels.fuse("chain8");
        stages.forEach(chain::stage);
        Kernel fused = chain.bind("s2.p2", "s1.o1").bind("s3.p3", "s2.o2").bind("s4.p4", "s3.o3").bind("s5.p5", "s4.o4")
                .bind("s6.p6", "s5.o5").bind("s6.q6", "s1.a1").bind("s7.p7", "s6.o6").bind("s8.p8", "s7.o7")
                .bind("s8.r8", "s4.o4")
                .output("s3.o3").output("s8.o8").build();
        assertEquals(List.of("a1", "b1", "o3", "c4", "o8", "n"), fused.params().stream().map(KernelParam::name).toList());

        DeviceStream s = ctx.stream();
        DeviceBuffer a = upload(s, DType.I32, edgesAndRandom(DType.I32, 4));
        DeviceBuffer b = upload(s, DType.I32, edgesAndRandom(DType.I32, 5));
        float c = 0.7f;
        for (LaunchConfig config : CONFIGS) {
            DeviceBuffer[] o = new DeviceBuffer[9];
            DType[] types = {null, DType.F64, DType.F64, DType.F32, DType.F32, DType.I16, DType.F32, DType.U8, DType.F64};
            for (int j = 1; j <= 8; j++) {
                o[j] = closeLater(ctx.allocate(types[j], N));
            }
            await(s.enqueueLaunch(fn(stages.get(0).build()), config, a, b, o[1], (long) N));
            await(s.enqueueLaunch(fn(stages.get(1).build()), config, o[1], o[2], (long) N));
            await(s.enqueueLaunch(fn(stages.get(2).build()), config, o[2], o[3], (long) N));
            await(s.enqueueLaunch(fn(stages.get(3).build()), config, o[3], c, o[4], (long) N));
            await(s.enqueueLaunch(fn(stages.get(4).build()), config, o[4], o[5], (long) N));
            await(s.enqueueLaunch(fn(stages.get(5).build()), config, o[5], a, o[6], (long) N));
            await(s.enqueueLaunch(fn(stages.get(6).build()), config, o[6], o[7], (long) N));
            await(s.enqueueLaunch(fn(stages.get(7).build()), config, o[7], o[4], o[8], (long) N));

            DeviceBuffer fused3 = closeLater(ctx.allocate(DType.F32, N));
            DeviceBuffer fused8 = closeLater(ctx.allocate(DType.F64, N));
            await(s.enqueueLaunch(fn(fused), config, a, b, fused3, c, fused8, (long) N));
            assertArrayEquals(bytes(s, o[3]), bytes(s, fused3), "s3.o3 with " + config);
            assertArrayEquals(bytes(s, o[8]), bytes(s, fused8), "s8.o8 with " + config);
        }
    }

    private static ElementwiseBuilder stage(String name, List<KernelParam> inputs, String output, DType type, String body) {
        ElementwiseBuilder b = Kernels.elementwise(name);
        inputs.forEach(b::input);
        return b.output(pointer(output, type)).body(body);
    }

    private static KernelParam pointer(String name, DType type) {
        return KernelParam.pointer(name, type);
    }

    /** {@link #N} elements of {@code t}: its edge values first, then random bits (for floats, random values of all magnitudes). */
    private static MemorySegment edgesAndRandom(DType t, long seed) {
        MemorySegment m = MemorySegment.ofArray(new byte[N * t.byteSize()]);
        Random random = new Random(seed);
        for (int k = 0; k < N; k++) {
            switch (t) {
                case I16 -> m.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, k, (short) (k < 4
                        ? new int[] {Short.MIN_VALUE, Short.MAX_VALUE, 0, -1}[k] : random.nextInt()));
                case I32 -> m.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, k, k < 4
                        ? new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1}[k] : k % 2 == 0 ? random.nextInt() : random.nextInt(2001) - 1000);
                case F32 -> m.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, k, k < 8
                        ? new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, Float.MAX_VALUE,
                            Float.MIN_VALUE, 3e9f, -7.25f}[k]
                        : (float) ((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(21) - 10)));
                default -> throw new AssertionError(t);
            }
        }
        return m;
    }

    private DeviceBuffer upload(DeviceStream s, DType t, MemorySegment values) {
        DeviceBuffer b = closeLater(ctx.allocate(t, N));
        await(s.enqueueCopy(HostData.of(values), b));
        return b;
    }

    private static byte[] bytes(DeviceStream s, DeviceBuffer b) {
        byte[] bytes = new byte[Math.toIntExact(b.byteSize())];
        await(s.enqueueCopy(b, HostData.of(MemorySegment.ofArray(bytes))));
        return bytes;
    }
}
