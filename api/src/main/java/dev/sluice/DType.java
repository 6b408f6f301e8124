package dev.sluice;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAccumulator;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/** Element types of buffers and kernel parameters, with their C names as kernels see them. */
public enum DType {
    /** C++ {@code bool}, one byte holding 0 (false) or 1 (true). */
    BOOL(1, "bool", false, false),
    /** Signed 8-bit integer, -128..127 (Java {@code byte}). */
    I8(1, "signed char", false, true),
    /** Unsigned 8-bit integer, 0..255; Java reads its bits as a {@code byte}, so mask with {@code 0xFF}. */
    U8(1, "unsigned char", false, false),
    /** Signed 16-bit integer, -32768..32767 (Java {@code short}). */
    I16(2, "short", false, true),
    /** Unsigned 16-bit integer, 0..65535; Java reads its bits as a {@code short}, so mask with {@code 0xFFFF}. */
    U16(2, "unsigned short", false, false),
    /**
     * IEEE 754 half precision (binary16: 5-bit exponent, 10-bit fraction, largest finite value 65504). Java has no
     * such type: values are converted with {@link Float#floatToFloat16} and {@link Float#float16ToFloat}.
     */
    F16(2, "__half", true, true),
    /**
     * bfloat16: a {@code float} cut to its upper 16 bits (8-bit exponent, 7-bit fraction), so it has float's range
     * with about 3 significant decimal digits; {@link #bits} rounds to nearest even.
     */
    BF16(2, "__nv_bfloat16", true, true),
    /** Signed 32-bit integer (Java {@code int}). */
    I32(4, "int", false, true),
    /** Unsigned 32-bit integer, 0..2^32 - 1; Java reads its bits as an {@code int} ({@link Integer#toUnsignedLong}). */
    U32(4, "unsigned int", false, false),
    /** IEEE 754 single precision (Java {@code float}). */
    F32(4, "float", true, true),
    /** Signed 64-bit integer (Java {@code long}). */
    I64(8, "long long", false, true),
    /** Unsigned 64-bit integer, 0..2^64 - 1; Java reads its bits as a {@code long} ({@link Long#toUnsignedString}). */
    U64(8, "unsigned long long", false, false),
    /** IEEE 754 double precision (Java {@code double}). */
    F64(8, "double", true, true);

    private final int byteSize;
    private final String cName;
    private final boolean floating;
    private final boolean signed;

    DType(int byteSize, String cName, boolean floating, boolean signed) {
        this.byteSize = byteSize;
        this.cName = cName;
        this.floating = floating;
        this.signed = signed;
    }

    /** Bytes per element: 1, 2, 4 or 8. */
    public int byteSize() {
        return byteSize;
    }

    /** The C/C++ type a kernel declares for this element type. */
    public String cName() {
        return cName;
    }

    /**
     * Whether this is F16, BF16, F32 or F64: {@link #bits} rounds any number to such a type, where it checks an
     * integer type's range exactly.
     */
    public boolean isFloatingPoint() {
        return floating;
    }

    /** Whether the type holds negative values: the {@code I} and floating-point types, not BOOL or {@code U} ones. */
    public boolean isSigned() {
        return signed;
    }

