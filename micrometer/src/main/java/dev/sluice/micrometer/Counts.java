package dev.sluice.micrometer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * Counts that one thread writes and others read: a scrape reads them (acquire), their writer adds to them with a plain
 * read and a release store, which on x86 and ARM is no atomic instruction.
 *
 * <p>They lie between {@value #PAD} longs of padding on either side, so that no other object shares their cache
 * lines. Without it, counts that the enqueuing thread writes could share a line with counts that the completion thread
 * writes (the arrays are allocated one after the other), and each write would take the line from the other core: a
 * miss of some 50 ns per operation on one side or the other, and one that comes and goes with where the heap puts the
 * arrays, from one process to the next.
 */
final class Counts {

    private static final VarHandle AT = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs of padding before and after the counts: 128 bytes, since cores fetch lines in pairs. */
    private static final int PAD = 16;

    private final long[] values;
    private final int size;

    Counts(int size) {
        this.size = size;
        this.values = new long[PAD + size + PAD];
    }

    int size() {
        return size;
    }

    /** Count {@code i}, as last published. Any thread. */
    long get(int i) {
        return (long) AT.getAcquire(values, PAD + check(i));
    }

    /** Adds {@code n} to count {@code i} and returns its value before. The single writer of this count only. */
    long add(int i, long n) {
        int at = PAD + check(i);
        long before = values[at];
        AT.setRelease(values, at, before + n);
        return before;
    }

    /** Adds {@code n} to count {@code i} atomically, for a count that several threads write. */
    void addAtomic(int i, long n) {
        AT.getAndAdd(values, PAD + check(i), n);
    }

    /** The sum of every count. Any thread. */
    long sum() {
        long sum = 0;
        for (int i = 0; i < size; i++) {
            sum += get(i);
        }
        return sum;
    }

    private int check(int i) {
        return Objects.checkIndex(i, size);
    }
}
