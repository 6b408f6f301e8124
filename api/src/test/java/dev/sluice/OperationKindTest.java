package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The operation kinds: their trace names are the trace's kinds, their categories what listeners heard as strings. */
class OperationKindTest {

    @Test
    void traceNamesAreTheTraceSpanKindsAndReadBack() {
        assertEquals(TraceSpan.UPLOAD, OperationKind.UPLOAD.traceName());
        assertEquals(TraceSpan.DOWNLOAD, OperationKind.DOWNLOAD.traceName());
        assertEquals(TraceSpan.DEVICE_TO_DEVICE, OperationKind.DEVICE_TO_DEVICE.traceName());
        assertEquals(TraceSpan.PEER, OperationKind.PEER.traceName());
        assertEquals(TraceSpan.PEER_STAGED, OperationKind.PEER_STAGED.traceName());
        assertEquals(TraceSpan.MEMSET, OperationKind.MEMSET.traceName());
        assertEquals(TraceSpan.KERNEL, OperationKind.KERNEL.traceName());
        assertEquals(TraceSpan.RECORD, OperationKind.RECORD.traceName());
        assertEquals(TraceSpan.WAIT, OperationKind.WAIT.traceName());
        assertEquals(TraceSpan.HOST, OperationKind.HOST.traceName());
        assertEquals(TraceSpan.MARKER, OperationKind.MARKER.traceName());
        assertEquals(TraceSpan.ALLOC, OperationKind.ALLOC.traceName());
        assertEquals(TraceSpan.FREE, OperationKind.FREE.traceName());
        assertEquals(TraceSpan.GRAPH, OperationKind.GRAPH.traceName());
        assertEquals(TraceSpan.REPLAY, OperationKind.REPLAY.traceName());
        assertEquals(TraceSpan.REPLAY_BUILT, OperationKind.REPLAY_BUILT.traceName());
        for (OperationKind k : OperationKind.values()) {
            assertEquals(k, OperationKind.ofTraceKind(k.traceName()));
        }
        assertEquals(OperationKind.KERNEL, OperationKind.ofTraceKind("kernel scale"));
        assertEquals(OperationKind.KERNEL, new TraceSpan("default", "kernel scale", null, 0, 1).operationKind());
    }

    @Test
    void categoriesAreTheSpansCategoriesAndOnlyCopiesMoveBytes() {
        for (OperationKind k : OperationKind.values()) {
            String category = new TraceSpan("default", k == OperationKind.KERNEL ? "kernel k" : k.traceName(), null, 0, 1)
                    .category();
            assertEquals(k == OperationKind.REPLAY_BUILT ? "replay" : category, k.category(), k.toString());
        }
        Set<OperationKind> copies = EnumSet.of(OperationKind.UPLOAD, OperationKind.DOWNLOAD, OperationKind.DEVICE_TO_DEVICE,
                OperationKind.PEER, OperationKind.PEER_STAGED);
        for (OperationKind k : OperationKind.values()) {
            assertEquals(copies.contains(k), k.isCopy(), k.toString());
        }
        assertTrue(OperationKind.UPLOAD.isCopy());
        assertFalse(OperationKind.KERNEL.isCopy());
    }

    @Test
    void anUnknownTraceKindIsRefusedNamingIt() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> OperationKind.ofTraceKind("teleport"));
        assertEquals("traceKind", e.argument());
        assertTrue(e.getMessage().contains("teleport"), e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> OperationKind.ofTraceKind(null));
    }
}
