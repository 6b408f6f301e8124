package dev.sluice;

import java.lang.ref.Cleaner;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The safety net under {@code close()}: memory whose every public handle became unreachable while still open is freed
 * in stream order, as {@code close()} would have, and reported as a leak (Netty's {@code ResourceLeakDetector} is the
 * model). The system property {@code sluice.leakDetection} picks the report:
 * <ul>
 * <li>{@code off}: leaks are freed and not reported;
 * <li>{@code sampled} (the default): every leak is logged once, as a warning of logger {@code dev.sluice.leaks}; one
 * allocation in {@value #SAMPLE_INTERVAL} also records where it was made (a stack trace costs microseconds), and its
 * report includes it;
 * <li>{@code paranoid}: every allocation records where it was made.
 * </ul>
 * The net runs on one daemon thread ({@code sluice-leaks}) for the JVM. It is a net, not a way to manage memory: the
 * memory comes back only after a garbage collection notices the handles are gone.
 */
final class LeakDetector {

    /** What leak reports record. */
    enum Mode {
        OFF, SAMPLED, PARANOID
    }

    /** One allocation in this many records its site under {@link Mode#SAMPLED}. */
    static final int SAMPLE_INTERVAL = 64;

    static final Mode MODE = mode(System.getProperty(SluiceProperties.LEAK_DETECTION, "sampled"));

    private static final System.Logger LOG = System.getLogger("dev.sluice.leaks");
    private static final Cleaner CLEANER = Cleaner.create(Thread.ofPlatform().daemon().name("sluice-leaks").factory());
    private static final AtomicLong ALLOCATIONS = new AtomicLong();
    private static final AtomicLong LEAKS = new AtomicLong();

    private LeakDetector() {
    }

    private static Mode mode(String value) {
        try {
            return Mode.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, SluiceProperties.LEAK_DETECTION + "=" + value + " is not one of off, sampled, paranoid; using sampled");
            return Mode.SAMPLED;
        }
    }

    /**
     * Watches {@code handle}: once it is unreachable, if {@code closed} is still false, sets it and runs {@code release}
     * on the net's thread, reporting a leak of {@code what}.
     *
     * @param handle  the object every public view of the resource holds, and nothing internal does
     * @param what    describes the resource in the report; must not refer to {@code handle}
     * @param release frees the resource as {@code close()} does; must not refer to {@code handle}
     */
    static Cleaner.Cleanable watch(Object handle, AtomicBoolean closed, Supplier<String> what, Runnable release) {
        Throwable site = null;
        if (MODE == Mode.PARANOID || (MODE == Mode.SAMPLED && ALLOCATIONS.getAndIncrement() % SAMPLE_INTERVAL == 0)) {
            site = new Throwable("allocated here");
        }
        return CLEANER.register(handle, new Leak(closed, what, release, site));
    }

    /** How many leaks the net has freed in this JVM. */
    static long leaks() {
        return LEAKS.get();
    }

    private record Leak(AtomicBoolean closed, Supplier<String> what, Runnable release, @Nullable Throwable site)
            implements Runnable {
        @Override
        public void run() {
            if (!closed.compareAndSet(false, true)) {
                return; // closed by its owner (close() cleans explicitly, which lands here too)
            }
            LEAKS.incrementAndGet();
            if (MODE != Mode.OFF) {
                String message = "LEAK: " + what.get() + " became unreachable without close(); freed by the leak detector."
                        + (site == null ? " Run with -Dsluice.leakDetection=paranoid to see where it was allocated." : "");
                LOG.log(System.Logger.Level.WARNING, message, site);
            }
            try {
                release.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "freeing a leaked resource failed", e);
            }
        }
    }
}
