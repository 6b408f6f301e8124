package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Host memory whose arena is already closed (a {@link MemorySegment}, or a {@link ByteBuffer} viewing one) is refused
 * at the call, naming the argument, instead of being read or written after it was freed and faulting the context.
 */
public abstract class AbstractClosedHostMemoryTest extends ConformanceBase {

    private static MemorySegment closedSegment() {
        Arena arena = Arena.ofShared();
        MemorySegment segment = arena.allocate(64, 16);
        arena.close();
        return segment;
    }

    @Test
    void copiesRefuseASegmentOfAClosedArena() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        MemorySegment closed = closedSegment();
        assertInvalid("source", s, () -> s.enqueueCopy(HostData.of(closed), b), "closed");
        assertInvalid("destination", s, () -> s.enqueueCopy(b, HostData.of(closed)), "closed");
        assertInvalid("source", s, () -> s.sync().copy(HostData.of(closed), b), "closed");
        assertFalse(ctx.isFaulted());
    }

    @Test
    void copiesRefuseAByteBufferOfAClosedArena() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        Arena arena = Arena.ofShared();
        ByteBuffer view = arena.allocate(64, 16).asByteBuffer();
        arena.close();
        assertInvalid("source", s, () -> s.enqueueCopy(HostData.of(view), b), "closed");
        assertInvalid("destination", s, () -> s.enqueueCopy(b, HostData.of(view)), "closed");
        assertFalse(ctx.isFaulted());
    }

    @Test
    void registerHostRefusesASegmentOfAClosedArena() {
        MemorySegment closed = closedSegment();
        InvalidArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidArgumentException.class,
                () -> ctx.registerHost(closed, DType.I32));
        org.junit.jupiter.api.Assertions.assertEquals("segment", e.argument());
        assertMentions(e, "closed");
        assertStreamUsable(ctx.stream());
        assertFalse(ctx.isFaulted());
    }
}
