package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.kernel.Kernels;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Which outputs repeated work's fused kernel still stores: an output whose region a later launch of the run writes again
 * stays in a register where no read from memory could see it, and is stored wherever one could. Read off the parameters
 * of the fused kernel that the backend is asked to load (the results are the conformance suite's to check).
 */
class FusedOverwriteTest {

    private static final LaunchConfig CONFIG = LaunchConfig.of(1, 64);

    private static StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(FusedOverwriteTest.class.getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> dev.sluice.spi.Marker.DONE;
                    case "allocate" -> FakeDevices.memory((Long) args[0]);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    /** {@code y = x * a + i}. */
    private static final Kernel STEP = Kernels.elementwise("ow_step").input(KernelParam.pointer("x", DType.I32))
            .input(KernelParam.scalar("a", DType.I32)).output(KernelParam.pointer("y", DType.I32))
            .body("y = x * a + (i32) i").build();

    /** Reads {@code p} after assigning {@code q}: where they are one buffer, the read sees the assignment. */
    private static final Kernel BUMP = Kernels.elementwise("ow_bump").input(KernelParam.pointer("p", DType.I32))
            .output(KernelParam.pointer("q", DType.I32)).body("q = p + 1; q = q * 2 + p").build();

    /** Reads its output before assigning it. */
    private static final Kernel ACCUMULATE = Kernels.elementwise("ow_accumulate").input(KernelParam.pointer("x", DType.I32))
            .output(KernelParam.pointer("y", DType.I32)).body("y = y + x").build();

    /** The parameters of the fused kernel loaded for one call of {@code body}, each as {@code stage_param}. */
    private static List<String> fusedParameters(Consumer<List<Object>> body) {
        List<Kernel> loaded = new ArrayList<>();
        DeviceContext ctx = FakeDevices.openWithGraphs(Api.CUDA, n -> stream(), loaded::add);
        DeviceStream s = ctx.createStream();
        List<Object> functionsAndBuffers = new ArrayList<>();
        functionsAndBuffers.add(s);
        functionsAndBuffers.add(ctx.compile(STEP));
        functionsAndBuffers.add(ctx.compile(BUMP));
        functionsAndBuffers.add(ctx.compile(ACCUMULATE));
        for (int k = 0; k < 4; k++) {
            functionsAndBuffers.add(ctx.allocate(DType.I32, 64));
        }
        int before = loaded.size();
        try (RepeatedWork work = s.repeatedWork()) {
            work.enqueue(w -> body.accept(functionsAndBuffers));
            assertEquals(1, work.replays());
        }
        assertEquals(before + 1, loaded.size(), "one fused kernel loaded");
        return loaded.getLast().params().stream().map(KernelParam::name).toList();
    }

    private static void launch(List<Object> c, int function, Object... arguments) {
        ((DeviceStream) c.get(0)).enqueueLaunch((DeviceFunction) c.get(function), CONFIG, arguments);
    }

    @Test
    void anOutputThatALaterLaunchWritesAgainStaysInARegister() {
        List<String> params = fusedParameters(c -> { // x -> ping -> pong -> ping -> z
            launch(c, 1, c.get(4), 2, c.get(5), 64L);
            launch(c, 1, c.get(5), 3, c.get(6), 64L);
            launch(c, 1, c.get(6), 4, c.get(5), 64L);
            launch(c, 1, c.get(5), 5, c.get(7), 64L);
        });
        // The first launch's ping is written again by the third: not stored. Every other output is its region's last.
        assertEquals(List.of("l0s0_x", "l0s0_a", "l1s0_a", "l1s0_y", "l2s0_a",
                "l2s0_y", "l3s0_a", "l3s0_y", "n"), params);
    }

    @Test
    void anOutputStaysStoredWhereTheLaterWriterReadsItsRegionAfterAssigning() {
        List<String> params = fusedParameters(c -> {
            launch(c, 1, c.get(4), 2, c.get(5), 64L); // ping = x * 2 + i
            launch(c, 2, c.get(5), c.get(5), 64L);    // in place: reads ping again after assigning it
        });
        assertEquals(List.of("l0s0_x", "l0s0_a", "l0s0_y", "l1s0_q", "n"), params);
    }

    @Test
    void anOutputStaysStoredWhereTheLaterWriterReadsItsOutputBeforeAssigning() {
        List<String> params = fusedParameters(c -> {
            launch(c, 1, c.get(4), 2, c.get(5), 64L); // ping = x * 2 + i
            launch(c, 3, c.get(6), c.get(5), 64L);    // ping = ping + pong: reads ping from memory
        });
        assertEquals(List.of("l0s0_x", "l0s0_a", "l0s0_y", "l1s0_x",
                "l1s0_y", "n"), params);
    }
}
