package dev.sluice.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.FakeDevices;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a backend's updatable graph compares to skip a node's update: the same values, not only the same shape. A step
 * whose memory, offset or bits differ must be updated, or a replay would run the last call's arguments.
 */
class WorkStepTest {

    private static final List<KernelParam> PARAMS = List.of(KernelParam.pointer("v", DType.F32),
            KernelParam.scalar("n", DType.I64));
    private final DeviceMemory a = FakeDevices.memory(64);
    private final DeviceMemory b = FakeDevices.memory(64);
    private final FunctionHandle function = (FunctionHandle) java.lang.reflect.Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {FunctionHandle.class}, (p, m, args) -> null);

    private WorkStep launch(DeviceMemory memory, long offset, long n) {
        LaunchArguments args = new LaunchArguments();
        args.reset(PARAMS);
        args.setPointer(0, memory, offset);
        args.setBits(1, n);
        return new WorkStep.Launch(function, LaunchConfig.of(1, 32), args);
    }

    @Test
    void aLaunchHasTheSameValuesOnlyWithTheSameMemoryOffsetsAndBits() {
        assertTrue(launch(a, 0, 16).sameValues(launch(a, 0, 16)));
        assertFalse(launch(a, 0, 16).sameValues(launch(b, 0, 16)), "other memory");
        assertFalse(launch(a, 0, 16).sameValues(launch(a, 4, 16)), "another offset");
        assertFalse(launch(a, 0, 16).sameValues(launch(a, 0, 17)), "another scalar");
        assertTrue(launch(a, 0, 16).sameShape(launch(b, 4, 17)), "the same shape all the same");
    }

    @Test
    void copiesAndFillsHaveTheSameValuesOnlyWithEveryFieldEqual() {
        WorkStep copy = new WorkStep.Copy(a, 0, b, 8, 32);
        assertTrue(copy.sameValues(new WorkStep.Copy(a, 0, b, 8, 32)));
        assertFalse(copy.sameValues(new WorkStep.Copy(b, 0, b, 8, 32)), "another source");
        assertFalse(copy.sameValues(new WorkStep.Copy(a, 0, b, 16, 32)), "another destination offset");
        WorkStep fill = new WorkStep.Fill(a, 0, 16, 4, 7);
        assertTrue(fill.sameValues(new WorkStep.Fill(a, 0, 16, 4, 7)));
        assertFalse(fill.sameValues(new WorkStep.Fill(a, 0, 16, 4, 8)), "another value");
        assertFalse(fill.sameValues(new WorkStep.Fill(b, 0, 16, 4, 7)), "other memory");
        assertFalse(fill.sameValues(copy), "another kind");
    }

    @Test
    void uploadsAndDownloadsHaveTheSameValuesOnlyWithTheSameHostAddressMemoryAndOffset() {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment host = arena.allocate(64);
            WorkStep up = new WorkStep.Upload(host.asSlice(0, 32), a, 8, 32);
            assertTrue(up.sameValues(new WorkStep.Upload(host.asSlice(0, 32), a, 8, 32)), "another view of the same bytes");
            assertFalse(up.sameValues(new WorkStep.Upload(host.asSlice(8, 32), a, 8, 32)), "another host address");
            assertFalse(up.sameValues(new WorkStep.Upload(host.asSlice(0, 32), b, 8, 32)), "other memory");
            assertTrue(up.sameShape(new WorkStep.Upload(host.asSlice(8, 32), b, 0, 32)));
            WorkStep down = new WorkStep.Download(a, 0, host.asSlice(0, 32), 32);
            assertFalse(up.sameShape(down), "a copy the other way is another shape (a node's direction never changes)");
            assertFalse(down.sameValues(new WorkStep.Download(a, 4, host.asSlice(0, 32), 32)), "another offset");
            assertFalse(down.sameValues(new WorkStep.Download(a, 0, host.asSlice(4, 32), 32)), "another host address");
        }
    }

    /** A chain that counts the nodes it sets, refusing those it is told to. */
    private static final class CountingChain extends dev.sluice.spi.support.NodeChain {
        final List<Integer> set = new java.util.ArrayList<>();
        int refuse = -1;
        boolean unsupported;

        CountingChain(List<WorkStep> steps) {
            super(steps);
        }

        static java.lang.foreign.MemorySegment slots(java.lang.foreign.Arena arena, LaunchArguments a) {
            return argumentSlots(arena, a);
        }

        @Override
        protected void beforeUpdate() {
        }

        @Override
        protected boolean setNode(int index, WorkStep step, java.lang.foreign.Arena arena) {
            if (unsupported) {
                throw new dev.sluice.UnsupportedOnBackendException("no node for " + step);
            }
            set.add(index);
            return index != refuse;
        }

        @Override
        public void launch(StreamHandle stream) {
        }

        @Override
        public void destroy() {
        }
    }

    @Test
    void aKernelNodesArgumentSlotsHoldEachArgumentByValueThePointersAsDeviceAddresses() {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment slots = CountingChain.slots(arena, ((WorkStep.Launch) launch(a, 8, 16))
                    .arguments()).reinterpret(16);
            java.lang.foreign.ValueLayout.OfLong j = java.lang.foreign.ValueLayout.JAVA_LONG;
            long first = slots.get(j, 0);
            long second = slots.get(j, 8);
            org.junit.jupiter.api.Assertions.assertEquals(a.address() + 8,
                    java.lang.foreign.MemorySegment.ofAddress(first).reinterpret(8).get(j, 0), "the pointer, offset");
            org.junit.jupiter.api.Assertions.assertEquals(16,
                    java.lang.foreign.MemorySegment.ofAddress(second).reinterpret(8).get(j, 0), "the scalar's bits");
        }
    }

    @Test
    void aChainUpdatesOnlyTheNodesWhoseValuesChangedAndSaysWhenItCannot() {
        CountingChain c = new CountingChain(List.of(launch(a, 0, 16), launch(a, 0, 16), launch(b, 0, 16)));
        assertTrue(c.update(List.of(launch(a, 0, 16), launch(a, 0, 16), launch(b, 0, 16))));
        assertTrue(c.set.isEmpty(), "the same values: no node set");
        assertTrue(c.update(List.of(launch(a, 0, 16), launch(a, 4, 16), launch(b, 0, 16))));
        org.junit.jupiter.api.Assertions.assertEquals(List.of(1), c.set, "only the node whose offset changed");
        assertTrue(c.update(List.of(launch(a, 0, 16), launch(a, 4, 16), launch(b, 0, 16))), "applied: nothing to set");
        org.junit.jupiter.api.Assertions.assertEquals(List.of(1), c.set);
        c.refuse = 2;
        assertFalse(c.update(List.of(launch(a, 0, 16), launch(a, 4, 16), launch(b, 0, 17))), "the driver refused");
        c.unsupported = true;
        assertFalse(c.update(List.of(launch(b, 0, 16), launch(a, 4, 16), launch(b, 0, 16))), "no node describes it");
    }
}
