package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code DeviceBuffer.mapToHost()}: a host view that reads the device's contents and writes back on close. */
public abstract class AbstractMapToHostTest extends ConformanceBase {

    @Test
    void mapToHostSeesWorkEnqueuedOnTheDefaultStream() {
        DeviceBuffer d = ctx.allocate(DType.I32, 100);
        ctx.stream().enqueueCopy(HostData.of(iota(100, 0)), d);
        slowFill(ctx.stream(), d.slice(90, 10), -3, Duration.ofMillis(200));
        ctx.stream().enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(100), d, 100L, 2, 1);
        try (HostBuffer h = d.mapToHost()) {
            assertEquals(DType.I32, h.dtype());
            assertEquals(100, h.count());
            for (int i = 0; i < 100; i++) {
                assertEquals(i < 90 ? 2 * i + 1 : -5, h.getInt(i), "element " + i);
            }
        }
    }

    @Test
    void writesReachTheDeviceWhenTheScopeCloses() {
        DeviceBuffer d = intBuffer(ctx, filled(50, 0));
        try (HostBuffer h = d.mapToHost()) {
            for (int i = 0; i < 50; i++) {
                h.setInt(i, i * i);
            }
        }
        int[] expected = new int[50];
        for (int i = 0; i < 50; i++) {
            expected[i] = i * i;
        }
        assertArrayEquals(expected, readInts(ctx.createStream(), d), "the mapped writes must be on the device after close");
    }

    @Test
    void mappingASliceWritesBackOnlyTheSlice() {
        DeviceBuffer d = intBuffer(ctx, filled(20, 7));
        try (HostBuffer h = d.slice(5, 4).mapToHost()) {
            assertEquals(4, h.count());
            for (int i = 0; i < 4; i++) {
                assertEquals(7, h.getInt(i));
                h.setInt(i, 100 + i);
            }
        }
        int[] expected = filled(20, 7);
        System.arraycopy(iota(4, 100), 0, expected, 5, 4);
        assertArrayEquals(expected, readInts(ctx.stream(), d));
    }

    @Test
    void mappedFloatBufferInitialisesLikeMojosExample() {
        DeviceBuffer d = ctx.allocate(DType.F32, 20);
        try (HostBuffer h = d.mapToHost()) {
            for (int i = 0; i < 20; i++) {
                h.setFloat(i, i);
            }
        }
        ctx.stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.forElements(20), d, 20L, 20f);
        try (HostBuffer h = d.mapToHost()) {
            for (int i = 0; i < 20; i++) {
                assertEquals(20f + i, h.getFloat(i));
            }
            assertTrue(h.toString().startsWith("HostBuffer([20.0, 21.0"), h.toString());
        }
    }

    @Test
    void closingTheMappedBufferTwiceWritesBackOnce() {
        DeviceBuffer d = intBuffer(ctx, filled(4, 0));
        HostBuffer h = d.mapToHost();
        h.setInt(0, 1);
        h.close();
        assertTrue(h.isClosed());
        ctx.stream().enqueueFill(d, 9);
        h.close(); // idempotent: no second write-back over the fill
        assertArrayEquals(filled(4, 9), readInts(ctx.stream(), d));
    }
}
