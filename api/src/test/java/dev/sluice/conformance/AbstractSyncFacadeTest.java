package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import dev.sluice.SyncStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The blocking facade ({@link SyncStream}): every operation has returned only once the device has finished it.
 * Where possible the result is read through a second stream that is not ordered after the operation, so a
 * facade that returned early shows a stale value.
 */
public abstract class AbstractSyncFacadeTest extends ConformanceBase {

    @Test
    void facadeBelongsToItsStream() {
        DeviceStream s = ctx.createStream();
        assertSame(s, s.sync().stream());
        assertSame(ctx.stream(), ctx.sync().stream());
    }

    @Test
    void syncLaunchReturnsAfterTheKernelHasFinished() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = intBuffer(ctx, filled(64, 0));
        s.sync().launch(fn(TestKernels.SLOW_FILL), LaunchConfig.of(1, 1), slowFillArguments(b, 8, Duration.ofMillis(300)));
        assertArrayEquals(filled(64, 8), readInts(ctx.createStream(), b), "read through an unordered stream");
    }

    @Test
    void syncAllocateReturnsMemoryThatExists() {
        SyncStream sync = ctx.createStream().sync();
        DeviceBuffer b = sync.allocate(DType.F64, 10);
        assertEquals(10, b.count());
        assertTrue(b.ready().isDone());
        sync.fill(b, 1.5);
        assertArrayEquals(new double[] {1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5}, sync.toDoubleArray(b));
        sync.free(b);
        assertTrue(b.isClosed());
    }

    @Test
    void syncCopiesOfHostBuffersAndDeviceBuffers() {
        SyncStream sync = ctx.createStream().sync();
        HostBuffer h = ctx.allocateHost(DType.I32, 8);
        for (int i = 0; i < 8; i++) {
            h.setInt(i, i + 1);
        }
        DeviceBuffer a = ctx.allocate(DType.I32, 8);
        DeviceBuffer b = ctx.allocate(DType.I32, 8);
        sync.copy(h, a);
        sync.copy(a, b);
        HostBuffer back = ctx.allocateHost(DType.I32, 8);
        sync.copy(b, back);
        for (int i = 0; i < 8; i++) {
            assertEquals(i + 1, back.getInt(i)); // no wait needed: the facade returned after the copy
        }
        assertArrayEquals(iota(8, 1), readInts(ctx.createStream(), b));
    }

    @Test
    void syncCopiesOfSegmentsAndEveryArrayType() {
        SyncStream sync = ctx.createStream().sync();
        DeviceBuffer f = ctx.allocate(DType.F32, 3);
        sync.copy(HostData.of(new float[] {1, 2, 3}), f);
        assertArrayEquals(new float[] {1, 2, 3}, sync.toFloatArray(f));
        float[] fo = new float[3];
        sync.copy(f, HostData.of(fo));
        assertArrayEquals(new float[] {1, 2, 3}, fo);

        DeviceBuffer d = ctx.allocate(DType.F64, 2);
        sync.copy(HostData.of(new double[] {-1, 4}), d);
        assertArrayEquals(new double[] {-1, 4}, sync.toDoubleArray(d));
        double[] dout = new double[2];
        sync.copy(d, HostData.of(dout));
        assertArrayEquals(new double[] {-1, 4}, dout);

        DeviceBuffer i = ctx.allocate(DType.U32, 2);
        sync.copy(HostData.of(new int[] {-1, 7}), i);
        assertArrayEquals(new int[] {-1, 7}, sync.toIntArray(i));
        int[] iout = new int[2];
        sync.copy(i, HostData.of(iout));
        assertArrayEquals(new int[] {-1, 7}, iout);

        DeviceBuffer l = ctx.allocate(DType.I64, 2);
        sync.copy(HostData.of(new long[] {Long.MAX_VALUE, 3}), l);
        assertArrayEquals(new long[] {Long.MAX_VALUE, 3}, sync.toLongArray(l));
        long[] lout = new long[2];
        sync.copy(l, HostData.of(lout));
        assertArrayEquals(new long[] {Long.MAX_VALUE, 3}, lout);

        DeviceBuffer sh = ctx.allocate(DType.BF16, 2);
        sync.copy(HostData.of(new short[] {0x3F80, (short) 0xC000}), sh);
        short[] sout = new short[2];
        sync.copy(sh, HostData.of(sout));
        assertArrayEquals(new short[] {0x3F80, (short) 0xC000}, sout);

        DeviceBuffer by = ctx.allocate(DType.U8, 3);
        sync.copy(HostData.of(new byte[] {1, (byte) 255, 3}), by);
        byte[] bout = new byte[3];
        sync.copy(by, HostData.of(bout));
        assertArrayEquals(new byte[] {1, (byte) 255, 3}, bout);

        DeviceBuffer seg = ctx.allocate(DType.I32, 2);
        sync.copy(HostData.of(MemorySegment.ofArray(new int[] {5, 6})), seg);
        int[] segOut = new int[2];
        sync.copy(seg, HostData.of(MemorySegment.ofArray(segOut)));
        assertArrayEquals(new int[] {5, 6}, segOut);
    }

    @Test
    void syncCopiesOfByteBuffersAndRanges() {
        SyncStream sync = ctx.createStream().sync();
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        ByteBuffer in = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 4; i++) {
            in.putInt(4 * i, 10 + i);
        }
        sync.copy(HostData.of(in), d);
        ByteBuffer out = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
        sync.copy(d, HostData.of(out));
        assertEquals(13, out.getInt(12), "no wait needed: the facade returned after the copy");

        sync.copy(HostData.of(iota(10, 0), 3, 4), d); // d = 3, 4, 5, 6
        int[] back = filled(10, -1);
        sync.copy(d.slice(1, 2), HostData.of(back, 8, 2));
        assertArrayEquals(new int[] {-1, -1, -1, -1, -1, -1, -1, -1, 4, 5}, back);
        try (HostBuffer h = ctx.allocateHost(DType.I32, 6)) {
            sync.copy(d.slice(0, 3), h.slice(2, 3)); // h = 0, 0, 3, 4, 5, 0
            sync.copy(h.slice(3, 1), d.slice(3, 1));
        }
        assertArrayEquals(new int[] {3, 4, 5, 4}, readInts(ctx.createStream(), d));
    }

    @Test
    void syncFillAndMemset() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 4);
        s.sync().fill(b, 77);
        assertArrayEquals(filled(4, 77), readInts(ctx.createStream(), b));
        s.sync().memset(b, 0);
        assertArrayEquals(filled(4, 0), readInts(ctx.createStream(), b));
    }

    @Test
    void syncRecordReturnsWithTheEventComplete() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 4);
        DeviceEvent e = ctx.createEvent();
        slowFill(s, b, 1, Duration.ofMillis(200));
        s.sync().record(e);
        assertTrue(e.query(), "the event is complete when sync().record returns");
    }

    @Test
    void syncHostFunctionHasRunWhenItReturns() {
        AtomicBoolean ran = new AtomicBoolean();
        ctx.createStream().sync().hostFunction(() -> ran.set(true));
        assertTrue(ran.get());
    }

    @Test
    void syncRethrowsTheOperationsExceptionItself() {
        IllegalStateException boom = new IllegalStateException("host step failed");
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> ctx.createStream().sync().hostFunction(() -> {
                    throw boom;
                }));
        assertSame(boom, thrown, "the facade throws the failure, not an ExecutionException around it");
    }

    @Test
    void contextFacadeUsesTheDefaultStream() {
        DeviceBuffer b = ctx.allocate(DType.I32, 4);
        ctx.sync().fill(b, 3);
        ctx.sync().launch(fn(TestKernels.MUL_ADD), LaunchConfig.of(1, 4), b, 4L, 3, 0);
        assertArrayEquals(filled(4, 9), ctx.sync().toIntArray(b));
    }
}
