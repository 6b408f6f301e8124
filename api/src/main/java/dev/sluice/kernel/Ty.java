package dev.sluice.kernel;

import dev.sluice.DType;
import java.util.Arrays;
import java.util.Optional;

/**
 * The types of the kernel language, each one {@link DType}. Values of the types narrower than {@code i32} are promoted
 * to {@code i32} by arithmetic, as in C; on the JVM they travel as normalised ints (sign- or zero-extended, booleans 0 or 1).
 */
enum Ty {
    BOOL("bool", DType.BOOL),
    I8("i8", DType.I8),
    U8("u8", DType.U8),
    I16("i16", DType.I16),
    I32("i32", DType.I32),
    I64("i64", DType.I64),
    F32("f32", DType.F32),
    F64("f64", DType.F64);

    final String word;
    final DType dtype;

    Ty(String word, DType dtype) {
        this.word = word;
        this.dtype = dtype;
    }

    /** The language type spelled {@code word}, if it is a type keyword. */
    static Optional<Ty> ofWord(String word) {
        return Arrays.stream(values()).filter(t -> t.word.equals(word)).findFirst();
    }

    /** The language type of {@code type}, if the language has it. */
    static Optional<Ty> of(DType type) {
        return Arrays.stream(values()).filter(t -> t.dtype == type).findFirst();
    }

    /** The element types the language allows, for error messages. */
    static String supported() {
        return Arrays.stream(values()).map(t -> t.dtype.name()).toList().toString();
    }

    boolean isFloat() {
        return this == F32 || this == F64;
    }

    boolean isNumeric() {
        return this != BOOL;
    }

    /** The JVM keeps this type in one int slot (as opposed to a long, float or double). */
    boolean isIntLike() {
        return this != I64 && this != F32 && this != F64;
    }

    /** The type arithmetic computes this one in: narrow integers become {@code i32}, as in C and Java. */
    Ty promoted() {
        return switch (this) {
            case I8, U8, I16 -> I32;
            default -> this;
        };
    }

    /** The type binary arithmetic on {@code a} and {@code b} computes in (both numeric): C's usual conversions. */
    static Ty common(Ty a, Ty b) {
        Ty pa = a.promoted();
        Ty pb = b.promoted();
        return pa.ordinal() >= pb.ordinal() ? pa : pb;
    }

    /** Whether a value of this type converts to {@code to} without a cast: Java's widening conversions. */
    boolean widensTo(Ty to) {
        if (this == to) {
            return true;
        }
        return switch (this) {
            case BOOL -> false;
            case I8, U8 -> to == I16 || to == I32 || to == I64 || to.isFloat();
            case I16 -> to == I32 || to == I64 || to.isFloat();
            case I32 -> to == I64 || to.isFloat();
            case I64 -> to.isFloat();
            case F32 -> to == F64;
            case F64 -> false;
        };
    }

    @Override
    public String toString() {
        return word;
    }
}
