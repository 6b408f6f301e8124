package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The shared argument checks: host memory of a closed arena, identifiers, null elements. */
class ChecksTest {

    @Test
    void aliveRefusesSegmentsOfClosedArenasNamingTheArgument() {
        for (Arena arena : new Arena[] {Arena.ofShared(), Arena.ofConfined()}) {
            MemorySegment s = arena.allocate(32);
            ByteBuffer view = s.asByteBuffer();
            assertSame(s, Checks.alive("source", s));
            arena.close();
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Checks.alive("source", s));
            assertEquals("source", e.argument());
            assertTrue(e.getMessage().contains("closed") && e.getMessage().contains("32 bytes"), e.getMessage());
            assertEquals("destination", assertThrows(InvalidArgumentException.class,
                    () -> Checks.alive("destination", MemorySegment.ofBuffer(view))).argument());
            // the check every host segment handed to a stream or registered goes through
            assertEquals("segment", assertThrows(InvalidArgumentException.class, () -> Checks.notConfined("segment", s)).argument());
        }
    }

    @Test
    void aliveAcceptsMemoryThatCannotBeClosed() {
        Checks.alive("source", MemorySegment.ofArray(new int[4]));
        Checks.alive("source", MemorySegment.ofBuffer(ByteBuffer.allocateDirect(8)));
        Checks.alive("source", Arena.ofAuto().allocate(8));
        Checks.alive("source", Arena.global().allocate(8));
        assertEquals("source", assertThrows(InvalidArgumentException.class, () -> Checks.alive("source", null)).argument());
    }

    @Test
    void identifiersAreCIdentifiers() {
        for (String good : new String[] {"a", "_", "a1", "A_b_2"}) {
            assertSame(good, Checks.identifier("name", good));
        }
        for (String bad : new String[] {"", "1a", "a b", "a;b", "a-b", "\u00e9", "a\u0000"}) {
            assertEquals("name", assertThrows(InvalidArgumentException.class, () -> Checks.identifier("name", bad)).argument());
        }
    }

    @Test
    void kernelNamesOverTheLimitAreRefusedWhereTheyAreGiven() {
        // Longer names made the kernel language's build fail with an IllegalStateException: the class generated for the
        // kernel is named after it, and a class file holds names of at most 65,535 bytes.
        String longest = "k".repeat(Checks.MAX_KERNEL_NAME);
        Kernel k = dev.sluice.kernel.Kernels.elementwise(longest).input(KernelParam.input("x", DType.F32))
                .output(KernelParam.output("y", DType.F32)).body("y = x;").build();
        assertEquals(longest, k.name());
        String tooLong = "k".repeat(100_000);
        for (org.junit.jupiter.api.function.Executable call : new org.junit.jupiter.api.function.Executable[] {
                () -> Kernel.named(tooLong), () -> dev.sluice.kernel.Kernels.elementwise(tooLong),
                () -> dev.sluice.kernel.Kernels.reduction(tooLong), () -> dev.sluice.kernel.Kernels.fuse(tooLong)}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, call);
            assertEquals("name", e.argument());
            assertTrue(e.getMessage().contains("100000 characters") && e.getMessage().contains("1024"), e.getMessage());
        }
    }

    @Test
    void noNullsNamesTheIndex() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Checks.noNulls("params", new Object[] {1, null}));
        assertEquals("params", e.argument());
        assertTrue(e.getMessage().contains("element 1 of 2"), e.getMessage());
    }
}
