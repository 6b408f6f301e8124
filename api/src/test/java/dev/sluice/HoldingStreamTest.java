package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@link HoldingStream} promises beyond what the conformance suite can reach through the public API: a held
 * operation the backend refuses fails only that operation's future, destroying drops held work without leaving
 * markers or event records pending forever, and capture is refused while holding. The backend is a recording fake.
 */
class HoldingStreamTest {

    /** The calls that reached the fake backend stream, by method name. */
    private final List<String> calls = new ArrayList<>();
    private final Marker doneMarker = new Marker() {
        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public boolean awaitDone(long timeoutNanos) {
            return true;
        }

        @Override
        public void release() {
        }
    };

    /** A backend stream that records every call, throws for {@code refused}, and returns done markers. */
    private StreamHandle device(String refused) {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> {
                    calls.add(method.getName());
                    if (method.getName().equals(refused)) {
                        throw new UnsupportedOnBackendException("refused by the test's backend", null);
                    }
                    return method.getName().equals("recordMarker") ? doneMarker : null;
                });
    }

    private static final ContextHandle NO_CONTEXT = (ContextHandle) Proxy.newProxyInstance(
            HoldingStreamTest.class.getClassLoader(), new Class<?>[] {ContextHandle.class}, (proxy, method, args) -> {
                throw new AssertionError("the context is not used here: " + method.getName());
            });

    private static final EventHandle EVENT = (EventHandle) Proxy.newProxyInstance(
            HoldingStreamTest.class.getClassLoader(), new Class<?>[] {EventHandle.class}, (proxy, method, args) ->
                    method.getName().equals("hashCode") ? 42 : method.getName().equals("equals") ? proxy == args[0] : null);

    private HoldingStream holding(String refused) {
        return new HoldingStream(device(refused), NO_CONTEXT, HostWaits.HOLD_ON_HOST, "test stream");
    }

    @Test
    void withoutAWaitEveryCallGoesStraightToTheBackend() {
        HoldingStream s = holding("");
        s.fill(null, 0, 1, 4, 0);
        Marker m = s.recordMarker();
        assertSame(doneMarker, m, "not holding: the backend's own marker");
        assertEquals(List.of("fill", "recordMarker"), calls);
    }

    @Test
    void workAfterAGateWaitsForItThenGoesInOrder() {
        HoldingStream s = holding("");
        HostGate gate = s.enqueueHostGate();
        s.fill(null, 0, 1, 4, 0);
        Marker m = s.recordMarker();
        assertInstanceOf(HoldingStream.HeldMarker.class, m);
        assertTrue(calls.isEmpty(), "nothing reaches the backend before the gate opens: " + calls);
        assertFalse(m.isDone());
        gate.open();
        assertEquals(List.of("fill", "recordMarker"), calls);
        assertTrue(m.isDone());
    }

    @Test
    void aHeldOperationTheBackendRefusesFailsOnlyItsOwnFuture() {
        HoldingStream s = holding("fill");
        HostGate gate = s.enqueueHostGate();
        s.fill(null, 0, 1, 4, 0);
        HoldingStream.HeldMarker refused = (HoldingStream.HeldMarker) s.recordMarker();
        s.copyDeviceToDevice(null, 0, null, 0, 4);
        HoldingStream.HeldMarker next = (HoldingStream.HeldMarker) s.recordMarker();
        gate.open();
        assertInstanceOf(UnsupportedOnBackendException.class, refused.failure(), "the refused fill's future fails");
        assertNull(next.failure(), "the operation after it is not blamed");
        assertEquals(List.of("fill", "recordMarker", "copyDeviceToDevice", "recordMarker"), calls,
                "the stream goes on after the refused operation");
    }

    @Test
    void destroyingDropsHeldWorkAndSettlesItsMarkersAndRecords() {
        HoldingStream s = holding("");
        s.enqueueHostGate(); // never opened
        s.record(EVENT);
        assertTrue(HoldingStream.recordHeld(EVENT), "the event's record is held");
        HoldingStream.HeldMarker m = (HoldingStream.HeldMarker) s.recordMarker();
        s.destroy();
        assertTrue(m.isSubmitted(), "nobody waits for it forever");
        assertInstanceOf(ClosedResourceException.class, m.failure());
        assertFalse(HoldingStream.recordHeld(EVENT), "queries of the event no longer wait for the dropped record");
        assertEquals(List.of("destroy"), calls, "nothing held reached the backend");
    }

    @Test
    void captureIsRefusedWhileTheStreamWaitsForTheHost() {
        HoldingStream s = holding("");
        HostGate gate = s.enqueueHostGate();
        IllegalStateException e = assertThrows(IllegalStateException.class, s::beginCapture);
        assertTrue(e.getMessage().contains("waiting for the host"), e.getMessage());
        gate.open();
        s.beginCapture();
        assertEquals(List.of("beginCapture"), calls);
    }

    @Test
    void aStreamWaitingForAnotherStreamsHeldWorkIsHeldUntilItIsSubmitted() {
        HoldingStream a = holding("");
        HoldingStream b = holding("");
        HostGate gate = a.enqueueHostGate();
        Marker aWork = a.recordMarker();
        b.waitMarker(aWork);
        b.fill(null, 0, 1, 4, 0);
        assertTrue(calls.isEmpty(), "b waits, on the host, for a's held work: " + calls);
        gate.open();
        assertEquals(List.of("recordMarker", "waitMarker", "fill"), calls, "a's marker, then b's wait on it and b's work");
    }
}
