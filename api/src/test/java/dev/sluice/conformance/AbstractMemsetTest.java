package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code enqueueFill} for every element type (8-, 16-, 32- and 64-bit, F16 and BF16 by their bits) and
 * {@code enqueueMemset}, on slices at offsets, checking that the range is written and nothing around it. The
 * expected bit patterns are written out here, not computed with the API.
 */
public abstract class AbstractMemsetTest extends ConformanceBase {

    private static final int N = 16;
    private static final int OFFSET = 3;
    private static final int COUNT = 5;

    /** A value per type and its bits as the device must hold them, written out by hand. */
    private record Case(Number value, long bits) {
    }

    private static Case caseFor(DType t) {
        return switch (t) {
            case BOOL -> new Case(1, 0x01);
            case I8 -> new Case(-5, 0xFB);
            case U8 -> new Case(200, 0xC8);
            case I16 -> new Case(-1234, 0xFB2E);
            case U16 -> new Case(60000, 0xEA60);
            case F16 -> new Case(1.5, 0x3E00);
            case BF16 -> new Case(1.5f, 0x3FC0);
            case I32 -> new Case(-123456789, 0xF8A432EBL);
            case U32 -> new Case(4_000_000_000L, 0xEE6B2800L);
            case F32 -> new Case(3.25f, 0x40500000L);
            case I64 -> new Case(Long.MIN_VALUE + 7, 0x8000000000000007L);
            case U64 -> new Case(Long.MAX_VALUE, 0x7FFFFFFFFFFFFFFFL);
            case F64 -> new Case(-2.5, 0xC004000000000000L);
        };
    }

    /** Reads element {@code i} of {@code seg} (elements of {@code size} bytes) as unsigned bits. */
    private static long elementBits(MemorySegment seg, int size, int i) {
        long off = (long) i * size;
        return switch (size) {
            case 1 -> Byte.toUnsignedLong(seg.get(ValueLayout.JAVA_BYTE, off));
            case 2 -> Short.toUnsignedLong(seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, off));
            case 4 -> Integer.toUnsignedLong(seg.get(ValueLayout.JAVA_INT_UNALIGNED, off));
            default -> seg.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
        };
    }

    private MemorySegment readBack(DeviceStream s, DeviceBuffer d) {
        byte[] out = new byte[Math.toIntExact(d.byteSize())];
        await(s.enqueueCopy(d, HostData.of(MemorySegment.ofArray(out))));
        return MemorySegment.ofArray(out);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void fillWritesTheValuesBitsIntoTheSliceOnly(DType type) {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(type, N);
        s.enqueueMemset(d, 0);
        Case c = caseFor(type);
        await(s.enqueueFill(d.slice(OFFSET, COUNT), c.value()));
        MemorySegment got = readBack(s, d);
        for (int i = 0; i < N; i++) {
            long expected = i >= OFFSET && i < OFFSET + COUNT ? c.bits() : 0;
            assertEquals(expected, elementBits(got, type.byteSize(), i),
                    type + " element " + i + " after fill(" + c.value() + ") of slice(" + OFFSET + ", " + COUNT + ")");
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void fillWholeBuffer(DType type) {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(type, N);
        Case c = caseFor(type);
        await(s.enqueueFill(d, c.value()));
        MemorySegment got = readBack(s, d);
        for (int i = 0; i < N; i++) {
            assertEquals(c.bits(), elementBits(got, type.byteSize(), i), type + " element " + i);
        }
    }

    @Test
    void fillRoundsHalfPrecisionToNearestEven() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer h = ctx.allocate(DType.F16, 4);
        DeviceBuffer b = ctx.allocate(DType.BF16, 4);
        s.enqueueFill(h, 0.1);
        s.enqueueFill(b, 0.1f);
        short[] hs = new short[4];
        short[] bs = new short[4];
        s.enqueueCopy(h, HostData.of(hs));
        await(s.enqueueCopy(b, HostData.of(bs)));
        assertEquals(0x2E66, Short.toUnsignedInt(hs[2]), "0.1 as IEEE half");
        assertEquals(0x3DCD, Short.toUnsignedInt(bs[2]), "0.1f (0x3DCCCCCD) rounded to bfloat16");
    }

    @Test
    void fillFloatBufferFromAnInteger() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(DType.F32, 8);
        await(s.enqueueFill(d, 3));
        float[] out = new float[8];
        await(s.enqueueCopy(d, HostData.of(out)));
        assertArrayEquals(new float[] {3, 3, 3, 3, 3, 3, 3, 3}, out);
    }

    @Test
    void fillUnsigned64WithTheFullRange() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(DType.U64, 4);
        await(s.enqueueFill(d, BigInteger.TWO.pow(64).subtract(BigInteger.ONE)));
        long[] out = new long[4];
        await(s.enqueueCopy(d, HostData.of(out)));
        assertArrayEquals(new long[] {-1, -1, -1, -1}, out, "2^64 - 1 is all ones");
    }

    @Test
    void memsetSetsEveryByteOfTheSliceOnly() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = intBuffer(ctx, filled(N, 0x01010101));
        await(s.enqueueMemset(d.slice(OFFSET, COUNT), 0xAB));
        int[] expected = filled(N, 0x01010101);
        for (int i = OFFSET; i < OFFSET + COUNT; i++) {
            expected[i] = 0xABABABAB;
        }
        assertArrayEquals(expected, readInts(s, d));
    }

    @Test
    void memsetOfOddSizedByteSlice() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(DType.U8, 13);
        s.enqueueMemset(d, 0);
        await(s.enqueueMemset(d.slice(1, 7), 0x5C));
        byte[] out = new byte[13];
        await(s.enqueueCopy(d, HostData.of(out)));
        assertArrayEquals(new byte[] {0, 0x5C, 0x5C, 0x5C, 0x5C, 0x5C, 0x5C, 0x5C, 0, 0, 0, 0, 0}, out);
    }

    @Test
    void memsetAcceptsSignedByteValues() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(DType.I64, 3);
        await(s.enqueueMemset(d, -1));
        long[] out = new long[3];
        await(s.enqueueCopy(d, HostData.of(out)));
        assertArrayEquals(new long[] {-1, -1, -1}, out, "-1 sets every byte to 0xFF");
    }

    @Test
    void fillsOnOneStreamApplyInOrder() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(DType.I32, 64);
        for (int i = 0; i < 50; i++) {
            s.enqueueFill(d.slice(i % 7, 64 - i % 7), i);
        }
        int[] out = readInts(s, d);
        int[] expected = new int[64];
        for (int i = 0; i < 50; i++) {
            for (int j = i % 7; j < 64; j++) {
                expected[j] = i;
            }
        }
        assertArrayEquals(expected, out);
    }
}
