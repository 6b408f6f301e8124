package dev.sluice.engine;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * What a context's close and other threads wait for in each other: actions that wait for the close to finish (another
 * context's {@link LeftBehind}, watching for work of this one that will never run), and releases of what the context
 * owns running on other threads (a closed host buffer's free, the leak detector's), which the close waits for before it
 * closes the native context. Thread-safe.
 */
final class CloseHandshake {

    private static final System.Logger LOG = System.getLogger(CloseHandshake.class.getName());
    /** How long the close waits for releases on other threads (each one backend call) before closing anyway. */
    private static final long RELEASE_WAIT_NANOS = 10_000_000_000L;

    /** Run once the close has finished; null from then on. Under this object's monitor. */
    private @Nullable Set<Runnable> afterClose = new LinkedHashSet<>();
    private final AtomicInteger releasesInFlight = new AtomicInteger();

    /**
     * Runs {@code action} once the close has finished (at once, on the caller, if it has), on the closing thread.
     * Returns what unregisters the action, for a caller that no longer needs it (so that a long-lived context does not
     * gather actions).
     */
    Runnable afterClosed(Runnable action) {
        synchronized (this) {
            if (afterClose != null) {
                afterClose.add(action);
                return () -> {
                    synchronized (this) {
                        if (afterClose != null) {
                            afterClose.remove(action);
                        }
                    }
                };
            }
        }
        action.run();
        return () -> { };
    }

    /** How many {@link #afterClosed} actions wait (for tests: none is left behind). */
    synchronized int waiting() {
        return afterClose == null ? 0 : afterClose.size();
    }

    /** The close of the context named {@code context} has finished: runs the actions waiting for it, on the caller. */
    void closed(String context) {
        List<Runnable> actions;
        synchronized (this) {
            actions = afterClose == null ? List.of() : List.copyOf(afterClose);
            afterClose = null;
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "an action after the close of " + context + " failed", e);
            }
        }
    }

    /**
     * Notes a release that may run on another thread than the close, from before it claims the object to after the
     * backend call: {@link #awaitReleases} waits for it. Pair with {@link #endRelease}.
     */
    void beginRelease() {
        releasesInFlight.incrementAndGet();
    }

    /** See {@link #beginRelease}. */
    void endRelease() {
        releasesInFlight.decrementAndGet();
    }

    /**
     * Waits, at most 10 s, for the releases in flight on other threads, before the native close of the context named
     * {@code context}.
     */
    void awaitReleases(String context) {
        long until = System.nanoTime() + RELEASE_WAIT_NANOS;
        while (releasesInFlight.get() > 0) {
            if (System.nanoTime() - until > 0) {
                LOG.log(System.Logger.Level.WARNING, context + ": a release on another thread took over 10 s; closing anyway");
                return;
            }
            LockSupport.parkNanos(100_000);
        }
    }
}
