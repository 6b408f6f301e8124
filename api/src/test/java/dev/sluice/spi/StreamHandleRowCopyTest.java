package dev.sluice.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The 2-D copies' defaults of {@link StreamHandle}, which backends without a native pitched copy (and CUDA and HIP for
 * memory they stage) rely on: one 1-D copy per row, at the row's offset on each side, so the bytes between rows stay
 * as they were. Checked on a stream whose 1-D copies copy at once and are counted.
 */
class StreamHandleRowCopyTest {

    /** Device memory over a segment: its address is the segment's, as on a GPU backend. */
    private record Memory(MemorySegment segment) implements DeviceMemory {
        @Override
        public long byteSize() {
            return segment.byteSize();
        }

        @Override
        public long address() {
            return segment.address();
        }
    }

    private final Arena arena = Arena.ofAuto();
    private final List<String> calls = new ArrayList<>();

    /** A stream with only the 1-D copies and the 2-D defaults; anything else fails the test. */
    private StreamHandle stream() {
        InvocationHandler h = (proxy, method, args) -> {
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            calls.add(method.getName());
            switch (method.getName()) {
                case "copyHostToDevice" -> MemorySegment.copy((MemorySegment) args[0], 0, ((Memory) args[1]).segment(),
                        (long) args[2], (long) args[3]);
                case "copyDeviceToHost" -> MemorySegment.copy(((Memory) args[0]).segment(), (long) args[1],
                        (MemorySegment) args[2], 0, (long) args[3]);
                case "copyDeviceToDevice" -> MemorySegment.copy(((Memory) args[0]).segment(), (long) args[1],
                        ((Memory) args[2]).segment(), (long) args[3], (long) args[4]);
                default -> throw new AssertionError("unexpected " + method);
            }
            return null;
        };
        return (StreamHandle) Proxy.newProxyInstance(StreamHandle.class.getClassLoader(), new Class<?>[] {StreamHandle.class}, h);
    }

    private MemorySegment filled(int bytes, int salt) {
        MemorySegment s = arena.allocate(bytes);
        for (int i = 0; i < bytes; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + salt));
        }
        return s;
    }

    /** {@code destination} with 3 rows of 5 bytes from {@code source} (pitch 11, from 2) put at 4 (pitch 8). */
    private static byte[] expected(MemorySegment source, MemorySegment destination) {
        byte[] out = destination.toArray(ValueLayout.JAVA_BYTE);
        byte[] in = source.toArray(ValueLayout.JAVA_BYTE);
        for (int r = 0; r < 3; r++) {
            System.arraycopy(in, 2 + r * 11, out, 4 + r * 8, 5);
        }
        return out;
    }

    @Test
    void hostToDeviceCopiesRowByRowAtEachPitch() {
        MemorySegment host = filled(40, 1);
        MemorySegment device = filled(30, 2);
        byte[] want = expected(host, device);
        stream().copyHostToDevice2D(host.asSlice(2), 11, new Memory(device), 4, 8, 5, 3);
        assertArrayEquals(want, device.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(List.of("copyHostToDevice", "copyHostToDevice", "copyHostToDevice"), calls);
    }

    @Test
    void deviceToHostCopiesRowByRowAtEachPitch() {
        MemorySegment device = filled(40, 3);
        MemorySegment host = filled(30, 4);
        byte[] want = expected(device, host);
        stream().copyDeviceToHost2D(new Memory(device), 2, 11, host.asSlice(4), 8, 5, 3);
        assertArrayEquals(want, host.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(3, calls.size());
    }

    @Test
    void deviceToDeviceCopiesRowByRowAtEachPitch() {
        MemorySegment source = filled(40, 5);
        MemorySegment destination = filled(30, 6);
        byte[] want = expected(source, destination);
        stream().copyDeviceToDevice2D(new Memory(source), 2, 11, new Memory(destination), 4, 8, 5, 3);
        assertArrayEquals(want, destination.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(List.of("copyDeviceToDevice", "copyDeviceToDevice", "copyDeviceToDevice"), calls);
    }
}
