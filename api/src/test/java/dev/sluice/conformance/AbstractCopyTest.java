package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.SyncStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Copies of every element type between host buffers, Java arrays, {@link ByteBuffer}s, {@link MemorySegment}s
 * and device buffers, whole and by range, and between contexts. Every test round-trips through device memory
 * and compares every byte.
 */
public abstract class AbstractCopyTest extends ConformanceBase {

    private static final int N = 37; // odd, so that nothing lines up by accident

    /** Bytes that differ element by element and from any fill. */
    private static byte[] pattern(int bytes, int salt) {
        byte[] p = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            p[i] = (byte) (i * 31 + 7 + salt * 13);
        }
        return p;
    }

    private static byte[] bytesOf(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void hostBufferRoundTripKeepsEveryByte(DType type) {
        DeviceStream s = ctx.createStream();
        HostBuffer in = ctx.allocateHost(type, N);
        HostBuffer out = ctx.allocateHost(type, N);
        byte[] p = pattern(N * type.byteSize(), type.ordinal());
        MemorySegment.copy(MemorySegment.ofArray(p), 0, in.segment(), 0, p.length);
        DeviceBuffer d = ctx.allocate(type, N);
        s.enqueueCopy(in, d);
        await(s.enqueueCopy(d, out));
        assertArrayEquals(p, bytesOf(out.segment()), type + " host -> device -> host");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void deviceToDeviceCopyKeepsEveryByte(DType type) {
        DeviceStream s = ctx.createStream();
        byte[] p = pattern(N * type.byteSize(), 3);
        DeviceBuffer a = ctx.allocate(type, N);
        DeviceBuffer b = ctx.allocate(type, N);
        s.enqueueCopy(HostData.of(MemorySegment.ofArray(p)), a);
        s.enqueueCopy(a, b);
        s.enqueueMemset(a, 0);
        byte[] out = new byte[p.length];
        await(s.enqueueCopy(b, HostData.of(MemorySegment.ofArray(out))));
        assertArrayEquals(p, out, type + " device -> device");
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void javaArrayRoundTripForEveryType(DType type) {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(type, N);
        switch (type) {
            case BOOL, I8, U8 -> {
                byte[] in = pattern(N, 1);
                if (type == DType.BOOL) {
                    for (int i = 0; i < N; i++) {
                        in[i] = (byte) (i % 3 == 0 ? 1 : 0);
                    }
                }
                byte[] out = new byte[N];
                s.enqueueCopy(HostData.of(in), d);
                await(s.enqueueCopy(d, HostData.of(out)));
                assertArrayEquals(in, out);
            }
            case I16, U16, F16, BF16 -> {
                short[] in = new short[N];
                for (int i = 0; i < N; i++) {
                    in[i] = switch (type) {
                        case F16 -> Float.floatToFloat16(i * 0.5f - 3);
                        case BF16 -> (short) (Float.floatToRawIntBits(i * 0.25f - 1) >>> 16);
                        default -> (short) (i * 1999 - 30000);
                    };
                }
                short[] out = new short[N];
                s.enqueueCopy(HostData.of(in), d);
                await(s.enqueueCopy(d, HostData.of(out)));
                assertArrayEquals(in, out);
            }
            case I32, U32 -> {
                int[] in = new int[N];
                for (int i = 0; i < N; i++) {
                    in[i] = i * 123_456_789 - 7;
                }
                int[] out = new int[N];
                s.enqueueCopy(HostData.of(in), d);
                await(s.enqueueCopy(d, HostData.of(out)));
                assertArrayEquals(in, out);
            }
            case F32 -> {
                float[] in = new float[N];
                for (int i = 0; i < N; i++) {
                    in[i] = i * 1.5f - 11.25f;
                }
                float[] out = new float[N];
                s.enqueueCopy(HostData.of(in), d);
                await(s.enqueueCopy(d, HostData.of(out)));
                assertArrayEquals(in, out);
            }
            case I64, U64 -> {
                long[] in = new long[N];
                for (int i = 0; i < N; i++) {
                    in[i] = i * 0x0123_4567_89AB_CDEFL;
                }
                long[] out = new long[N];
                s.enqueueCopy(HostData.of(in), d);
                await(s.enqueueCopy(d, HostData.of(out)));
                assertArrayEquals(in, out);
            }
            case F64 -> {
                double[] in = new double[N];
                for (int i = 0; i < N; i++) {
                    in[i] = i * Math.PI - 1e300 * (i % 2);
                }
                double[] out = new double[N];
                s.enqueueCopy(HostData.of(in), d);
                await(s.enqueueCopy(d, HostData.of(out)));
                assertArrayEquals(in, out);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void byteBufferCopiesUseTheRemainingBytesAndKeepThePosition(boolean direct) {
        DeviceStream s = ctx.createStream();
        int n = 16;
        ByteBuffer in = (direct ? ByteBuffer.allocateDirect(8 + 4 * n + 8) : ByteBuffer.allocate(8 + 4 * n + 8))
                .order(ByteOrder.nativeOrder());
        for (int i = 0; i < in.capacity(); i++) {
            in.put(i, (byte) 0x55);
        }
        for (int i = 0; i < n; i++) {
            in.putInt(8 + 4 * i, i * 1000 + 1);
        }
        in.position(8).limit(8 + 4 * n);
        DeviceBuffer d = ctx.allocate(DType.I32, n);
        await(s.enqueueCopy(HostData.of(in), d));
        assertEquals(8, in.position(), "the source's position is not moved");
        int[] expected = new int[n];
        for (int i = 0; i < n; i++) {
            expected[i] = i * 1000 + 1;
        }
        assertArrayEquals(expected, readInts(s, d));

        ByteBuffer out = (direct ? ByteBuffer.allocateDirect(4 * n + 12) : ByteBuffer.allocate(4 * n + 12))
                .order(ByteOrder.nativeOrder());
        for (int i = 0; i < out.capacity(); i++) {
            out.put(i, (byte) 0x77);
        }
        out.position(4).limit(4 + 4 * n);
        await(s.enqueueCopy(d, HostData.of(out)));
        assertEquals(4, out.position(), "the destination's position is not moved");
        out.limit(out.capacity());
        for (int i = 0; i < n; i++) {
            assertEquals(expected[i], out.getInt(4 + 4 * i));
        }
        for (int i : new int[] {0, 1, 2, 3, 4 + 4 * n, 4 * n + 11}) {
            assertEquals((byte) 0x77, out.get(i), "bytes outside position..limit are not written (byte " + i + ")");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void memorySegmentRoundTrip(boolean nativeMemory) {
        DeviceStream s = ctx.createStream();
        byte[] p = pattern(N * 8, 5);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment in = nativeMemory ? arena.allocate(p.length) : MemorySegment.ofArray(new byte[p.length]);
            MemorySegment.copy(MemorySegment.ofArray(p), 0, in, 0, p.length);
            MemorySegment out = nativeMemory ? arena.allocate(p.length) : MemorySegment.ofArray(new long[N]);
            DeviceBuffer d = ctx.allocate(DType.F64, N);
            s.enqueueCopy(HostData.of(in), d);
            await(s.enqueueCopy(d, HostData.of(out)));
            assertArrayEquals(p, bytesOf(out));
        }
    }

    /** A Java array of the element type's width ({@code byte[]} to {@code double[]}) holding {@code bytes}. */
    private static Object arrayOf(DType type, byte[] bytes) {
        MemorySegment b = MemorySegment.ofArray(bytes);
        return switch (type) {
            case BOOL, I8, U8 -> bytes.clone();
            case I16, U16, F16, BF16 -> b.toArray(ValueLayout.JAVA_SHORT_UNALIGNED);
            case I32, U32 -> b.toArray(ValueLayout.JAVA_INT_UNALIGNED);
            case F32 -> b.toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
            case I64, U64 -> b.toArray(ValueLayout.JAVA_LONG_UNALIGNED);
            case F64 -> b.toArray(ValueLayout.JAVA_DOUBLE_UNALIGNED);
        };
    }

    private static HostData rangeOf(Object array, int from, int count) {
        return switch (array) {
            case byte[] a -> HostData.of(a, from, count);
            case short[] a -> HostData.of(a, from, count);
            case int[] a -> HostData.of(a, from, count);
            case float[] a -> HostData.of(a, from, count);
            case long[] a -> HostData.of(a, from, count);
            case double[] a -> HostData.of(a, from, count);
            default -> throw new IllegalArgumentException(array.toString());
        };
    }

    private static byte[] bytesOfArray(Object array) {
        MemorySegment m = switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException(array.toString());
        };
        return bytesOf(m);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void javaArrayRangesCopyOnlyTheirElements(DType type) {
        DeviceStream s = ctx.createStream();
        int size = type.byteSize();
        int length = N + 6;
        byte[] p = pattern(length * size, type.ordinal());
        DeviceBuffer d = ctx.allocate(type, N);
        s.enqueueCopy(rangeOf(arrayOf(type, p), 4, N), d); // elements 4 .. 4 + N of the source
        byte[] before = pattern(length * size, 99);
        Object out = arrayOf(type, before);
        await(s.enqueueCopy(d, rangeOf(out, 2, N))); // into elements 2 .. 2 + N of the destination
        byte[] expected = before.clone();
        System.arraycopy(p, 4 * size, expected, 2 * size, N * size);
        assertArrayEquals(expected, bytesOfArray(out), type + ": the range and nothing else, both ways");
    }

    @Test
    void memorySegmentSlicesCopyOnlyTheSlice() {
        DeviceStream s = ctx.createStream();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment in = arena.allocate(64);
            MemorySegment.copy(MemorySegment.ofArray(pattern(64, 2)), 0, in, 0, 64);
            DeviceBuffer d = ctx.allocate(DType.U8, 16);
            s.enqueueCopy(HostData.of(in.asSlice(8, 16)), d);
            MemorySegment out = arena.allocate(64).fill((byte) 0x33);
            await(s.enqueueCopy(d, HostData.of(out.asSlice(40, 16))));
            byte[] expected = new byte[64];
            Arrays.fill(expected, (byte) 0x33);
            System.arraycopy(pattern(64, 2), 8, expected, 40, 16);
            assertArrayEquals(expected, bytesOf(out));
        }
    }

    @Test
    void byteBufferSlicesCopyOnlyTheSlice() {
        DeviceStream s = ctx.createStream();
        ByteBuffer in = ByteBuffer.wrap(pattern(48, 4));
        DeviceBuffer d = ctx.allocate(DType.I16, 8);
        s.enqueueCopy(HostData.of(in.slice(16, 16)), d);
        ByteBuffer out = ByteBuffer.allocateDirect(48);
        await(s.enqueueCopy(d, HostData.of(out.slice(30, 16))));
        byte[] got = new byte[48];
        out.get(0, got);
        byte[] expected = new byte[48];
        System.arraycopy(pattern(48, 4), 16, expected, 30, 16);
        assertArrayEquals(expected, got);
    }

    @Test
    void copyIntoADeviceSliceWritesOnlyTheSlice() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = intBuffer(ctx, filled(32, -1));
        DeviceBuffer slice = d.slice(10, 8);
        assertEquals(8, slice.count());
        assertEquals(40, slice.byteOffset());
        s.enqueueCopy(HostData.of(iota(8, 100)), slice);
        int[] expected = filled(32, -1);
        System.arraycopy(iota(8, 100), 0, expected, 10, 8);
        assertArrayEquals(expected, readInts(s, d));
        assertArrayEquals(iota(8, 100), readInts(s, slice), "a copy from a slice reads only the slice");
    }

    @Test
    void sliceOfASliceAddsTheOffsets() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = intBuffer(ctx, iota(64, 0));
        DeviceBuffer inner = d.slice(8, 40).slice(5, 3);
        assertArrayEquals(new int[] {13, 14, 15}, readInts(s, inner));
    }

    @Test
    void copyBetweenHostAndDeviceSlices() {
        DeviceStream s = ctx.createStream();
        HostBuffer h = ctx.allocateHost(DType.I32, 20);
        for (int i = 0; i < 20; i++) {
            h.setInt(i, i);
        }
        DeviceBuffer d = intBuffer(ctx, filled(20, 0));
        s.enqueueCopy(h.slice(2, 5), d.slice(11, 5));
        HostBuffer back = ctx.allocateHost(DType.I32, 20);
        await(s.enqueueCopy(d.slice(11, 5), back.slice(0, 5)));
        assertArrayEquals(new int[] {2, 3, 4, 5, 6}, new int[] {back.getInt(0), back.getInt(1), back.getInt(2), back.getInt(3), back.getInt(4)});
        assertEquals(0, back.getInt(5), "nothing beyond the slice is written");
    }

    @Test
    void explicitRangeHostToDevice() {
        DeviceStream s = ctx.createStream();
        HostBuffer h = ctx.allocateHost(DType.I32, 10);
        for (int i = 0; i < 10; i++) {
            h.setInt(i, 50 + i);
        }
        DeviceBuffer d = intBuffer(ctx, filled(12, 0));
        await(s.enqueueCopy(h.slice(3, 4), d.slice(7, 4)));
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 0, 0, 53, 54, 55, 56, 0}, readInts(s, d));
    }

    @Test
    void explicitRangeDeviceToHost() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = intBuffer(ctx, iota(12, 100));
        try (HostBuffer h = ctx.allocateHost(DType.I32, 6)) {
            await(s.enqueueCopy(d.slice(9, 3), h.slice(1, 3)));
            int[] got = new int[6];
            for (int i = 0; i < 6; i++) {
                got[i] = h.getInt(i);
            }
            assertArrayEquals(new int[] {0, 109, 110, 111, 0, 0}, got);
        }
    }

    @Test
    void explicitRangeDeviceToDevice() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer a = intBuffer(ctx, iota(10, 0));
        DeviceBuffer b = intBuffer(ctx, filled(5, -1));
        await(s.enqueueCopy(a.slice(6, 3), b.slice(1, 3)));
        assertArrayEquals(new int[] {-1, 6, 7, 8, -1}, readInts(s, b));
    }

    @Test
    void copyBetweenSlicesOfOneBuffer() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = intBuffer(ctx, iota(24, 0));
        await(s.enqueueCopy(d.slice(0, 8), d.slice(16, 8)));
        int[] expected = iota(24, 0);
        System.arraycopy(iota(8, 0), 0, expected, 16, 8);
        assertArrayEquals(expected, readInts(s, d));
    }

    @Test
    void copyBetweenTwoContextsOfTheBackend() {
        DeviceContext other = open(ContextOptions.defaults());
        DeviceBuffer a = intBuffer(ctx, iota(64, 9));
        DeviceBuffer b = other.allocate(DType.I32, 64);
        await(ctx.stream().enqueueCopy(a, b)); // on the source's stream
        assertArrayEquals(iota(64, 9), readInts(other.stream(), b));
        DeviceBuffer c = intBuffer(ctx, filled(64, 0));
        await(other.stream().enqueueCopy(b, c)); // on the destination's stream
        assertArrayEquals(iota(64, 9), readInts(ctx.stream(), c));
    }

    @Test
    void registeredHostMemoryRoundTripAndStaysWithItsOwner() {
        DeviceStream s = ctx.createStream();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mem = arena.allocate(16 * 4, 64);
            for (int i = 0; i < 16; i++) {
                mem.setAtIndex(ValueLayout.JAVA_INT, i, i * 3);
            }
            HostBuffer h = ctx.registerHost(mem, DType.I32);
            assertTrue(h.isRegistered());
            assertEquals(16, h.count());
            DeviceBuffer d = ctx.allocate(DType.I32, 16);
            s.enqueueCopy(h, d);
            s.enqueueLaunch(fn(TestKernels.MUL_ADD), dev.sluice.LaunchConfig.forElements(16), d, 16L, 2, 0);
            await(s.enqueueCopy(d, h));
            for (int i = 0; i < 16; i++) {
                assertEquals(i * 6, mem.getAtIndex(ValueLayout.JAVA_INT, i), "the device wrote into the registered memory");
            }
            h.close();
            assertTrue(h.isClosed());
            assertEquals(30, mem.getAtIndex(ValueLayout.JAVA_INT, 5), "unregistering leaves the caller's memory alone");
        }
    }

    @Test
    void largeCopyRoundTrip() {
        DeviceStream s = ctx.createStream();
        int n = 4 << 20; // 16 MiB of ints
        int[] in = new int[n];
        for (int i = 0; i < n; i++) {
            in[i] = i ^ 0x5A5A5A5A;
        }
        DeviceBuffer d = ctx.allocate(DType.I32, n);
        s.enqueueCopy(HostData.of(in), d);
        int[] out = new int[n];
        await(s.enqueueCopy(d, HostData.of(out)));
        assertTrue(Arrays.equals(in, out), "16 MiB round trip");
    }

    @Test
    void reinterpretSeesTheSameBytes() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = intBuffer(ctx, 0x04030201, 0x08070605);
        DeviceBuffer bytes = d.reinterpret(DType.U8);
        assertEquals(8, bytes.count());
        byte[] out = new byte[8];
        await(s.enqueueCopy(bytes, HostData.of(out)));
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, out, "device memory is little-endian");
    }

    @Test
    void hostBufferAccessorsAndPrinting() {
        HostBuffer f = ctx.allocateHost(DType.F32, 3);
        assertEquals(0f, f.getFloat(2), "host buffers start zero-filled");
        for (int i = 0; i < 3; i++) {
            f.setFloat(i, i);
        }
        assertEquals("HostBuffer([0.0, 1.0, 2.0])", f.toString(), "Mojo's format");
        HostBuffer h = ctx.allocateHost(DType.F16, 2);
        h.setShort(1, Float.floatToFloat16(1.5f));
        assertEquals(1.5, h.getAsDouble(1));
        HostBuffer u = ctx.allocateHost(DType.U32, 1);
        u.setInt(0, -1);
        assertEquals(4294967295.0, u.getAsDouble(0), "unsigned types widen");
    }

    // ---------------------------------------------------------------- pitched 2-D copies

    /**
     * A rectangle of one 2-D copy, in elements: {@code height} rows of {@code width}, from (row, column) of a source whose
     * rows are {@code sourcePitch} apart to (row, column) of a destination whose rows are {@code destinationPitch} apart;
     * each side holds {@code rows} rows of its pitch, so there are bytes around the rectangle to stay untouched.
     */
    private record Rect(String name, int sourcePitch, int sourceRow, int sourceColumn, int destinationPitch,
            int destinationRow, int destinationColumn, int width, int height, int rows) {

        int sourceOrigin() {
            return sourceRow * sourcePitch + sourceColumn;
        }

        int destinationOrigin() {
            return destinationRow * destinationPitch + destinationColumn;
        }

        int sourceCount() {
            return rows * sourcePitch;
        }

        int destinationCount() {
            return rows * destinationPitch;
        }

        /** {@code destination} with the rectangle of {@code source} written in, computed on the host; element size e. */
        byte[] expected(byte[] source, byte[] destination, int e) {
            byte[] out = destination.clone();
            for (int r = 0; r < height; r++) {
                System.arraycopy(source, (sourceOrigin() + r * sourcePitch) * e, out, (destinationOrigin() + r * destinationPitch) * e,
                        width * e);
            }
            return out;
        }
    }

    /** Sub-rectangles at an origin with different pitches, pitch equal to width, one column, one row. */
    private static final Rect[] RECTS = {
        new Rect("tile at an origin", 13, 2, 3, 9, 1, 2, 5, 4, 7),
        new Rect("pitch == width", 7, 1, 0, 7, 2, 0, 7, 5, 8),
        new Rect("width 1", 11, 0, 10, 3, 1, 1, 1, 6, 8),
        new Rect("height 1", 13, 3, 4, 9, 0, 1, 8, 1, 4),
    };

    /** A device buffer of {@code type} holding {@code bytes}. */
    private DeviceBuffer deviceHolding(DeviceStream s, DType type, byte[] bytes) {
        DeviceBuffer d = ctx.allocate(type, bytes.length / type.byteSize());
        s.enqueueCopy(HostData.of(MemorySegment.ofArray(bytes)), d);
        return d;
    }

    private static byte[] read(DeviceStream s, DeviceBuffer d) {
        byte[] out = new byte[(int) d.byteSize()];
        await(s.enqueueCopy(d, HostData.of(MemorySegment.ofArray(out))));
        return out;
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void copy2DFromHostWritesTheRectangleAndLeavesTheBytesBetweenRowsUntouched(DType type) {
        DeviceStream s = ctx.createStream();
        int e = type.byteSize();
        for (Rect r : RECTS) {
            for (boolean pinned : new boolean[] {true, false}) {
                byte[] src = pattern(r.sourceCount() * e, 1);
                byte[] dst = pattern(r.destinationCount() * e, 2);
                DeviceBuffer d = deviceHolding(s, type, dst);
                HostData source;
                if (pinned) {
                    HostBuffer h = ctx.allocateHost(type, r.sourceCount());
                    MemorySegment.copy(MemorySegment.ofArray(src), 0, h.segment(), 0, src.length);
                    source = h.slice(r.sourceOrigin(), r.sourceCount() - r.sourceOrigin());
                } else {
                    source = HostData.of(MemorySegment.ofArray(src).asSlice((long) r.sourceOrigin() * e));
                }
                s.enqueueCopy2D(source, r.sourcePitch(), d.slice(r.destinationOrigin(), r.destinationCount() - r.destinationOrigin()),
                        r.destinationPitch(), r.width(), r.height());
                assertArrayEquals(r.expected(src, dst, e), read(s, d), type + ", " + r.name() + (pinned ? ", pinned" : ", heap"));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void copy2DToHostWritesTheRectangleAndLeavesTheBytesBetweenRowsUntouched(DType type) {
        DeviceStream s = ctx.createStream();
        int e = type.byteSize();
        for (Rect r : RECTS) {
            for (boolean pinned : new boolean[] {true, false}) {
                byte[] src = pattern(r.sourceCount() * e, 3);
                byte[] dst = pattern(r.destinationCount() * e, 4);
                DeviceBuffer d = deviceHolding(s, type, src);
                DeviceBuffer from = d.slice(r.sourceOrigin(), r.sourceCount() - r.sourceOrigin());
                byte[] out;
                if (pinned) {
                    HostBuffer h = ctx.allocateHost(type, r.destinationCount());
                    MemorySegment.copy(MemorySegment.ofArray(dst), 0, h.segment(), 0, dst.length);
                    await(s.enqueueCopy2D(from, r.sourcePitch(), h.slice(r.destinationOrigin(),
                            r.destinationCount() - r.destinationOrigin()), r.destinationPitch(), r.width(), r.height()));
                    out = bytesOf(h.segment());
                } else {
                    out = dst.clone();
                    await(s.enqueueCopy2D(from, r.sourcePitch(), HostData.of(MemorySegment.ofArray(out)
                            .asSlice((long) r.destinationOrigin() * e)), r.destinationPitch(), r.width(), r.height()));
                }
                assertArrayEquals(r.expected(src, dst, e), out, type + ", " + r.name() + (pinned ? ", pinned" : ", heap"));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void copy2DBetweenDeviceBuffersWritesTheRectangleAndLeavesTheBytesBetweenRowsUntouched(DType type) {
        DeviceStream s = ctx.createStream();
        int e = type.byteSize();
        for (Rect r : RECTS) {
            byte[] src = pattern(r.sourceCount() * e, 5);
            byte[] dst = pattern(r.destinationCount() * e, 6);
            DeviceBuffer a = deviceHolding(s, type, src);
            DeviceBuffer b = deviceHolding(s, type, dst);
            s.enqueueCopy2D(a.slice(r.sourceOrigin(), r.sourceCount() - r.sourceOrigin()), r.sourcePitch(),
                    b.slice(r.destinationOrigin(), r.destinationCount() - r.destinationOrigin()), r.destinationPitch(), r.width(),
                    r.height());
            assertArrayEquals(src, read(s, a), type + ", " + r.name() + ": the source is unchanged");
            assertArrayEquals(r.expected(src, dst, e), read(s, b), type + ", " + r.name());
        }
    }

    /**
     * Unpinned host memory (a Java array, or native memory that is not pinned) of a rectangle larger than a backend's
     * staging buffers (4 MiB on CUDA, 8 MiB on HIP), which GPU backends pack into staging a chunk of rows at a time:
     * odd pitches and origins on every side, to the device and back without waiting in between (stream order), and
     * every byte outside the rectangles untouched.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void copy2DOfUnpinnedHostMemoryLargerThanTheStagingBuffersGoesBothWaysInStreamOrder(boolean nativeMemory) {
        Rect there = new Rect("to the device", 1003, 2, 7, 1009, 1, 3, 1001, 3100, 3103);
        Rect back = new Rect("back to the host", 1009, 1, 3, 1005, 2, 11, 1001, 3100, 3103);
        roundTrip2D(there, back, DType.F32, nativeMemory);
    }

    /** Rows wider than any staging buffer (8 MiB and 4 KiB + 1 bytes), unpinned: they go row by row, both ways. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void copy2DOfUnpinnedRowsWiderThanTheStagingBuffersGoesBothWays(boolean nativeMemory) {
        int width = (8 << 20) + 4097;
        Rect there = new Rect("to the device", width + 3, 0, 1, width + 5, 1, 2, width, 3, 4);
        Rect back = new Rect("back to the host", width + 5, 1, 2, width + 1, 0, 3, width, 3, 4);
        roundTrip2D(there, back, DType.I8, nativeMemory);
    }

    /** {@code there} from unpinned host memory to a device buffer, then {@code back} into other host memory, awaited once. */
    private void roundTrip2D(Rect there, Rect back, DType type, boolean nativeMemory) {
        int e = type.byteSize();
        DeviceStream s = ctx.createStream();
        byte[] src = pattern(there.sourceCount() * e, 7);
        byte[] onDevice = pattern(there.destinationCount() * e, 8);
        byte[] dst = pattern(back.destinationCount() * e, 9);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment from = MemorySegment.ofArray(src);
            MemorySegment to = MemorySegment.ofArray(dst.clone());
            if (nativeMemory) {
                from = arena.allocate(src.length).copyFrom(from);
                to = arena.allocate(dst.length).copyFrom(to);
            }
            DeviceBuffer d = closeLater(deviceHolding(s, type, onDevice));
            s.enqueueCopy2D(HostData.of(from.asSlice((long) there.sourceOrigin() * e)), there.sourcePitch(),
                    d.slice(there.destinationOrigin(), there.destinationCount() - there.destinationOrigin()),
                    there.destinationPitch(), there.width(), there.height());
            await(s.enqueueCopy2D(d.slice(back.sourceOrigin(), back.sourceCount() - back.sourceOrigin()), back.sourcePitch(),
                    HostData.of(to.asSlice((long) back.destinationOrigin() * e)), back.destinationPitch(), back.width(),
                    back.height()));
            byte[] device = there.expected(src, onDevice, e);
            assertArrayEquals(device, read(s, d), there.name() + (nativeMemory ? ", native" : ", heap"));
            assertArrayEquals(back.expected(device, dst, e), bytesOf(to), back.name() + (nativeMemory ? ", native" : ", heap"));
        }
    }

    @Test
    void copy2DBetweenInterleavedRectanglesOfOneBufferCopiesEveryRow() {
        // even rows of a 6-row, 5-wide image onto the odd rows: the extents overlap, the rectangles share no element
        int[] image = new int[30];
        Arrays.setAll(image, i -> i);
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(DType.I32, 30);
        s.enqueueCopy(HostData.of(image), d);
        s.enqueueCopy2D(d, 10, d.slice(5, 25), 10, 5, 3);
        int[] want = image.clone();
        for (int row = 1; row < 6; row += 2) {
            System.arraycopy(image, (row - 1) * 5, want, row * 5, 5);
        }
        assertArrayEquals(want, readInts(s, d));
    }

    @Test
    void tileOfAnImageArrayGoesToTheDeviceAndBackIntoAnotherImage() {
        int pitch = 1920;
        int rows = 160;
        float[] image = new float[pitch * rows];
        for (int i = 0; i < image.length; i++) {
            image[i] = i;
        }
        DeviceStream s = ctx.createStream();
        DeviceBuffer tile = closeLater(ctx.allocate(DType.F32, 64 * 48)); // reachable until the test ends: no leak report
        int origin = 100 * pitch + 200;
        s.enqueueCopy2D(HostData.of(image, origin, image.length - origin), pitch, tile, 64, 64, 48);
        float[] back = new float[pitch * rows];
        int at = 10 * pitch + 30;
        await(s.enqueueCopy2D(tile, 64, HostData.of(back, at, back.length - at), pitch, 64, 48));
        for (int row = 0; row < rows; row++) {
            for (int column = 0; column < pitch; column++) {
                boolean inside = row >= 10 && row < 58 && column >= 30 && column < 94;
                float want = inside ? (row - 10 + 100) * pitch + (column - 30 + 200) : 0;
                assertEquals(want, back[row * pitch + column], "row " + row + ", column " + column);
            }
        }
    }

    @Test
    void syncFacadeCopiesARectangleAndWaits() {
        int[] src = new int[6 * 10];
        Arrays.setAll(src, i -> i + 1);
        int[] out = new int[4 * 3];
        SyncStream sync = ctx.createStream().sync();
        try (DeviceBuffer d = ctx.allocate(DType.I32, 4 * 3)) {
            sync.copy2D(HostData.of(src, 2 * 10 + 5, 3 * 10), 10, d, 4, 4, 3);
            sync.copy2D(d, 4, HostData.of(out), 4, 4, 3);
        }
        assertArrayEquals(new int[] {26, 27, 28, 29, 36, 37, 38, 39, 46, 47, 48, 49}, out);
    }
}
