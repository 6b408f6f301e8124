package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kernel.Kernels;
import org.junit.jupiter.api.Test;

/** A kernel's name and the symbol its code exports: the same unless the builder names another entry point. */
class KernelEntryPointTest {

    @Test
    void theEntryPointIsTheNameUnlessAnotherIsNamed() {
        assertEquals("scale", Kernel.named("scale").java(t -> { }).build().entryPoint());
        Kernel k = Kernel.named("scale").entryPoint("scale_v2").java(t -> { }).build();
        assertEquals("scale", k.name());
        assertEquals("scale_v2", k.entryPoint());
    }

    @Test
    void anEntryPointThatIsNoCIdentifierIsRefusedNamingIt() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Kernel.named("scale").entryPoint("2scale"));
        assertEquals("symbol", e.argument());
        assertTrue(e.getMessage().contains("2scale"), e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> Kernel.named("scale").entryPoint(null));
    }

    @Test
    void constPointersAreReadFromTheEntryPointsSignature() {
        Kernel k = Kernel.named("copy").entryPoint("copy_impl")
                .params(KernelParam.pointer("x", DType.F32), KernelParam.pointer("y", DType.F32))
                .cudaSource("extern \"C\" __global__ void copy_impl(const float* x, float* y) { y[0] = x[0]; }")
                .build();
        assertEquals(KernelParam.Access.READ, k.params().get(0).access(), "x is const in copy_impl's signature");
        assertEquals(KernelParam.Access.READ_WRITE, k.params().get(1).access());
    }

    @Test
    void aGeneratedKernelExportsItsNameBehindThePrefixAndKeepsItsName() {
        Kernel k = Kernels.elementwise("fma").input(KernelParam.pointer("x", DType.F32))
                .output(KernelParam.pointer("y", DType.F32)).body("y = fma(x, x, x)").build();
        assertEquals("fma", k.name());
        assertEquals("sluice_fma", k.entryPoint());
        String source = k.cudaSource().orElseThrow();
        assertTrue(source.contains("__global__ void sluice_fma("), source);
        assertFalse(source.contains("void fma("), source);
    }
}
