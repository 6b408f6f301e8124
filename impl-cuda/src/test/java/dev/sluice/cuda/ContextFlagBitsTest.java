package dev.sluice.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.ContextFlag;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The mapping between {@link ContextFlag}s and {@code CUctx_flags} bits; runs without a GPU. */
class ContextFlagBitsTest {

    @Test
    void everyFlagSurvivesTheRoundTripThroughTheDriversBits() {
        for (ContextFlag f : ContextFlag.values()) {
            assertEquals(Set.of(f), DriverContext.flags(DriverContext.bits(Set.of(f))), f.name());
        }
        Set<ContextFlag> several = EnumSet.of(ContextFlag.SCHEDULE_BLOCKING_SYNC, ContextFlag.LOCAL_MEMORY_RESIZE_TO_MAX,
                ContextFlag.SYNC_MEMORY_OPERATIONS);
        assertEquals(0x4 | 0x10 | 0x80, DriverContext.bits(several));
        assertEquals(several, DriverContext.flags(DriverContext.bits(several)));
    }

    @Test
    void theSchedulingFieldIsReadAsOneValueAndMapHostIsLeftOut() {
        assertEquals(Set.of(), DriverContext.flags(0x8), "CU_CTX_MAP_HOST, which current drivers always report");
        assertEquals(Set.of(), DriverContext.flags(0x0), "CU_CTX_SCHED_AUTO");
        assertEquals(Set.of(ContextFlag.SCHEDULE_YIELD), DriverContext.flags(0x2 | 0x8));
        assertEquals(Set.of(ContextFlag.SCHEDULE_BLOCKING_SYNC, ContextFlag.COREDUMP_ON_EXCEPTION), DriverContext.flags(0x4 | 0x20));
    }
}
