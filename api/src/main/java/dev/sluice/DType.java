package dev.sluice;

/** Element types of buffers and kernel parameters, with their C names as kernels see them. */
public enum DType {
    BOOL(1, "bool", false, false),
    I8(1, "signed char", false, true),
    U8(1, "unsigned char", false, false),
    I16(2, "short", false, true),
    U16(2, "unsigned short", false, false),
    F16(2, "__half", true, true),
    BF16(2, "__nv_bfloat16", true, true),
    I32(4, "int", false, true),
    U32(4, "unsigned int", false, false),
    F32(4, "float", true, true),
    I64(8, "long long", false, true),
    U64(8, "unsigned long long", false, false),
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

    public boolean isFloatingPoint() {
        return floating;
    }

    public boolean isSigned() {
        return signed;
    }

    /**
     * The raw element bits of {@code value} in this type, used by fills and scalar kernel arguments.
     * Integer types accept any integral {@link Number} whose value fits; F32 and F64 accept any number;
     * F16 and BF16 accept floating values and round to nearest even.
     *
     * @throws InvalidArgumentException naming {@code argument}, the value and the type's range
     */
    public long bits(String argument, Number value) {
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
        if (value instanceof Float || value instanceof Double) {
            throw new InvalidArgumentException(argument, "value " + value + " is floating-point but the type is " + this
                    + " (" + cName + ")");
        }
        long v = value.longValue();
        if (value instanceof java.math.BigInteger big && big.bitLength() > 63) {
            if (this != U64 || big.signum() < 0 || big.bitLength() > 64) {
                throw outOfRange(argument, value);
            }
            return big.longValue();
        }
        long min;
        long max;
        switch (this) {
            case BOOL -> { min = 0; max = 1; }
            case I8 -> { min = Byte.MIN_VALUE; max = Byte.MAX_VALUE; }
            case U8 -> { min = 0; max = 0xFF; }
            case I16 -> { min = Short.MIN_VALUE; max = Short.MAX_VALUE; }
            case U16 -> { min = 0; max = 0xFFFF; }
            case I32 -> { min = Integer.MIN_VALUE; max = Integer.MAX_VALUE; }
            case U32 -> { min = 0; max = 0xFFFF_FFFFL; }
            case I64 -> { min = Long.MIN_VALUE; max = Long.MAX_VALUE; }
            case U64 -> { min = 0; max = Long.MAX_VALUE; }
            default -> throw new AssertionError(this);
        }
        if (v < min || v > max) {
            throw outOfRange(argument, value);
        }
        return byteSize == 8 ? v : v & ((1L << (8 * byteSize)) - 1);
    }

    private InvalidArgumentException outOfRange(String argument, Number value) {
        return new InvalidArgumentException(argument, "value " + value + " does not fit " + this + " (" + cName + ")");
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
