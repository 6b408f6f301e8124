package dev.sluice.engine;

/**
 * The shape of a pitched 2-D copy, in bytes, checked by the caller: rows of {@code widthBytes}, {@code height} of them,
 * {@code sourcePitch} and {@code destinationPitch} bytes apart.
 */
public record Pitched(long sourcePitch, long destinationPitch, long widthBytes, long height) {

    /** The bytes copied. */
    long bytes() {
        return widthBytes * height;
    }
}
