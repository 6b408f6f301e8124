package dev.sluice.flink;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;

/**
 * A Flink {@link Histogram} of the latest {@link #WINDOW} values: flink-metrics-core has the interface only, and Flink's
 * own implementation ({@code DescriptiveStatisticsHistogram}) is an internal class of flink-runtime. Updated from the
 * threads that complete elements or operations (a context's completion thread, the copy threads, the stage's own);
 * read by reporters. Each {@link #getStatistics()} copies and sorts the window: reporters ask every few seconds,
 * updates come far more often.
 *
 * <p><b>No lock.</b> An update takes its number from {@link #count} ({@code getAndAdd}) and stores its value, with the
 * round of the window it belongs to, in one {@code long} slot: one atomic add and one store, where a lock took two
 * atomic operations, and writers never wait for each other or for a reader (docs/benchmarks.md, "The latency
 * histogram's lock": about 7 against 14 ns an update on one thread, a third or less of the lock's with two writers
 * contending; {@code LatencyHistogramBench} measures it). A slot holds the value in
 * its low {@value #VALUE_BITS} bits (two's complement: {@link #MIN_VALUE} to {@link #MAX_VALUE}, over a year in
 * nanoseconds; a value outside is recorded as the nearer bound) and the round in the 8 above.
 *
 * <p><b>What the statistics hold.</b> The values of updates {@code count - n} to {@code count - 1} (n the window, or
 * fewer before it has filled), each exactly as recorded. An update that has taken its number but not yet stored its
 * value is left out, as is one whose slot a later update has taken meanwhile: the statistics may hold a few values fewer
 * while writers race the reader, never a value that was not recorded. A writer stalled between its two steps for a
 * whole round of the window (1,024 updates of other threads) stores its value over a later one, which is then missing
 * until its slot's next round; after 256 rounds of such a stall its value would count again, as a value of an older
 * round.
 */
final class LatencyHistogram implements Histogram {

    /** The values the statistics are computed over: the latest 1,024. */
    static final int WINDOW = 1024;
    /** Bits of a slot that hold the value; the 8 above them hold the round of the window it was recorded in. */
    static final int VALUE_BITS = 56;
    /** The largest value recorded as it is: 2^55 - 1 (417 days in nanoseconds). */
    static final long MAX_VALUE = (1L << (VALUE_BITS - 1)) - 1;
    /** The smallest value recorded as it is: -2^55. */
    static final long MIN_VALUE = -(1L << (VALUE_BITS - 1));
    private static final long VALUE_MASK = (1L << VALUE_BITS) - 1;

    private static final VarHandle COUNT;
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(LatencyHistogram.class, "count", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Slot {@code n % length} holds update n's value and the tag of its round ({@link #tag}); 0, no round's tag, until
     * written. Read and written opaquely: a slot is one value, publishing nothing else.
     */
    private final long[] slots;
    /** log2 of the window: update n is of round {@code n >>> roundShift}. */
    private final int roundShift;
    /** Updates since the start, each counted once it has its number: the next update's number. Through COUNT. */
    private volatile long count;

    LatencyHistogram() {
        this(WINDOW);
    }

    /** A histogram over the latest {@code window} values, a power of two (a slot's index is a mask of the number). */
    LatencyHistogram(int window) {
        if (window < 1 || Integer.bitCount(window) != 1) {
            throw new IllegalArgumentException("window " + window + " must be a power of two, at least 1");
        }
        this.slots = new long[window];
        this.roundShift = Integer.numberOfTrailingZeros(window);
    }

    /** The tag of update {@code n}'s round, in the slot's top 8 bits: 1 to 255 and 0 in turn, never 0 in round 0. */
    private long tag(long n) {
        return (((n >>> roundShift) + 1) & 0xFF) << VALUE_BITS;
    }

    /** Records {@code value} (clamped to {@link #MIN_VALUE} .. {@link #MAX_VALUE}); from any thread, never waits. */
    @Override
    public void update(long value) {
        store(number(), value);
    }

    /** The first step of an update: its number, counted at once. */
    long number() {
        return (long) COUNT.getAndAdd(this, 1L);
    }

    /** The second step of update {@code n}: its value into its slot, tagged with its round. */
    void store(long n, long value) {
        SLOTS.setOpaque(slots, (int) n & (slots.length - 1),
                tag(n) | (Math.clamp(value, MIN_VALUE, MAX_VALUE) & VALUE_MASK));
    }

    /** Every value recorded since the start (or being recorded now). */
    @Override
    public long getCount() {
        return count;
    }

    @Override
    public HistogramStatistics getStatistics() {
        long end = count; // a volatile read: the slots are read after it
        int n = (int) Math.min(end, slots.length);
        long[] values = new long[n];
        int found = 0;
        for (long u = end - n; u < end; u++) {
            long slot = (long) SLOTS.getOpaque(slots, (int) u & (slots.length - 1));
            if ((slot & ~VALUE_MASK) == tag(u)) { // else not stored yet, or a later update's
                values[found++] = (slot << (Long.SIZE - VALUE_BITS)) >> (Long.SIZE - VALUE_BITS); // sign-extended
            }
        }
        if (found < n) {
            values = Arrays.copyOf(values, found);
        }
        Arrays.sort(values);
        return new Statistics(values);
    }

    /** The statistics of a sorted snapshot of the window. */
    private static final class Statistics extends HistogramStatistics {
        private final long[] sorted;

        Statistics(long[] sorted) {
            this.sorted = sorted;
        }

        /** Nearest rank: the smallest value that at least {@code quantile} of the values do not exceed; NaN if empty. */
        @Override
        public double getQuantile(double quantile) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(quantile * sorted.length);
            return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
        }

        @Override
        public long[] getValues() {
            return sorted.clone();
        }

        @Override
        public int size() {
            return sorted.length;
        }

        @Override
        public double getMean() {
            if (sorted.length == 0) {
                return 0;
            }
            double sum = 0;
            for (long v : sorted) {
                sum += v;
            }
            return sum / sorted.length;
        }

        /** The sample standard deviation (n - 1); 0 for fewer than two values. */
        @Override
        public double getStdDev() {
            if (sorted.length < 2) {
                return 0;
            }
            double mean = getMean();
            double squares = 0;
            for (long v : sorted) {
                squares += (v - mean) * (v - mean);
            }
            return Math.sqrt(squares / (sorted.length - 1));
        }

        @Override
        public long getMax() {
            return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
        }

        @Override
        public long getMin() {
            return sorted.length == 0 ? 0 : sorted[0];
        }
    }
}
