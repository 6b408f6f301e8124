package dev.sluice;

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
    static void notConfined(String argument, java.lang.foreign.MemorySegment segment) {
        if (!segment.isAccessibleBy(ANOTHER_THREAD)) {
            throw new InvalidArgumentException(argument, "segment belongs to a confined arena, which only its owner thread"
                    + " may access; Sluice reads and writes host memory in stream order on threads of its own: use"
                    + " Arena.ofShared(), Arena.ofAuto() or a HostBuffer");
        }
    }

    static void sameSize(String what, long sourceBytes, long destinationBytes) {
        if (sourceBytes != destinationBytes) {
            throw new InvalidArgumentException(what, "source has " + sourceBytes + " bytes but destination has "
                    + destinationBytes + " bytes; copy a slice or pass an explicit range");
        }
    }

    static void sameType(String argument, DType expected, DType actual) {
        if (expected != actual) {
            throw new InvalidArgumentException(argument, "element type " + actual + " does not match " + expected);
        }
    }
}
