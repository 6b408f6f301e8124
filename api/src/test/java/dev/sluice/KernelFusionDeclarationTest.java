package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kernel.Kernels;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Repeated work fuses the launches of a kernel because the kernel declares that it can ({@link Kernel#fusion()}), read
 * from the launched function: the kernel language's element-wise kernels declare it, a hand-written kernel does not,
 * and a declaration of another generator fuses its own launches but never with the kernel language's.
 */
class KernelFusionDeclarationTest {

    private static final LaunchConfig CONFIG = LaunchConfig.of(1, 64);

    /** {@code y = x * a + i}. */
    private static final Kernel STEP = Kernels.elementwise("decl_step").input(KernelParam.pointer("x", DType.I32))
            .input(KernelParam.scalar("a", DType.I32)).output(KernelParam.pointer("y", DType.I32))
            .body("y = x * a + (i32) i").build();

    /** A fusion of another generator: counts its calls, and fuses two launches into {@code into}. */
    private static final class Foreign implements Kernel.Fusion {
        final List<List<Kernel.Fusion>> fused = new ArrayList<>();
        final Kernel into = Kernel.named("foreign_fused").param(KernelParam.pointer("x", DType.I32))
                .param(KernelParam.pointer("y", DType.I32)).param(KernelParam.pointer("z", DType.I32))
                .param(KernelParam.scalar("n", DType.I64)).java(t -> { }).build();

        @Override
        public boolean overwrites(int output, int[] aliases) {
            return false;
        }

        @Override
        public Kernel fuse(List<Kernel.Fusion> launches, int[][] sources) {
            fused.add(List.copyOf(launches));
            if (!launches.stream().allMatch(f -> f == this)) {
                throw new IllegalArgumentException("fuses only with itself");
            }
            return into;
        }
    }

    /** {@code y = x} by hand, declaring {@code fusion}. */
    private static Kernel copy(Kernel.Fusion fusion) {
        return Kernel.named("decl_copy").param(KernelParam.pointer("x", DType.I32, KernelParam.Access.READ))
                .param(KernelParam.pointer("y", DType.I32, KernelParam.Access.WRITE)).param(KernelParam.scalar("n", DType.I64))
                .java(t -> { }).fusion(fusion).build();
    }

    @Test
    void generatedElementwiseKernelsDeclareAFusionAndHandWrittenOnesNone() {
        assertTrue(STEP.fusion().isPresent(), "an element-wise kernel of the kernel language");
        assertTrue(Kernels.fuse("decl_chain").stage(Kernels.elementwise("decl_a").input(KernelParam.pointer("x", DType.F32))
                .output(KernelParam.pointer("y", DType.F32)).body("y = x + 1")).output("decl_a.y").build().fusion().isPresent(),
                "a fused chain of the kernel language");
        assertTrue(Kernel.named("decl_plain").java(t -> { }).build().fusion().isEmpty(), "a kernel written by hand");
    }

    @Test
    void theKernelLanguagesFusionsMeasureTheirBodiesInSyntaxTreeNodes() {
        Kernel fma = Kernels.elementwise("decl_size").input(KernelParam.scalar("a", DType.F32))
                .input(KernelParam.pointer("x", DType.F32)).output(KernelParam.pointer("y", DType.F32))
                .body("f32 t = x;\n" + "t = fma(t, a, 0.25f);\n".repeat(128) + "y = t").build();
        // Two statements of a name each (2 + 2), 128 of a call of three arguments (5 each).
        assertEquals(2 + 2 + 128 * 5, fma.fusion().orElseThrow().size());
        Kernel chain = Kernels.fuse("decl_size_chain")
                .stage(Kernels.elementwise("decl_b").input(KernelParam.pointer("x", DType.F32))
                        .output(KernelParam.pointer("y", DType.F32)).body("y = x + 1"))
                .stage(Kernels.elementwise("decl_c").input(KernelParam.pointer("y", DType.F32))
                        .output(KernelParam.pointer("z", DType.F32)).body("z = -y * y"))
                .bind("decl_c.y", "decl_b.y").output("decl_c.z").build();
        assertEquals(4 + 5, chain.fusion().orElseThrow().size(), "a chain's stages together");
        assertEquals(1, copy(new Foreign()).fusion().orElseThrow().size(), "another generator's, by default");
    }

    @Test
    void launchesOfAKernelDeclaringAnotherGeneratorsFusionAreFusedByIt() {
        Foreign foreign = new Foreign();
        Kernel copy = copy(foreign);
        List<Kernel> loaded = new ArrayList<>();
        long fused = fusedLaunches(loaded, (s, f) -> {
            DeviceFunction c = s.context().compile(copy);
            DeviceBuffer x = s.context().allocate(DType.I32, 64);
            DeviceBuffer y = s.context().allocate(DType.I32, 64);
            DeviceBuffer z = s.context().allocate(DType.I32, 64);
            f.accept(w -> {
                w.enqueueLaunch(c, CONFIG, x, y, 64L);
                w.enqueueLaunch(c, CONFIG, y, z, 64L);
            });
        });
        assertEquals(2, fused, "the two launches ran as one");
        assertEquals(List.of(List.of(foreign, foreign)), foreign.fused, "asked once, with the launches' fusions");
        assertSame(foreign.into, loaded.getLast(), "the kernel it built is the one loaded");
    }

    @Test
    void aFusionOfAnotherGeneratorNeverFusesWithTheKernelLanguagesKernels() {
        Foreign foreign = new Foreign();
        Kernel copy = copy(foreign);
        long fused = fusedLaunches(new ArrayList<>(), (s, f) -> {
            DeviceFunction c = s.context().compile(copy);
            DeviceFunction step = s.context().compile(STEP);
            DeviceBuffer x = s.context().allocate(DType.I32, 64);
            DeviceBuffer y = s.context().allocate(DType.I32, 64);
            DeviceBuffer z = s.context().allocate(DType.I32, 64);
            f.accept(w -> {
                w.enqueueLaunch(step, CONFIG, x, 2, y, 64L);
                w.enqueueLaunch(c, CONFIG, y, z, 64L);
            });
        });
        assertEquals(0, fused, "refused: the launches ran as recorded");
    }

    /** Runs a body as one call of repeated work on a fake device with graphs; the launches it ran fused. */
    private static long fusedLaunches(List<Kernel> loaded, Body body) {
        DeviceContext ctx = FakeDevices.openWithGraphs(Api.CUDA, n -> stream(), loaded::add);
        try (ctx; DeviceStream s = ctx.createStream(); RepeatedWork work = s.repeatedWork()) {
            long[] fused = new long[1];
            body.run(s, call -> {
                work.enqueue(call);
                assertEquals(1, work.replays());
                fused[0] = work.fusedLaunches();
            });
            return fused[0];
        }
    }

    private interface Body {
        void run(DeviceStream s, Consumer<Consumer<DeviceStream>> call);
    }

    private static StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(KernelFusionDeclarationTest.class.getClassLoader(),
                new Class<?>[] {StreamHandle.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> dev.sluice.spi.Marker.DONE;
                    case "allocate" -> FakeDevices.memory((Long) args[0]);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }
}
