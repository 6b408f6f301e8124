package dev.sluice;

import dev.sluice.engine.Pitched;

/**
 * The checked shape of a pitched 2-D copy, in bytes: {@code height} rows of {@code widthBytes}, the source's rows
 * {@code sourcePitch} bytes apart and the destination's {@code destinationPitch}. Made by {@link #of}, which checks the
 * arguments of {@code DeviceStream.enqueueCopy2D} given in elements; {@link #span} is what each side must hold.
 */
record PitchedCopy(long sourcePitch, long destinationPitch, long widthBytes, long height, long sourceSpan,
        long destinationSpan) {

    /**
     * Checks a rectangle given in elements of {@code elementBytes} and returns it in bytes.
     *
     * @throws InvalidArgumentException naming the argument: a width, height or pitch that is not positive, a pitch less
     *                                  than the width, or a rectangle whose extent overflows a {@code long} of bytes
     */
    static PitchedCopy of(int elementBytes, long sourcePitch, long destinationPitch, long width, long height) {
        Checks.positive("width", width);
        Checks.positive("height", height);
        pitch("sourcePitch", sourcePitch, width);
        pitch("destinationPitch", destinationPitch, width);
        long sourceSpan = span("sourcePitch", sourcePitch, width, height, elementBytes);
        long destinationSpan = span("destinationPitch", destinationPitch, width, height, elementBytes);
        // width <= pitch and the span fits in a long, so these products do too
        return new PitchedCopy(sourcePitch * elementBytes, destinationPitch * elementBytes, width * elementBytes, height,
                sourceSpan, destinationSpan);
    }

    private static void pitch(String argument, long pitch, long width) {
        if (pitch < width) {
            throw new InvalidArgumentException(argument, "value " + pitch + " is less than the width " + width
                    + ": rows would overlap");
        }
    }

    /** Bytes from the first to the last byte of the rectangle: (height - 1) rows of pitch, then one of width. */
    private static long span(String argument, long pitch, long width, long height, int elementBytes) {
        try {
            return Math.multiplyExact(Math.addExact(Math.multiplyExact(height - 1, pitch), width), (long) elementBytes);
        } catch (ArithmeticException e) {
            throw new InvalidArgumentException(argument, "height " + height + " times pitch " + pitch + " elements of "
                    + elementBytes + " bytes overflows a long byte count");
        }
    }

    /** The shape as the engine copies it, in bytes. */
    Pitched pitched() {
        return new Pitched(sourcePitch, destinationPitch, widthBytes, height);
    }

    /** The bytes the copy moves: height rows of width. */
    long bytes() {
        return widthBytes * height;
    }

    /**
     * Checks that a side of {@code size} bytes holds the rectangle's extent {@code span}.
     *
     * @throws InvalidArgumentException naming {@code argument} if it does not
     */
    void fits(String argument, long span, long size, long pitchBytes, int elementBytes, Object what) {
        if (span > size) {
            throw new InvalidArgumentException(argument, "rectangle of " + height + " rows of " + widthBytes / elementBytes
                    + " elements, " + pitchBytes / elementBytes + " elements apart, spans " + span / elementBytes
                    + " elements, past the end of " + what + " of " + size / elementBytes + " elements");
        }
    }
}