    /**
     * The raw element bits of {@code value} in this type, used by fills and scalar kernel arguments.
     * Integer types accept an integral {@link Number} whose exact value fits: {@link Byte}, {@link Short},
     * {@link Integer}, {@link Long}, {@link AtomicInteger}, {@link AtomicLong}, {@link LongAdder},
     * {@link LongAccumulator}, {@link BigInteger}, and a {@link BigDecimal} without a fraction; any other
     * {@code Number} is accepted only where its {@code doubleValue()} is an integer that its {@code longValue()}
     * agrees with. F32 and F64 accept any number ({@code doubleValue()}, rounded to the type); F16 and BF16 round to
     * nearest even.
     *
     * @throws InvalidArgumentException naming {@code argument}, the value and the type's range: for a null value, a
     *                                  floating-point value ({@link Float}, {@link Double}, {@link DoubleAdder},
     *                                  {@link DoubleAccumulator}) or a value with a fraction for an integer type, a
     *                                  value outside the type's range, or a number whose value cannot be read exactly
     */
    public long bits(String argument, Number value) {
        if (argument == null) {
            throw new InvalidArgumentException("argument", "must not be null");
        }
        if (value == null) {
            throw new InvalidArgumentException(argument, "must not be null");
        }
        if (floating) {
            double d = value.doubleValue();
            return switch (this) {
                case F32 -> Float.floatToRawIntBits((float) d) & 0xFFFF_FFFFL;
                case F64 -> Double.doubleToRawLongBits(d);
                case F16 -> Float.floatToFloat16((float) d) & 0xFFFFL;
                case BF16 -> bfloat16((float) d);
                default -> throw new AssertionError(this);
            };
        }
        long v;
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte
                || value instanceof AtomicInteger || value instanceof AtomicLong || value instanceof LongAdder
                || value instanceof LongAccumulator) {
            v = value.longValue();
        } else if (value instanceof Float || value instanceof Double || value instanceof DoubleAdder
                || value instanceof DoubleAccumulator) {
            throw new InvalidArgumentException(argument, "value " + value + " (" + value.getClass().getSimpleName()
                    + ") is floating-point but the type is " + this + " (" + cName + "), range " + range());
        } else if (value instanceof BigInteger big) {
            return bitsOf(argument, value, big);
        } else if (value instanceof BigDecimal dec) {
            BigDecimal whole = dec.signum() == 0 ? BigDecimal.ZERO : dec.stripTrailingZeros();
            if (whole.scale() > 0) {
                throw fraction(argument, value);
            }
            if (whole.precision() - whole.scale() > 20) { // more than 20 digits: beyond every type, and not worth expanding
                throw outOfRange(argument, value);
            }
            return bitsOf(argument, value, whole.toBigIntegerExact());
        } else {
            Number whole = wholeOf(argument, value, value.doubleValue(), value.longValue());
            if (whole instanceof BigInteger big) {
                return bitsOf(argument, value, big);
            }
            v = whole.longValue();
        }
        return bitsOf(argument, value, v);
    }

    /**
     * The integer a {@link Number} of a kind this class does not know reads as, from one reading of its double and one
     * of its long: trusted only where they agree on an integer. A {@link Long}, or a {@link BigInteger} past 2^53 where
     * the double no longer holds every integer and the long must agree with it, read as unsigned past
     * {@link Long#MAX_VALUE}.
     *
     * @throws InvalidArgumentException naming {@code argument} for a value that is not finite, not whole, or whose two
     *                                  readings disagree
     */
    private Number wholeOf(String argument, Number value, double d, long l) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new InvalidArgumentException(argument, "value " + value + " (" + value.getClass().getName()
                    + ") is not a finite number; the type is " + this + " (" + cName + "), range " + range());
        }
        if (d != Math.rint(d)) {
            throw fraction(argument, value);
        }
        if (Math.abs(d) < 0x1p53) {
            if (l != (long) d) {
                throw inexact(argument, value, d, l);
            }
            return l;
        }
        BigInteger candidate = d >= 0x1p63 ? new BigInteger(Long.toUnsignedString(l)) : BigInteger.valueOf(l);
        if (candidate.doubleValue() != d) {
            throw inexact(argument, value, d, l);
        }
        return candidate;
    }

    /**
     * {@code value} as a number that cannot change: itself if it is an immutable kind ({@link Integer}, {@link Long},
     * {@link Double}, {@link BigInteger}...), else one reading of it, as {@link #bits} of this type reads it (an
     * {@link AtomicLong}'s long, a {@link DoubleAdder}'s double...). A launch checks and passes this one value, so that a
     * number another thread changes, or a {@code Number} that answers differently each time, cannot pass a check with
     * one value and launch with another.
     *
     * @throws InvalidArgumentException naming {@code argument} for a value of an unknown kind that {@link #bits} would
     *                                  refuse
     */
    Number readOnce(String argument, Number value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Double || value instanceof Float
                || value instanceof Short || value instanceof Byte || value instanceof BigInteger
                || value instanceof BigDecimal) {
            return value;
        }
        if (floating) {
            return value.doubleValue(); // all that bits reads of a floating-point type's value
        }
        if (value instanceof AtomicInteger || value instanceof AtomicLong || value instanceof LongAdder
                || value instanceof LongAccumulator) {
            return value.longValue();
        }
        if (value instanceof DoubleAdder || value instanceof DoubleAccumulator) {
            return value; // refused by bits for an integer type whatever its value
        }
        return wholeOf(argument, value, value.doubleValue(), value.longValue());
    }

    private long bitsOf(String argument, Number value, BigInteger big) {
        if (big.bitLength() <= 63) {
            return bitsOf(argument, value, big.longValue());
        }
        if (this != U64 || big.signum() < 0 || big.bitLength() > 64) {
            throw outOfRange(argument, value);
        }
        return big.longValue();
    }

    private long bitsOf(String argument, Number value, long v) {
        if (v < min() || (this != U64 && v > max())) {
            throw outOfRange(argument, value);
        }
        return byteSize == 8 ? v : v & ((1L << (8 * byteSize)) - 1);
    }

    /** The smallest value of an integer type. */
    private long min() {
        return switch (this) {
            case I8 -> Byte.MIN_VALUE;
            case I16 -> Short.MIN_VALUE;
            case I32 -> Integer.MIN_VALUE;
            case I64 -> Long.MIN_VALUE;
            default -> 0;
        };
    }

    /** The largest value of an integer type (U64's, 2^64 - 1, does not fit a long: see {@link #range()}). */
    private long max() {
        return switch (this) {
            case BOOL -> 1;
            case I8 -> Byte.MAX_VALUE;
            case U8 -> 0xFF;
            case I16 -> Short.MAX_VALUE;
            case U16 -> 0xFFFF;
            case I32 -> Integer.MAX_VALUE;
            case U32 -> 0xFFFF_FFFFL;
            case I64 -> Long.MAX_VALUE;
            case U64 -> -1;
            default -> throw new AssertionError(this);
        };
    }

    private String range() {
        return min() + ".." + (this == U64 ? Long.toUnsignedString(-1) : Long.toString(max()));
    }

    private InvalidArgumentException inexact(String argument, Number value, double d, long l) {
        return new InvalidArgumentException(argument, "value " + value + " (" + value.getClass().getName()
                + ") cannot be converted exactly: doubleValue() is " + d + " but longValue() is " + l + "; the type is "
                + this + " (" + cName + "), range " + range() + "; pass a Long or a BigInteger");
    }

    private InvalidArgumentException fraction(String argument, Number value) {
        return new InvalidArgumentException(argument, "value " + value + " (" + value.getClass().getSimpleName()
                + ") has a fraction but the type is " + this + " (" + cName + "), range " + range());
    }

    private InvalidArgumentException outOfRange(String argument, Number value) {
        return new InvalidArgumentException(argument, "value " + value + " (" + value.getClass().getSimpleName()
                + ") does not fit " + this + " (" + cName + "), range " + range());
    }

    private static long bfloat16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return ((bits >>> 16) | 0x40) & 0xFFFF;
        }
        int rounding = 0x7FFF + ((bits >>> 16) & 1);
        return ((bits + rounding) >>> 16) & 0xFFFF;
    }
}
