package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HostFlagSlotsTest {

    private static int flag(HostFlagSlots.Slot s) {
        return s.host().get(ValueLayout.JAVA_INT, 0);
    }

    @Test
    void slotsSitACacheLineApartInMappedMemoryClearedToZero() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            HostFlagSlots slots = new HostFlagSlots(mem);
            HostFlagSlots.Slot a = slots.acquire();
            HostFlagSlots.Slot b = slots.acquire();
            assertEquals(HostFlagSlots.SPACING, Math.abs(b.host().address() - a.host().address()));
            assertEquals(a.host().address() + FakePinnedMemory.DEVICE_OFFSET, a.device(), "device address of the same flag");
            assertEquals(0, flag(a));
            assertEquals(1, a.target());
            assertEquals(1, mem.mappedAllocations);
        }
    }

    @Test
    void openWritesTheTargetAndAReusedSlotWaitsForAHigherOne() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            HostFlagSlots slots = new HostFlagSlots(mem);
            HostFlagSlots.Slot a = slots.acquire();
            slots.open(a);
            assertEquals(1, flag(a));
            HostFlagSlots.Slot again = slots.acquire();
            assertEquals(a.index(), again.index(), "the freed slot is taken first");
            assertEquals(2, again.target(), "the counter only grows: an old wait on it still passes");
            assertEquals(1, flag(again), "closed until opened");
        }
    }

    @Test
    void aGateOpensOnceHoweverOftenItIsOpened() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            HostFlagSlots slots = new HostFlagSlots(mem);
            HostFlagSlots.Slot s = slots.acquire();
            HostFlagGate gate = new HostFlagGate(slots, s);
            gate.open();
            gate.open();
            gate.fail(new IllegalStateException("(test)"));
            Set<Integer> taken = new HashSet<>();
            for (int i = 0; i < HostFlagSlots.SLOTS_PER_PAGE; i++) {
                taken.add(slots.acquire().index());
            }
            assertEquals(HostFlagSlots.SLOTS_PER_PAGE, taken.size(), "the slot came back once, not twice");
            assertEquals(1, slots.pages());
        }
    }

    @Test
    void growsByPagesAndDestroyOpensEveryGateThenFreesThePagesOnce() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            HostFlagSlots slots = new HostFlagSlots(mem);
            List<HostFlagSlots.Slot> held = new ArrayList<>();
            for (int i = 0; i <= HostFlagSlots.SLOTS_PER_PAGE; i++) {
                held.add(slots.acquire());
            }
            assertEquals(2, slots.pages());
            slots.destroy();
            slots.destroy();
            assertEquals(2, mem.frees);
            assertEquals(0, mem.live());
            assertThrows(IllegalStateException.class, slots::acquire);
        }
    }

    @Test
    void aPageWhoseMappingFailsIsFreed() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            HostFlagSlots slots = new HostFlagSlots(mem);
            mem.failMapping = true;
            assertThrows(IllegalStateException.class, slots::acquire);
            assertEquals(0, mem.live());
            slots.acquire();
            assertEquals(1, slots.pages());
        }
    }

    @Test
    void destroyReleasesWaitersBeforeFreeing() {
        try (FakePinnedMemory mem = new FakePinnedMemory()) {
            List<Integer> seenAtFree = new ArrayList<>();
            HostFlagSlots[] holder = new HostFlagSlots[1];
            HostFlagSlots.Slot[] slot = new HostFlagSlots.Slot[1];
            PinnedMemory watching = new PinnedMemory() {
                @Override
                public long allocate(long bytes, boolean mapped) {
                    return mem.allocate(bytes, mapped);
                }

                @Override
                public long devicePointer(long host) {
                    return mem.devicePointer(host);
                }

                @Override
                public void free(long host) {
                    seenAtFree.add(flag(slot[0]));
                    mem.free(host);
                }
            };
            holder[0] = new HostFlagSlots(watching);
            slot[0] = holder[0].acquire();
            holder[0].destroy();
            assertEquals(List.of(Integer.MAX_VALUE), seenAtFree, "a stream still waiting passes before the memory goes");
        }
    }
}
