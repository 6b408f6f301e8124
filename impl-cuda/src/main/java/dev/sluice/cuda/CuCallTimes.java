package dev.sluice.cuda;

import dev.sluice.SluiceProperties;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A measuring aid ({@value SluiceProperties.Measurement#CUDA_TIME_DOWNCALLS}): wraps each driver downcall's handle so
 * that every call adds its wall time to its function's tally, and prints the tallies when the JVM exits. A sampling
 * profiler stops at the downcall's stub and cannot tell which driver function the host's time went to; this can. Off,
 * the handles are returned as they are and cost nothing.
 */
final class CuCallTimes {

    static final boolean ON = Boolean.getBoolean(SluiceProperties.Measurement.CUDA_TIME_DOWNCALLS);

    private static final Map<String, Tally> TALLIES = new ConcurrentHashMap<>();
    private static final MethodHandle NANO_TIME;
    private static final MethodHandle RECORD;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NANO_TIME = lookup.findStatic(System.class, "nanoTime", MethodType.methodType(long.class));
            RECORD = lookup.findVirtual(Tally.class, "record",
                    MethodType.methodType(int.class, Throwable.class, int.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        if (ON) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.print(report()), "sluice-downcall-times"));
        }
    }

    private CuCallTimes() {
    }

    /** One driver function's calls and their total time. */
    static final class Tally {
        final LongAdder calls = new LongAdder();
        final LongAdder nanos = new LongAdder();

        /** The cleanup of a timed call: adds its time, passes its result on. */
        int record(Throwable thrown, int result, long start) {
            nanos.add(System.nanoTime() - start);
            calls.increment();
            return result;
        }
    }

    /**
     * {@code downcall}, a handle of type {@code (...)int}, timed under {@code name} when timing is on; else itself. The
     * timed handle has the same type.
     */
    static MethodHandle wrap(String name, MethodHandle downcall) {
        return ON ? timed(name, downcall) : downcall;
    }

    /** {@code downcall}, of type {@code (...)int}, timed under {@code name}, whether timing is on or not. */
    static MethodHandle timed(String name, MethodHandle downcall) {
        Tally t = TALLIES.computeIfAbsent(name, n -> new Tally());
        // (long start, args...) -> int, then the tally's record in a finally, then start := System.nanoTime()
        MethodHandle body = MethodHandles.dropArguments(downcall, 0, long.class);
        MethodHandle timed = MethodHandles.tryFinally(body, RECORD.bindTo(t));
        return MethodHandles.foldArguments(timed, NANO_TIME);
    }

    /** The tallies, largest total first: function, calls, total milliseconds, nanoseconds per call. */
    static String report() {
        List<Map.Entry<String, Tally>> rows = new ArrayList<>(TALLIES.entrySet());
        rows.removeIf(e -> e.getValue().calls.sum() == 0);
        rows.sort((a, b) -> Long.compare(b.getValue().nanos.sum(), a.getValue().nanos.sum()));
        StringBuilder out = new StringBuilder("sluice CUDA driver calls (" + SluiceProperties.Measurement.CUDA_TIME_DOWNCALLS
                + "): function, calls, total ms, ns per call\n");
        for (Map.Entry<String, Tally> e : rows) {
            long calls = e.getValue().calls.sum();
            long nanos = e.getValue().nanos.sum();
            out.append(String.format(Locale.ROOT, "downcall %-34s %12d %12.3f %10.1f%n", e.getKey(), calls, nanos / 1e6,
                    (double) nanos / calls));
        }
        return out.toString();
    }
}
