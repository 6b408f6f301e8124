package dev.sluice;

/**
 * Grid, block or cluster dimensions. {@code Dim.of(64)} is (64, 1, 1), like Mojo's {@code Dim(64)}.
 *
 * @param x first dimension, at least 1
 * @param y second dimension, at least 1
 * @param z third dimension, at least 1
 */
public record Dim(int x, int y, int z) {

    /** Checks that every extent is at least 1. */
    public Dim {
        if (x < 1 || y < 1 || z < 1) {
            throw new InvalidArgumentException("dim", "(" + x + ", " + y + ", " + z + ") has a dimension below 1");
        }
    }

    /** A one-dimensional extent {@code (x, 1, 1)}. */
    public static Dim of(int x) {
        return new Dim(x, 1, 1);
    }

    /** A two-dimensional extent {@code (x, y, 1)}. */
    public static Dim of(int x, int y) {
        return new Dim(x, y, 1);
    }

    /** A three-dimensional extent {@code (x, y, z)}. */
    public static Dim of(int x, int y, int z) {
        return new Dim(x, y, z);
    }

    /** x·y·z. */
    public long volume() {
        return (long) x * y * z;
    }

    @Override
    public String toString() {
        return "(" + x + ", " + y + ", " + z + ")";
    }
}
