package dev.sluice;

import static dev.sluice.testing.Attacks.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The code a kernel is built from is refused at the builder's call, naming the argument, where it cannot be code: blank
 * source or text and empty images were accepted and failed, if at all, only when a backend compiled or loaded them.
 */
class KernelCodeInputTest {

    @Test
    void blankSourceAndEmptyImagesAreRefused() {
        assertRefused("source", () -> Kernel.named("k").cudaSource(""), "blank");
        assertRefused("source", () -> Kernel.named("k").cudaSource(" \n\t"), "blank");
        assertRefused("text", () -> Kernel.named("k").ptx("  "), "blank");
        assertRefused("image", () -> Kernel.named("k").ptx(new byte[0]), "empty", "0 bytes");
        assertRefused("image", () -> Kernel.named("k").cubin(new byte[0]), "empty");
        assertRefused("image", () -> Kernel.named("k").fatbin(new byte[0]), "empty");
        assertRefused("image", () -> Kernel.named("k").hipCodeObject(new byte[0]), "empty");
    }

    @Test
    void nonEmptyCodeIsKept() {
        Kernel k = Kernel.named("k").cudaSource("extern \"C\" __global__ void k() {}").ptx(".version 8.0")
                .cubin(new byte[] {1}).fatbin(new byte[] {2}).hipCodeObject(new byte[] {3}).build();
        assertEquals(1, k.cubin().orElseThrow().length);
        assertEquals(".version 8.0".length(), k.ptx().orElseThrow().length);
    }
}
