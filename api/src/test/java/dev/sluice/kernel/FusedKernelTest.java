package dev.sluice.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.CompilationException;
import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A fused chain's connections are checked when they are given, naming what is wrong; its CUDA C++ is one kernel that
 * reads the chain's inputs and stores only the outputs named. That it computes what the stages compute one by one is the
 * conformance area {@code FusedKernels}.
 */
class FusedKernelTest {

    private static ElementwiseBuilder scale() {
        return Kernels.elementwise("scale").input(KernelParam.scalar("a", DType.F32)).input(KernelParam.pointer("x", DType.F32))
                .output(KernelParam.pointer("y", DType.F32)).body("y = a * x");
    }

    private static ElementwiseBuilder shift() {
        return Kernels.elementwise("shift").input(KernelParam.pointer("u", DType.F32)).input(KernelParam.pointer("v", DType.I32))
                .input(KernelParam.scalar("b", DType.F32)).output(KernelParam.pointer("w", DType.F64))
                .output(KernelParam.pointer("z", DType.I8)).body("w = u + v + b; z = (i8) v");
    }

    private static FusedBuilder chain() {
        return Kernels.fuse("scale_shift").stage(scale()).stage(shift());
    }

    private static void assertRefused(String argument, Executable call, String... mentions) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, call);
        assertEquals(argument, e.argument(), e.getMessage());
        for (String m : mentions) {
            assertTrue(e.getMessage().contains(m), "'" + m + "' in: " + e.getMessage());
        }
    }

    @Test
    void aBindingOfAnUnknownStageOrParameterIsRefusedNamingIt() {
        assertRefused("input", () -> chain().bind("shfit.u", "scale.y"), "'shfit.u'", "no stage 'shfit'", "[scale, shift]");
        assertRefused("input", () -> chain().bind("shift.uu", "scale.y"), "'shift.uu'", "no parameter 'uu'",
                "inputs are [u, v, b]", "outputs [w, z]");
        assertRefused("source", () -> chain().bind("shift.u", "scale.yy"), "'scale.yy'", "no parameter 'yy'");
        assertRefused("source", () -> chain().bind("shift.u", "scaley"), "'scaley'", "not of the form \"stage.param\"");
        assertRefused("input", () -> chain().bind(null, "scale.y"), "must not be null");
        assertRefused("output", () -> chain().output("shift.q"), "'shift.q'", "no parameter 'q'");
    }

    @Test
    void aBindingAgainstTheChainsOrderKindOrTypesIsRefused() {
        assertRefused("input", () -> chain().bind("scale.y", "shift.w"), "'scale.y' is an output of stage scale");
        assertRefused("source", () -> chain().bind("scale.x", "shift.u"), "stage shift (stage 2 of the chain)",
                "does not come before stage scale (stage 1)");
        assertRefused("source", () -> chain().bind("shift.u", "shift.w"), "does not come before");
        assertRefused("source", () -> chain().bind("shift.u", "scale.a"), "'scale.a' (a scalar input of type F32)",
                "cannot feed 'shift.u' (a pointer input of type F32)");
        assertRefused("source", () -> chain().bind("shift.b", "scale.y"), "cannot feed 'shift.b' (a scalar input");
        assertRefused("source", () -> Kernels.fuse("c").stage(scale()).stage(shift()).bind("shift.v", "scale.y"),
                "'scale.y' has type F32 and 'shift.v' type I32");
        assertRefused("input", () -> chain().bind("shift.u", "scale.y").bind("shift.u", "scale.x"),
                "'shift.u' is bound already, to 'scale.y'");
        assertRefused("output", () -> chain().output("shift.u"), "'shift.u' is an input of stage shift", "outputs are [w, z]");
        assertRefused("output", () -> chain().output("shift.w").output("shift.w"), "named already");
    }

    @Test
    void aChainIsRefusedWithoutAnOutputWithTwoStagesOfOneNameOrTwoParametersOfOneName() {
        assertRefused("kernel", () -> chain().bind("shift.u", "scale.y").build(), "writes no output");
        assertRefused("kernel", () -> Kernels.fuse("empty").build(), "has no stage");
        assertRefused("stage", () -> chain().stage(scale()), "already has a stage named 'scale'");
        ElementwiseBuilder again = Kernels.elementwise("again").input(KernelParam.pointer("x", DType.F32))
                .output(KernelParam.pointer("y2", DType.F32)).body("y2 = x");
        assertRefused("kernel", () -> Kernels.fuse("twice").stage(scale()).stage(again).output("again.y2").build(),
                "'scale.x' and 'again.x' would both be its parameter 'x'", "bind(\"again.x\", \"scale.x\")");
        // Bound to the same argument, they are one parameter.
        Kernel one = Kernels.fuse("twice").stage(scale()).stage(again).bind("again.x", "scale.x").output("again.y2").build();
        assertEquals(List.of("a", "x", "y2", "n"), one.params().stream().map(KernelParam::name).toList());
    }

    @Test
    void anIntermediateReadBeforeItIsAssignedIsRefusedAtItsPosition() {
        ElementwiseBuilder early = Kernels.elementwise("early").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I32)).output(KernelParam.pointer("e", DType.I32))
                .body("e = x;\ny = y + x");
        ElementwiseBuilder last = Kernels.elementwise("last").input(KernelParam.pointer("p", DType.I32))
                .output(KernelParam.pointer("q", DType.I32)).body("q = p");
        CompilationException e = assertThrows(CompilationException.class,
                () -> Kernels.fuse("f").stage(early).stage(last).bind("last.p", "early.y").output("last.q").build());
        assertTrue(e.getMessage().startsWith("kernel early, body, line 2, column 5: the output 'y' is read before it is assigned"),
                e.getMessage());
        // Written to memory, it reads what the buffer holds, as the stage's own kernel does.
        Kernels.fuse("f").stage(early).stage(last).bind("last.p", "early.y").output("early.y").output("last.q").build();

        ElementwiseBuilder never = Kernels.elementwise("never").input(KernelParam.pointer("x", DType.I32))
                .output(KernelParam.pointer("y", DType.I32)).output(KernelParam.pointer("e", DType.I32)).body("e = x");
        CompilationException unassigned = assertThrows(CompilationException.class,
                () -> Kernels.fuse("f").stage(never).stage(last).bind("last.p", "never.y").output("last.q").build());
        assertTrue(unassigned.getMessage().contains("the output 'y' is never assigned, and 'last.p' reads it"),
                unassigned.getMessage());
    }

    @Test
    void theFusedCudaSourceIsOneKernelThatStoresOnlyTheOutputsNamed() {
        Kernel fused = chain().bind("shift.u", "scale.y").output("shift.w").build();
        String cuda = fused.cudaSource().orElseThrow();
        assertEquals(1, count(cuda, "__global__"), cuda);
        assertTrue(cuda.contains("extern \"C\" __global__ void sluice_scale_shift(float p_a, const float* p_x, const int* p_v,"
                + " float p_b, double* p_w, long long sl_n)"), cuda);
        Matcher store = Pattern.compile("p_(\\w+)\\[sl_i\\] =").matcher(cuda);
        while (store.find()) {
            assertEquals("w", store.group(1), "the only store to memory is to the output named: " + cuda);
        }
        assertEquals(2, count(cuda, "p_w[sl_i] ="), "w is stored once on each path (a thread per element, the loop): " + cuda);
        assertEquals(2, count(cuda, "p_x[sl_i]"), "x is read once on each path: " + cuda);
        assertTrue(cuda.contains("float v0_y;"), "scale.y is a register: " + cuda);
        assertTrue(cuda.contains("signed char v1_z;"), "shift.z, written to nowhere, is a register: " + cuda);
        assertTrue(cuda.contains("v0_y = (p_a * p_x[sl_i]);"), cuda);
        assertFalse(cuda.contains("p_y") || cuda.contains("p_u") || cuda.contains("p_z"), "no pointer for an intermediate: " + cuda);
        assertEquals(KernelParam.Access.READ_WRITE, fused.params().get(4).access(), "w is written");
        assertEquals(KernelParam.Access.READ, fused.params().get(2).access(), "v is read");
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
            n++;
        }
        return n;
    }
}
