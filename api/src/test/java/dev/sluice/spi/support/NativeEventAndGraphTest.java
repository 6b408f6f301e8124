package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ClosedResourceException;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link NativeEvent} and {@link NativeGraph}: calls reach the native side until destroyed, which happens once. */
class NativeEventAndGraphTest {

    private static StreamHandle streamWithHandle(long handle) {
        return (StreamHandle) Proxy.newProxyInstance(StreamHandle.class.getClassLoader(), new Class<?>[] {StreamHandle.class},
                (p, m, a) -> switch (m.getName()) {
                    case "nativeHandle" -> handle;
                    case "toString" -> "stream 0x" + Long.toHexString(handle);
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void eventCallsReachTheNativeSideWithTheirHandles() {
        EventPoolTest.CountingEvents events = new EventPoolTest.CountingEvents();
        NativeEvent a = new NativeEvent(events, 5, () -> { });
        NativeEvent b = new NativeEvent(events, 6, () -> { });
        a.recordOn(100);
        b.waitOn(200);
        assertTrue(a.query());
        a.synchronize();
        assertEquals(1.5f, a.elapsedMillis(b));
        assertEquals(List.of("record 5 on 100", "wait 200 for 6", "query 5", "synchronize 5", "elapsed 5 6"), events.calls);
        assertEquals(5, a.nativeHandle());
    }

    @Test
    void aDestroyedEventIsDestroyedOnceAndRefusesEveryCall() {
        AtomicInteger destroyed = new AtomicInteger();
        NativeEvent e = new NativeEvent(new EventPoolTest.CountingEvents(), 5, destroyed::incrementAndGet);
        e.destroy();
        e.destroy();
        assertEquals(1, destroyed.get());
        assertThrows(ClosedResourceException.class, e::query);
        assertThrows(ClosedResourceException.class, () -> e.recordOn(1));
        assertThrows(ClosedResourceException.class, () -> e.waitOn(1));
        assertThrows(ClosedResourceException.class, e::nativeHandle);
    }

    @Test
    void anEventOfAnotherBackendIsRefused() {
        EventHandle foreign = (EventHandle) Proxy.newProxyInstance(EventHandle.class.getClassLoader(),
                new Class<?>[] {EventHandle.class}, (p, m, a) -> m.getName().equals("toString") ? "CpuEvent" : null);
        NativeEvent e = new NativeEvent(new EventPoolTest.CountingEvents(), 5, () -> { });
        var ex = assertThrows(IllegalArgumentException.class, () -> e.elapsedMillis(foreign));
        assertEquals("event CpuEvent was not created by this backend", ex.getMessage());
    }

    @Test
    void aGraphLaunchesOnTheStreamsNativeHandleUntilDestroyedOnce() {
        List<String> launches = new ArrayList<>();
        AtomicInteger destroyed = new AtomicInteger();
        NativeGraph g = new NativeGraph(0xabc, (exec, stream) -> launches.add(Long.toHexString(exec) + " on " + stream),
                destroyed::incrementAndGet);
        g.launch(streamWithHandle(77));
        g.destroy();
        g.destroy();
        assertEquals(List.of("abc on 77"), launches);
        assertEquals(1, destroyed.get());
        assertThrows(ClosedResourceException.class, () -> g.launch(streamWithHandle(77)));
    }
}
