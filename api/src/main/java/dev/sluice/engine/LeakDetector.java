package dev.sluice.engine;

import dev.sluice.SluiceProperties;
import java.lang.ref.Cleaner;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The safety net under {@code close()}: a resource whose every public handle became unreachable while still open is
 * released as {@code close()} would have released it, in the same order after the same work, and reported as a leak
 * (Netty's {@code ResourceLeakDetector} is the model). It covers:
 * <ul>
 * <li>{@link DeviceBuffer}: the memory, once the buffer and all its views are unreachable, freed in stream order after
 * every operation enqueued on it;
 * <li>{@link HostBuffer}: the pinned memory, once the buffer and all its slices are unreachable, freed after every copy
 * enqueued on it. A buffer from {@link DeviceBuffer#mapToHost()} is freed without being copied back (the copy back
 * belongs to {@code close()}: run at a moment the garbage collector picks, it could overwrite what later work wrote to
 * the device buffer). A buffer whose {@link HostBuffer#segment()} was ever handed out is reported but left allocated
 * until its context closes: the segment may still be in use, and freeing pinned memory under it would crash the JVM;
 * <li>{@link DeviceEvent}: destroyed once unreachable; a record or wait enqueued on it keeps it reachable until the
 * device has finished that operation, and a graph that captured one keeps it for the graph's life. An event whose
 * {@link DeviceEvent#nativeHandle()} was handed out is reported but left to its context's close;
 * <li>{@link DeviceFunction}: unloaded once unreachable; a launch keeps it reachable until the device has finished
 * the launch, and a graph that captured one keeps it. A function one of whose module variables was handed out
 * ({@link DeviceFunction#global}) is reported but left to its context's close: a copy enqueued on the variable keeps
 * neither the view nor the function reachable, and unloading the module would free the variable under it.
 * </ul>
 * Not covered: {@link DeviceStream}s. A stream is reachable from its context's completion thread for its whole life
 * (its completion queue holds its last future, which names the stream; memory allocated in its order names it as the
 * home its free is ordered on), and closing one waits for its work, which the net's single thread must not do. An
 * unclosed stream is destroyed by its context's close. Whatever the net releases is released once: a resource closed
 * explicitly is not released again, and one the net released is not released again by its context's close.
 *
 * <p>The system property {@code sluice.leakDetection} picks the report:
 * <ul>
 * <li>{@code off}: leaks are released and not reported;
 * <li>{@code sampled} (the default): every leak is logged once, as a warning of logger {@code dev.sluice.leaks} that
 * names the resource; one allocation in {@value #SAMPLE_INTERVAL} also records where it was made (a stack trace costs
 * microseconds), and its report includes it;
 * <li>{@code paranoid}: every allocation records where it was made.
 * </ul>
 * The net runs on one daemon thread ({@code sluice-leaks}) for the JVM; what it runs never blocks on the device (a
 * release waits for earlier work by stream order or by the streams' completed sequences, not by waiting) and never
 * throws. It is a net, not a way to manage resources: they come back only after a garbage collection notices the
 * handles are gone.
 */
public final class LeakDetector {

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

    /** Releases a leaked resource as {@code close()} would, without blocking; may throw (the net logs it). */
    @FunctionalInterface
    public interface Release {
        /** Releases the resource, or leaves it allocated and returns why; null once released. */
        @Nullable String release();
    }

    /**
     * Watches {@code handle}: once it is unreachable, if {@code closed} is still false, sets it and runs {@code release}
     * on the net's thread, reporting a leak of {@code what}.
     *
     * @param handle  the object every public view of the resource holds, and nothing internal does except what uses the
     *                resource (a pending operation, a graph)
     * @param what    describes the resource in the report; must not refer to {@code handle}
     * @param release frees the resource as {@code close()} does; must not refer to {@code handle}
     */
    public static Cleaner.Cleanable watch(Object handle, AtomicBoolean closed, Supplier<String> what, Release release) {
        Throwable site = null;
        if (MODE == Mode.PARANOID || (MODE == Mode.SAMPLED && ALLOCATIONS.getAndIncrement() % SAMPLE_INTERVAL == 0)) {
            site = new Throwable("allocated here");
        }
        return CLEANER.register(handle, new Leak(closed, what, release, site));
    }

    /** How many leaks the net has found (and released, or left to their contexts' close) in this JVM. */
    public static long leaks() {
        return LEAKS.get();
    }

    private record Leak(AtomicBoolean closed, Supplier<String> what, Release release, @Nullable Throwable site)
            implements Runnable {
        @Override
        public void run() {
            if (!closed.compareAndSet(false, true)) {
                return; // closed by its owner (close() cleans explicitly, which lands here too)
            }
            LEAKS.incrementAndGet();
            String left;
            try {
                left = release.release();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "releasing a leaked resource failed", e);
                left = "releasing it failed (" + e + ")";
            }
            if (MODE != Mode.OFF) {
                try {
                    String message = "LEAK: " + what.get() + " became unreachable without close(); "
                            + (left == null ? "freed by the leak detector." : "left to its context's close: " + left + ".")
                            + (site == null ? " Run with -Dsluice.leakDetection=paranoid to see where it was allocated." : "");
                    LOG.log(System.Logger.Level.WARNING, message, site);
                } catch (RuntimeException e) { // a logging back end that throws must not stop the net's thread
                    LOG.log(System.Logger.Level.DEBUG, "reporting a leak failed", e);
                }
            }
        }
    }
}
