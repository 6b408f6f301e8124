package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.ClosedResourceException;
import dev.sluice.ComputeCapability;
import dev.sluice.ContextFlag;
import dev.sluice.ContextOptions;
import dev.sluice.DeviceAttribute;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceStream;
import dev.sluice.Limit;
import dev.sluice.MemoryInfo;
import dev.sluice.PriorityRange;
import dev.sluice.StreamOptions;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.WaitStrategy;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What a context reports about its device, and the ways to open one. */
public abstract class AbstractDeviceInfoTest extends ConformanceBase {

    @Test
    void contextReportsItsDevice() {
        assertFalse(ctx.name().isBlank(), "name");
        assertEquals(target().backendName(), ctx.backendName());
        assertEquals(0, ctx.id());
        assertFalse(ctx.driverVersion().isBlank(), "driverVersion");
        ComputeCapability cc = ctx.computeCapability();
        assertNotNull(cc);
        assertTrue(cc.major() >= 0 && cc.minor() >= 0, cc.toString());
        assertTrue(ctx.toString().contains(ctx.backendName()), ctx.toString());
        assertFalse(ctx.isClosed());
        assertFalse(ctx.isFaulted());
    }

    @Test
    void launchLimitAttributesArePositive() {
        assertTrue(ctx.attribute(DeviceAttribute.MAX_THREADS_PER_BLOCK) > 0);
        for (DeviceAttribute a : new DeviceAttribute[] {DeviceAttribute.MAX_BLOCK_DIM_X, DeviceAttribute.MAX_BLOCK_DIM_Y,
                DeviceAttribute.MAX_BLOCK_DIM_Z, DeviceAttribute.MAX_GRID_DIM_X, DeviceAttribute.MAX_GRID_DIM_Y,
                DeviceAttribute.MAX_GRID_DIM_Z, DeviceAttribute.MAX_SHARED_MEMORY_PER_BLOCK, DeviceAttribute.WARP_SIZE,
                DeviceAttribute.MULTIPROCESSOR_COUNT}) {
            assertTrue(ctx.attribute(a) > 0, a + " = " + ctx.attribute(a));
        }
        assertTrue(ctx.attribute(DeviceAttribute.MAX_BLOCK_DIM_X) <= ctx.attribute(DeviceAttribute.MAX_THREADS_PER_BLOCK));
    }

    @ParameterizedTest
    @EnumSource(DeviceAttribute.class)
    void everyAttributeIsReportedOrRefusedClearly(DeviceAttribute a) {
        try {
            long v = ctx.attribute(a);
            assertTrue(v >= 0 || a == DeviceAttribute.COMPUTE_MODE, a + " = " + v);
        } catch (UnsupportedOnBackendException e) {
            assertTrue(e.getMessage().contains(a.name()), "the refusal names the attribute: " + e.getMessage());
        }
    }

    @Test
    void aContextOfItsOwnTakesContextFlags() {
        ContextOptions o = ContextOptions.defaults().withPrimaryContext(false)
                .withContextFlags(ContextFlag.SCHEDULE_BLOCKING_SYNC, ContextFlag.LOCAL_MEMORY_RESIZE_TO_MAX);
        if (!target().takesContextFlags()) {
            UnsupportedOnBackendException e = assertThrows(UnsupportedOnBackendException.class, () -> open(o));
            assertMentions(e, "context flags", "SCHEDULE_BLOCKING_SYNC");
            return;
        }
        DeviceContext c = open(o);
        assertEquals(EnumSet.of(ContextFlag.SCHEDULE_BLOCKING_SYNC, ContextFlag.LOCAL_MEMORY_RESIZE_TO_MAX), c.contextFlags());
        assertStreamUsable(c.stream());
        assertTrue(ctx.contextFlags().stream().filter(f -> f.name().startsWith("SCHEDULE_")).count() <= 1,
                "the default context reports at most one scheduling flag: " + ctx.contextFlags());
    }

    @Test
    void nativeHandlesAreSharedOrRefusedClearly() {
        DeviceStream a = ctx.createStream();
        DeviceStream b = ctx.createStream();
        DeviceEvent e = ctx.createEvent();
        if (target().api() == Api.CPU) {
            assertMentions(assertThrows(UnsupportedOnBackendException.class, a::nativeHandle), "native stream handles");
            assertMentions(assertThrows(UnsupportedOnBackendException.class, e::nativeHandle), "native event handles");
            assertMentions(assertThrows(UnsupportedOnBackendException.class, ctx::nativeHandle), "native context handles");
            return;
        }
        assertNotEquals(0L, a.nativeHandle());
        assertEquals(a.nativeHandle(), a.nativeHandle(), "one stream, one handle");
        assertNotEquals(a.nativeHandle(), b.nativeHandle(), "two streams, two handles");
        assertNotEquals(0L, ctx.stream().nativeHandle(), "the default stream is a stream of its own");
        assertNotEquals(0L, e.nativeHandle());
        if (target().api() == Api.HIP) {
            assertMentions(assertThrows(UnsupportedOnBackendException.class, ctx::nativeHandle), "context handle");
        } else {
            assertNotEquals(0L, ctx.nativeHandle());
        }
        a.close();
        assertThrows(ClosedResourceException.class, a::nativeHandle);
        e.close();
        assertThrows(ClosedResourceException.class, e::nativeHandle);
    }

