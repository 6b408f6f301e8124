package dev.sluice;

import java.lang.foreign.MemorySegment;

/** Argument checks shared by the public classes; each message names the argument, the value and the bound. */
final class Checks {

    private Checks() {
    }

    static <T> T notNull(String argument, T value) {
        if (value == null) {
            throw new InvalidArgumentException(argument, "must not be null");
        }
        return value;
    }

    static long positive(String argument, long value) {
        if (value <= 0) {
            throw new InvalidArgumentException(argument, "value " + value + " must be positive");
        }
        return value;
    }

    static long nonNegative(String argument, long value) {
        if (value < 0) {
            throw new InvalidArgumentException(argument, "value " + value + " is negative");
        }
        return value;
    }

    /** offset and count (in elements) must lie within a buffer of {@code size} elements. */
    static void range(String what, long offset, long count, long size) {
        nonNegative(what + "Offset", offset);
        positive("count", count);
        if (offset > size || count > size - offset) {
            throw new InvalidArgumentException("count", "range of " + count + " elements at offset " + offset
                    + " exceeds " + what + " of " + size + " elements");
        }
    }

    /** An unstarted thread: a segment it may access is not confined to the caller's thread. */
    private static final Thread ANOTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });

    /**
     * Host memory handed to the library (copied from or to in stream order, or registered) is touched on threads of
     * the library's choosing: a segment of a confined arena, which only its owner thread may touch, cannot be.
     */
    static void notConfined(String argument, MemorySegment segment) {
        alive(argument, segment);
        if (!segment.isAccessibleBy(ANOTHER_THREAD)) {
            throw new InvalidArgumentException(argument, "segment belongs to a confined arena, which only its owner thread"
                    + " may access; Sluice reads and writes host memory in stream order on threads of its own: use"
                    + " Arena.ofShared(), Arena.ofAuto() or a HostBuffer");
        }
    }

    /**
     * Host memory handed to the library must still be allocated: a segment of a closed arena (or a buffer viewing one)
     * would be read or written after it was freed, in stream order, and fault the context.
     *
     * @throws InvalidArgumentException naming {@code argument} if the segment's arena is closed
     */
    static MemorySegment alive(String argument, MemorySegment segment) {
        notNull(argument, segment);
        if (!segment.scope().isAlive()) {
            throw new InvalidArgumentException(argument, "segment of " + segment.byteSize() + " bytes at 0x"
                    + Long.toHexString(segment.address()) + " belongs to an arena that is already closed; its memory is freed");
        }
        return segment;
    }

    /**
     * The longest kernel name: far beyond any real one, and short enough that the class generated for a
     * kernel-language kernel, named after it, stays within the JVM's 65,535-byte limit of a name in a class file.
     */
    static final int MAX_KERNEL_NAME = 1024;

    /**
     * A kernel's name: a {@linkplain #identifier C identifier} of at most {@link #MAX_KERNEL_NAME}
     * characters.
     *
     * @throws InvalidArgumentException naming {@code argument} as {@link #identifier} does, or for a longer name
     */
    static String kernelName(String argument, String name) {
        identifier(argument, name);
        if (name.length() > MAX_KERNEL_NAME) {
            throw new InvalidArgumentException(argument, "a name of " + name.length() + " characters ('"
                    + name.substring(0, 16) + "...') is longer than the " + MAX_KERNEL_NAME + " characters allowed");
        }
        return name;
    }

    /**
     * A C identifier, as kernel and parameter names must be (they are written into the kernel's source and
     * signature checks).
     *
     * @throws InvalidArgumentException naming {@code argument} for null, an empty name or one that is not a C identifier
     */
    static String identifier(String argument, String name) {
        notNull(argument, name);
        if (!isIdentifier(name)) {
            throw new InvalidArgumentException(argument, "'" + name + "' is not a C identifier (a letter or '_', then"
                    + " letters, digits or '_')");
        }
        return name;
    }

    private static boolean isIdentifier(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
            if (!letter && (i == 0 || c < '0' || c > '9')) {
                return false;
            }
        }
        return true;
    }

    /** Every element of {@code values} non-null; the message names the index. */
    static <T> T[] noNulls(String argument, T[] values) {
        notNull(argument, values);
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                throw new InvalidArgumentException(argument, "element " + i + " of " + values.length + " must not be null");
            }
        }
        return values;
    }

    static void sameSize(String what, long sourceBytes, long destinationBytes) {
        if (sourceBytes != destinationBytes) {
            throw new InvalidArgumentException(what, "source has " + sourceBytes + " bytes but destination has "
                    + destinationBytes + " bytes; copy a slice of the larger side (DeviceBuffer.slice, HostBuffer.slice,"
                    + " HostData.of(array, from, count))");
        }
    }

    static void sameType(String argument, DType expected, DType actual) {
        if (expected != actual) {
            throw new InvalidArgumentException(argument, "element type " + actual + " does not match " + expected);
        }
    }
}
