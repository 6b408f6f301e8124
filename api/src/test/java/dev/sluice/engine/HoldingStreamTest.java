package dev.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.ClosedResourceException;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.FakeDevices;
import dev.sluice.HostWaits;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.WorkStep;
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
    /** The held event records of the test's one "context". */
    private final HoldingStream.HeldRecords records = new HoldingStream.HeldRecords();
    /** The fake backend's marker: done, but a backend's own, which {@link Marker#DONE} is not (waits skip that one). */
    private final Marker doneMarker = FakeDevices.marker(() -> true);

    /** A backend stream that records every call, throws for {@code refused}, and returns done markers. */
    private StreamHandle device(String refused) {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> {
                    String name = dev.sluice.FakeDevices.callName(method, args);
                    calls.add(name);
                    if (name.equals(refused)) {
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
        return new HoldingStream(device(refused), NO_CONTEXT, HostWaits.HOLD_ON_HOST, "test stream", records);
    }

    @Test
    void withoutAWaitEveryCallGoesStraightToTheBackend() {
        HoldingStream s = holding("");
        s.enqueue(new WorkStep.Fill(null, 0, 1, 4, 0));
        Marker m = s.recordMarker();
        assertSame(doneMarker, m, "not holding: the backend's own marker");
        assertEquals(List.of("fill", "recordMarker"), calls);
    }

    @Test
    void workAfterAGateWaitsForItThenGoesInOrder() {
        HoldingStream s = holding("");
        HostGate gate = s.enqueueHostGate();
        s.enqueue(new WorkStep.Fill(null, 0, 1, 4, 0));
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
        s.enqueue(new WorkStep.Fill(null, 0, 1, 4, 0));
        HoldingStream.HeldMarker refused = (HoldingStream.HeldMarker) s.recordMarker();
        s.enqueue(new WorkStep.Copy(null, 0, null, 0, 4));
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
        assertTrue(records.isHeld(EVENT), "the event's record is held");
        HoldingStream.HeldMarker m = (HoldingStream.HeldMarker) s.recordMarker();
        s.destroy();
        assertTrue(m.isSubmitted(), "nobody waits for it forever");
        assertInstanceOf(ClosedResourceException.class, m.failure());
        assertFalse(records.isHeld(EVENT), "queries of the event no longer wait for the dropped record");
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

    // ---------------------------------------------------------------- records of one event on two streams

    /** What reached the backends, with events by name: "a:record(E)", "c:waitEvent(S1)", "destroy(S1)". */
    private final List<String> log = new ArrayList<>();
    private final java.util.Map<Object, String> names = new java.util.IdentityHashMap<>();

    private String nameOf(Object event) {
        return names.computeIfAbsent(event, e -> "S" + names.size()); // E is named first, below
    }

    private final ContextHandle eventContext = (ContextHandle) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {ContextHandle.class}, (proxy, method, args) -> {
                if (!method.getName().equals("createEvent")) {
                    throw new AssertionError("not used here: " + method.getName());
                }
                EventHandle[] self = new EventHandle[1];
                self[0] = (EventHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {EventHandle.class},
                        (p, m, a) -> switch (m.getName()) {
                            case "hashCode" -> System.identityHashCode(p);
                            case "equals" -> p == a[0];
                            case "destroy" -> {
                                log.add("destroy(" + nameOf(self[0]) + ")");
                                yield null;
                            }
                            default -> null;
                        });
                nameOf(self[0]);
                return self[0];
            });

    private HoldingStream logging(String stream) {
        names.putIfAbsent(EVENT, "E");
        StreamHandle device = (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> {
                    String arg = args != null && args.length == 1 && args[0] instanceof EventHandle e ? nameOf(e) : "";
                    log.add(stream + ":" + dev.sluice.FakeDevices.callName(method, args) + "(" + arg + ")");
                    return method.getName().equals("recordMarker") ? doneMarker : null;
                });
        return new HoldingStream(device, eventContext, HostWaits.HOLD_ON_HOST, stream, records);
    }

    @Test
    void aLaterRecordOnAnotherStreamOvertakesAHeldOne() {
        HoldingStream a = logging("a");
        HoldingStream b = logging("b");
        HostGate gate = a.enqueueHostGate();
        a.record(EVENT); // held
        b.record(EVENT); // later by call: the event's last record
        assertFalse(records.isHeld(EVENT), "queries of the event see b's record, which is on the device");
        gate.open();
        assertEquals(List.of("b:record(E)"), log, "a's earlier record does not move the event past b's");
    }

    @Test
    void aWaitCapturedOnAHeldRecordWaitsForThatRecordsWorkWhateverComesLater() {
        HoldingStream a = logging("a");
        HoldingStream b = logging("b");
        HoldingStream c = logging("c");
        HostGate gate = a.enqueueHostGate();
        a.record(EVENT);
        c.waitEvent(EVENT); // waits for a's record: held on the host until it is submitted
        b.record(EVENT); // overtakes a's record, but not c's wait
        c.enqueue(new WorkStep.Fill(null, 0, 1, 4, 0));
        assertEquals(List.of("b:record(E)"), log);
        gate.open();
        assertEquals(List.of("b:record(E)", "a:record(S1)", "c:waitEvent(S1)", "destroy(S1)", "c:fill()"), log,
                "a writes the stand-in its waiter waits on; the stand-in goes once the wait is on the device");
    }

    @Test
    void withoutALaterRecordAHeldRecordWritesBothTheEventAndTheStandIn() {
        HoldingStream a = logging("a");
        HoldingStream c = logging("c");
        HostGate gate = a.enqueueHostGate();
        a.record(EVENT);
        c.waitEvent(EVENT);
        assertTrue(records.isHeld(EVENT));
        gate.open();
        assertEquals(List.of("a:record(E)", "a:record(S1)", "c:waitEvent(S1)", "destroy(S1)"), log);
        assertFalse(records.isHeld(EVENT));
        c.waitEvent(EVENT); // the record is on the device now: a plain wait on the event
        assertEquals("c:waitEvent(E)", log.get(log.size() - 1));
    }

    @Test
    void aWaiterDestroyedBeforeItsWaitReachedTheDeviceReleasesTheStandIn() {
        HoldingStream a = logging("a");
        HoldingStream c = logging("c");
        HostGate gate = a.enqueueHostGate();
        a.record(EVENT);
        c.waitEvent(EVENT);
        c.destroy();
        gate.open();
        assertEquals(List.of("c:destroy()", "a:record(E)", "a:record(S1)", "destroy(S1)"), log);
    }

    @Test
    void aStreamWaitingForAnotherStreamsHeldWorkIsHeldUntilItIsSubmitted() {
        HoldingStream a = holding("");
        HoldingStream b = holding("");
        HostGate gate = a.enqueueHostGate();
        Marker aWork = a.recordMarker();
        b.waitMarker(aWork);
        b.enqueue(new WorkStep.Fill(null, 0, 1, 4, 0));
        assertTrue(calls.isEmpty(), "b waits, on the host, for a's held work: " + calls);
        gate.open();
        assertEquals(List.of("recordMarker", "waitMarker", "fill"), calls, "a's marker, then b's wait on it and b's work");
    }
}