    @Test
    void profilerStartAndStopDoNothingWithoutAProfiler() {
        ctx.profilerStart();
        assertStreamUsable(ctx.stream());
        ctx.profilerStop();
        ctx.profilerStop(); // stopping twice is harmless
        assertStreamUsable(ctx.stream());
    }

    @Test
    void memoryInfoIsConsistent() {
        MemoryInfo m = ctx.memoryInfo();
        assertTrue(m.total() > 0, "total " + m.total());
        assertTrue(m.free() >= 0 && m.free() <= m.total(), "free " + m.free() + " of " + m.total());
    }

    @Test
    void streamPriorityRangeIsUsable() {
        PriorityRange r = ctx.streamPriorityRange();
        assertTrue(r.greatest() <= r.least(), r.toString());
        assertTrue(r.contains(0), "0, the default priority, lies in " + r);
        try (DeviceStream hi = ctx.createStream(StreamOptions.defaults().withPriority(r.greatest()));
                DeviceStream lo = ctx.createStream(StreamOptions.defaults().withPriority(r.least()))) {
            assertEquals(r.greatest(), hi.priority());
            assertEquals(r.least(), lo.priority());
            assertStreamUsable(hi);
            assertStreamUsable(lo);
        }
    }

    @Test
    void defaultStreamBelongsToTheContextAndOutlivesClose() {
        DeviceStream d = ctx.stream();
        assertTrue(d.isDefault());
        assertSame(ctx, d.context());
        assertSame(d, ctx.stream());
        d.close(); // a no-op on the default stream
        assertFalse(d.isClosed());
        assertStreamUsable(d);
        DeviceStream s = ctx.createStream();
        assertFalse(s.isDefault());
        assertSame(ctx, s.context());
    }

    @Test
    void detectMentionsTheBackend() {
        String d = DeviceContext.detect();
        assertTrue(d.contains(target().backendName()), d);
        assertTrue(DeviceContext.deviceCount(target().backendName()) >= 1);
        if (target().api() != Api.CPU) {
            assertTrue(DeviceContext.hasAccelerator(), "a GPU backend with a device means hasAccelerator()");
        }
    }

    @Test
    void limitsAreReadableOrRefusedClearly() {
        for (Limit l : Limit.values()) {
            try {
                long v = ctx.limit(l);
                assertTrue(v >= 0, l + " = " + v);
            } catch (UnsupportedOnBackendException e) {
                assertTrue(e.getMessage().contains(l.name()), "the refusal names the limit: " + e.getMessage());
            }
        }
    }

    @Test
    void stackSizeLimitCanBeSetWhereSupported() {
        long before;
        try {
            before = ctx.limit(Limit.STACK_SIZE);
        } catch (UnsupportedOnBackendException e) {
            org.junit.jupiter.api.Assumptions.abort("limit STACK_SIZE is not supported: " + e.getMessage());
            return;
        }
        ctx.setLimit(Limit.STACK_SIZE, before + 1024);
        assertTrue(ctx.limit(Limit.STACK_SIZE) >= before + 1024);
        ctx.setLimit(Limit.STACK_SIZE, before);
    }

    @Test
    void contextCanAccessItselfAndReportsPeers() {
        assertTrue(ctx.canAccess(ctx));
        DeviceContext other = open(ContextOptions.defaults());
        ctx.canAccess(other); // must answer, whatever the topology
    }

    @ParameterizedTest
    @EnumSource(WaitStrategy.class)
    void everyWaitStrategyCompletesFutures(WaitStrategy w) {
        DeviceContext c = open(ContextOptions.defaults().withWaitStrategy(w));
        assertEquals(w, c.options().waitStrategy());
        assertStreamUsable(c.createStream());
        assertStreamUsable(c.stream());
    }

    @Test
    void openByNameFindsTheSameBackend() {
        DeviceContext c = closeLater(DeviceContext.open(" " + target().backendName().toUpperCase(java.util.Locale.ROOT) + " ", 0));
        assertEquals(target().backendName(), c.backendName());
        assertTrue(DeviceContext.backendNames().contains(target().backendName()), DeviceContext.backendNames().toString());
    }
}
