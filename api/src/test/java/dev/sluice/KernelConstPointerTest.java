package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A pointer the CUDA signature declares {@code const} is a read, for automatic ordering; nothing else changes. */
class KernelConstPointerTest {

    private static List<KernelParam.Access> accesses(String source, KernelParam... params) {
        return Kernel.named("k").params(params).cudaSource(source).build().params().stream().map(KernelParam::access).toList();
    }

    @Test
    void constPointersOfTheSignatureBecomeReads() {
        assertEquals(List.of(KernelParam.Access.READ, KernelParam.Access.READ, KernelParam.Access.READ_WRITE,
                        KernelParam.Access.READ_WRITE, KernelParam.Access.READ_WRITE),
                accesses("""
                        extern "C" __global__ void k(const float* __restrict__ a, float const *b, float* const c,
                                                     double* d, long long n) { }""",
                        KernelParam.pointer("a", DType.F32), KernelParam.pointer("b", DType.F32),
                        KernelParam.pointer("c", DType.F32), KernelParam.pointer("d", DType.F64),
                        KernelParam.scalar("n", DType.I64)));
    }

    @Test
    void anExplicitAccessIsKept() {
        assertEquals(List.of(KernelParam.Access.WRITE),
                accesses("extern \"C\" __global__ void k(const float* a) { }", KernelParam.pointer("a", DType.F32, KernelParam.Access.WRITE)));
    }

    @Test
    void aSourceWithoutTheSignatureChangesNothing() {
        assertEquals(List.of(KernelParam.Access.READ_WRITE),
                accesses("extern \"C\" __global__ void other(const float* a) { }", KernelParam.pointer("a", DType.F32)));
    }
}
