package dev.sluice.arrow;

import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.jspecify.annotations.Nullable;

/**
 * The buffers of one Arrow vector that a copy moves, with their byte lengths for its value count: the validity bitmap
 * ({@code ceil(n / 8)} bytes), the offsets of a variable-width vector ({@code n + 1} of them) and the values. A vector
 * of {@code n == 0} values moves nothing. Checked against the buffers' capacities, so that a copy never reads past
 * them.
 */
record ColumnLayout(FieldVector vector, DType type, @Nullable DType offsetType, int valueCount, long validityBytes,
        long offsetBytes, long dataBytes) {

    static final String SUPPORTED = "Int (8, 16, 32, 64 bits, signed or not), FloatingPoint (HALF, SINGLE, DOUBLE),"
            + " Utf8, Binary, LargeUtf8, LargeBinary";

    /**
     * The layout of {@code vector} as it is now.
     *
     * @throws InvalidArgumentException naming {@code argument} for a null vector, a type Sluice has no element type for,
     *                                  or buffers that do not hold its value count (released, or never allocated)
     */
    static ColumnLayout of(String argument, @Nullable FieldVector vector) {
        if (vector == null) {
            throw new InvalidArgumentException(argument, "must not be null");
        }
        ArrowType arrowType = vector.getField().getType();
        DType type = elementType(arrowType);
        DType offsetType = offsetType(arrowType);
        if (type == null) {
            throw new InvalidArgumentException(argument, "vector " + vector.getName() + " of Arrow type " + arrowType
                    + " (" + vector.getClass().getSimpleName() + ") has no Sluice element type; supported: " + SUPPORTED);
        }
        int n = vector.getValueCount();
        if (n == 0) {
            return new ColumnLayout(vector, type, offsetType, 0, 0, 0, 0);
        }
        checkAlive(argument, vector);
        long validity = (n + 7L) / 8;
        long offsets = 0;
        long data;
        if (offsetType != null) {
            offsets = (n + 1L) * offsetType.byteSize();
            ArrowBuf o = vector.getOffsetBuffer();
            check(argument, vector, "offset", o, offsets);
            data = offsetType == DType.I32 ? o.getInt((long) n * 4) : o.getLong((long) n * 8);
        } else {
            data = (long) n * type.byteSize();
        }
        check(argument, vector, "data", vector.getDataBuffer(), data);
        if (vector.getValidityBuffer().capacity() < validity) {
            validity = 0; // no bitmap (a vector without nulls may have none): every value is valid
        }
        return new ColumnLayout(vector, type, offsetType, n, validity, offsets, data);
    }

    /**
     * Refuses a vector whose memory its context has freed, before anything reads it (the offsets below, a copy).
     *
     * @throws InvalidArgumentException naming {@code argument} where a buffer of {@code vector} is freed pinned memory
     */
    static void checkAlive(String argument, FieldVector vector) {
        ArrowType t = vector.getField().getType();
        if (t.isComplex()) {
            return; // a nested vector: no column Sluice reads, its buffers are its children's
        }
        checkAlive(argument, vector, vector.getValidityBuffer());
        if (offsetType(t) != null) {
            checkAlive(argument, vector, vector.getOffsetBuffer()); // a fixed-width vector has none: it would throw
        }
        checkAlive(argument, vector, vector.getDataBuffer());
    }

    private static void checkAlive(String argument, FieldVector vector, ArrowBuf buffer) {
        String freed = PinnedAllocationFactory.freedMemory(buffer);
        if (freed != null) {
            throw new InvalidArgumentException(argument, "vector " + vector.getName() + " " + freed);
        }
    }

    /** Whether the bitmap is there to be copied: {@code false} for a vector without one. */
    boolean hasValidity() {
        return validityBytes > 0;
    }

    private static void check(String argument, FieldVector vector, String which, ArrowBuf buffer, long bytes) {
        if (buffer.refCnt() == 0 || buffer.capacity() < bytes) {
            throw new InvalidArgumentException(argument, "vector " + vector.getName() + " has " + vector.getValueCount()
                    + " values but its " + which + " buffer holds " + (buffer.refCnt() == 0 ? "nothing (released)"
                    : buffer.capacity() + " bytes") + " where they need " + bytes + " bytes");
        }
    }

    /** The element type of the values of {@code type}: U8 (bytes) for a variable-width type; null if unsupported. */
    static @Nullable DType elementType(ArrowType type) {
        DType fixed = fixedWidth(type);
        if (fixed != null) {
            return fixed;
        }
        return switch (type) {
            case ArrowType.Utf8 u -> DType.U8;
            case ArrowType.Binary b -> DType.U8;
            case ArrowType.LargeUtf8 u -> DType.U8;
            case ArrowType.LargeBinary b -> DType.U8;
            default -> null;
        };
    }

    /** The element type of a fixed-width type Sluice has one for (integers of 8 to 64 bits, floats); null for others. */
    static @Nullable DType fixedWidth(ArrowType type) {
        return switch (type) {
            case ArrowType.Int i -> switch (i.getBitWidth()) {
                case 8 -> i.getIsSigned() ? DType.I8 : DType.U8;
                case 16 -> i.getIsSigned() ? DType.I16 : DType.U16;
                case 32 -> i.getIsSigned() ? DType.I32 : DType.U32;
                case 64 -> i.getIsSigned() ? DType.I64 : DType.U64;
                default -> null;
            };
            case ArrowType.FloatingPoint f -> switch (f.getPrecision()) {
                case HALF -> DType.F16;
                case SINGLE -> DType.F32;
                case DOUBLE -> DType.F64;
            };
            default -> null;
        };
    }

    /** The element type of the offsets of a variable-width type (I32, or I64 for the large ones); null for others. */
    static @Nullable DType offsetType(ArrowType type) {
        return switch (type) {
            case ArrowType.Utf8 u -> DType.I32;
            case ArrowType.Binary b -> DType.I32;
            case ArrowType.LargeUtf8 u -> DType.I64;
            case ArrowType.LargeBinary b -> DType.I64;
            default -> null;
        };
    }
}
