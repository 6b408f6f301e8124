package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import dev.sluice.testing.ExpectWarning;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The host-node callback called as a driver calls it: through its native address, with a key as {@code userData}. */
class HostNodesTest {

    /** Calls the native callback as a driver would. */
    private static void callAsTheDriver(long userData) throws Throwable {
        MemorySegment callback = HostNodes.callback((target, type) -> Linker.nativeLinker().upcallStub(target, type, Arena.global()));
        MethodHandle h = Linker.nativeLinker().downcallHandle(callback, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        h.invokeExact(MemorySegment.ofAddress(userData));
    }

    @Test
    void theCallbackRunsTheStepOfItsKeyEachTimeItIsCalled() throws Throwable {
        HostNodes nodes = new HostNodes();
        AtomicInteger a = new AtomicInteger();
        AtomicInteger b = new AtomicInteger();
        long ka = nodes.add(a::incrementAndGet);
        long kb = nodes.add(b::incrementAndGet);
        callAsTheDriver(ka);
        callAsTheDriver(ka);
        callAsTheDriver(kb);
        assertEquals(2, a.get());
        assertEquals(1, b.get());
        nodes.removeAll();
    }

    @Test
    void aRemovedKeyRunsNothing() throws Throwable {
        HostNodes nodes = new HostNodes();
        AtomicInteger a = new AtomicInteger();
        AtomicInteger b = new AtomicInteger();
        long ka = nodes.add(a::incrementAndGet);
        long kb = nodes.add(b::incrementAndGet);
        nodes.remove(List.of(ka));
        callAsTheDriver(ka);
        callAsTheDriver(kb);
        nodes.removeAll();
        callAsTheDriver(kb);
        callAsTheDriver(0); // a null userData names no step
        assertEquals(0, a.get());
        assertEquals(1, b.get());
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.spi.support.HostNodes", containing = "a host step of a graph threw") // at ERROR
    void aStepThatThrowsDoesNotCrossIntoTheDriver() throws Throwable {
        HostNodes nodes = new HostNodes();
        AtomicInteger after = new AtomicInteger();
        long k = nodes.add(() -> {
            throw new IllegalStateException("thrown by a step");
        });
        callAsTheDriver(k); // an exception crossing an upcall would end the JVM
        long k2 = nodes.add(after::incrementAndGet);
        callAsTheDriver(k2);
        assertEquals(1, after.get());
        nodes.removeAll();
    }
}
