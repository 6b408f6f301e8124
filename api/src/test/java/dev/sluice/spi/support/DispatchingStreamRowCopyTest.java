package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.LaunchConfig;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.Marker;
import dev.sluice.spi.WorkStep;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The 2-D copies' defaults of {@link DispatchingStream}, which backends without a native pitched copy (and CUDA and HIP
 * for memory they stage) rely on: one 1-D copy per row, at the row's offset on each side, so the bytes between rows stay
 * as they were. Checked through {@link DispatchingStream#enqueue} on a stream whose 1-D copies copy at once and are
 * counted.
 */
class DispatchingStreamRowCopyTest {

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
    private final class RowStream extends DispatchingStream {
        @Override
        protected void copyHostToDevice(MemorySegment source, DeviceMemory destination, long destinationOffset, long bytes) {
            calls.add("copyHostToDevice");
            MemorySegment.copy(source, 0, ((Memory) destination).segment(), destinationOffset, bytes);
        }

        @Override
        protected void copyDeviceToHost(DeviceMemory source, long sourceOffset, MemorySegment destination, long bytes) {
            calls.add("copyDeviceToHost");
            MemorySegment.copy(((Memory) source).segment(), sourceOffset, destination, 0, bytes);
        }

        @Override
        protected void copyDeviceToDevice(DeviceMemory source, long sourceOffset, DeviceMemory destination,
                long destinationOffset, long bytes) {
            calls.add("copyDeviceToDevice");
            MemorySegment.copy(((Memory) source).segment(), sourceOffset, ((Memory) destination).segment(),
                    destinationOffset, bytes);
        }

        @Override
        protected void copyPeer(ContextHandle sourceContext, DeviceMemory source, long sourceOffset,
                ContextHandle destinationContext, DeviceMemory destination, long destinationOffset, long bytes) {
            throw new AssertionError("unexpected peer copy");
        }

        @Override
        protected void fill(DeviceMemory destination, long offset, long count, int elementBytes, long bits) {
            throw new AssertionError("unexpected fill");
        }

        @Override
        protected void launch(FunctionHandle function, LaunchConfig config, LaunchArguments arguments) {
            throw new AssertionError("unexpected launch");
        }

        @Override
        public DeviceMemory allocate(long bytes) {
            throw new AssertionError("unexpected allocation");
        }

        @Override
        public void free(DeviceMemory memory) {
            throw new AssertionError("unexpected free");
        }

        @Override
        public void record(EventHandle event) {
            throw new AssertionError("unexpected record");
        }

        @Override
        public void waitEvent(EventHandle event) {
            throw new AssertionError("unexpected wait");
        }

        @Override
        public Marker recordMarker() {
            throw new AssertionError("unexpected marker");
        }

        @Override
        public void waitMarker(Marker marker) {
            throw new AssertionError("unexpected wait");
        }

        @Override
        public HostGate enqueueHostGate() {
            throw new AssertionError("unexpected gate");
        }

        @Override
        public void synchronize() {
        }

        @Override
        public void destroy() {
        }
    }

    private RowStream stream() {
        return new RowStream();
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
        stream().enqueue(new WorkStep.Upload2D(host.asSlice(2), 11, new Memory(device), 4, 8, 5, 3));
        assertArrayEquals(want, device.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(List.of("copyHostToDevice", "copyHostToDevice", "copyHostToDevice"), calls);
    }

    @Test
    void deviceToHostCopiesRowByRowAtEachPitch() {
        MemorySegment device = filled(40, 3);
        MemorySegment host = filled(30, 4);
        byte[] want = expected(device, host);
        stream().enqueue(new WorkStep.Download2D(new Memory(device), 2, 11, host.asSlice(4), 8, 5, 3));
        assertArrayEquals(want, host.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(3, calls.size());
    }

    @Test
    void deviceToDeviceCopiesRowByRowAtEachPitch() {
        MemorySegment source = filled(40, 5);
        MemorySegment destination = filled(30, 6);
        byte[] want = expected(source, destination);
        stream().enqueue(new WorkStep.Copy2D(new Memory(source), 2, 11, new Memory(destination), 4, 8, 5, 3));
        assertArrayEquals(want, destination.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(List.of("copyDeviceToDevice", "copyDeviceToDevice", "copyDeviceToDevice"), calls);
    }
}
