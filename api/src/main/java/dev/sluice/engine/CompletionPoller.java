package dev.sluice.engine;

import dev.sluice.ContextOptions;
import dev.sluice.DeviceException;
import dev.sluice.SluiceException;
import dev.sluice.SluiceProperties;
import dev.sluice.WaitStrategy;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One thread per context that completes futures in stream order. Each stream has a queue of pending
 * futures, each with the completion marker recorded after its operation; the thread polls only the
 * oldest marker of each stream, and completes futures as their markers are seen done. Measured on an
 * H200, a pooled marker per operation polled this way costs about 1.5 µs per operation, where a driver
 * host-function callback per operation costs 70 µs and throttles the stream
 * (docs/decisions/0005-completion-thread-polls-markers.md).
 *
 * <p>While futures are pending it waits by its {@link WaitStrategy}; with nothing pending it parks until
 * an enqueue wakes it. A marker that reports a device fault fails every pending future of the context,
 * and every future queued later, with that fault: none is left hanging.
 */
final class CompletionPoller {


    /**
     * The least time between two rounds of polls while markers are pending and nothing completed, under SPIN and
     * the spin phase of PARK: 1 µs. Polled back to back, event markers (a driver call each) slowed launches on the
     * enqueuing thread; with 1 µs between rounds the H100's launch + future cost fell from 7.0 to 5.5 µs in one run,
     * and the idle-stream latency did not grow (docs/decisions/0003-poll-gaps.md). {@code -Dsluice.engine.pollGapNanos}
     * changes it (0 polls back to back), a knob for measuring, not part of the API.
     */
    private static final long POLL_GAP_NANOS = Long.getLong(SluiceProperties.Measurement.ENGINE_POLL_GAP_NANOS, 1_000L);

    /**
     * The least time between two rounds of polls while the caller streams work: when the last round completed futures
     * and others were already queued behind them, so nobody waited for those before enqueuing more. A streaming caller
     * gains nothing from seeing each completion within a µs, and every poll is a driver call that competes with its
     * launches; a caller that waits for each operation before the next never streams and keeps the short gap. 4 µs: on
     * the H100, with C and Sluice alternating in one process, launch + future went from 1.75× to 1.63× C's launch and
     * tiny kernels from 1.83× to 1.60×, the idle latency stayed at 1.16–1.17×; 10 µs gained little more
     * (docs/decisions/0003-poll-gaps.md). {@code -Dsluice.engine.streamingPollGapNanos}, a knob for measuring, not part of the API.
     */
    private static final long STREAMING_POLL_GAP_NANOS = Long.getLong(SluiceProperties.Measurement.ENGINE_STREAMING_POLL_GAP_NANOS, 4_000L);

    private final ContextState context;
    private final ContextOptions options;
    private final CopyOnWriteArrayList<StreamOrder> cores = new CopyOnWriteArrayList<>();
    private final Thread thread;
    /** The thread's going to sleep with nothing pending, against enqueues that must wake it. */
    private final SleepHandshake sleep = new SleepHandshake();
    private volatile boolean stopping;
    private volatile @Nullable Throwable fault;
    /** A sticky error reported by an enqueuing call, for the thread to fault the context with ({@link #report}). */
    private volatile @Nullable Throwable reported;
    CompletionPoller(ContextState context, ContextOptions options, String name) {
        this.context = context;
        this.options = options;
        this.thread = Thread.ofPlatform().daemon().name("sluice-completion-" + name).unstarted(this::run);
    }

    /** Starts the completion thread; once, after the context that owns this engine is built. */
    void start() {
        thread.start();
    }

    /** A new stream's core, polled by this engine until {@link #remove} and empty. */
    StreamOrder newStream(StreamHandle handle, int groupBound, PublicStream owner) {
        StreamOrder core = new StreamOrder(handle, context, groupBound, owner);
        cores.add(core);
        return core;
    }

    /** Drops {@code core} once the futures still pending on it have completed. */
    void remove(StreamOrder core) {
        core.closing = true;
        LockSupport.unpark(thread);
    }

    /** Whether the calling thread is this engine's completion thread. */
    boolean isCompletionThread() {
        return Thread.currentThread() == thread;
    }

    /** Whether the engine has been stopped (its context closed): nothing completes any more. */
    boolean isStopped() {
        return stopping;
    }

    /** The fault that stopped the context, if any. */
    @Nullable Throwable fault() {
        return fault;
    }

    /** Called after a future was queued, under its stream's lock: wakes the thread if it sleeps or must fail it. */
    void wake() {
        if (sleep.mustWake() || fault != null || stopping) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * A sticky error that the backend returned to an enqueuing call (the driver answers every call with the error once
     * it has poisoned the context, before any marker of it is polled): the completion thread faults the context with
     * it, listeners and pending futures included, as it does for a marker's.
     */
    void report(Throwable cause) {
        if (reported == null) {
            reported = cause;
        }
        LockSupport.unpark(thread);
    }

    /** Fails every pending future with {@code cause}; later tracked futures fail as they arrive. */
    void failAll(Throwable cause) {
        if (fault == null) {
            fault = cause;
        }
        LockSupport.unpark(thread);
    }

    /** Stops the thread after failing whatever is still pending with {@code cause}; waits at most {@code joinNanos} for it. */
    void stop(Throwable cause, long joinNanos) {
        failAll(cause);
        stopping = true;
        LockSupport.unpark(thread);
        if (!isCompletionThread()) {
            try {
                // a dependent stage stuck on the thread must not keep the caller: the thread fails the rest once it is free
                thread.join(Duration.ofNanos(Math.max(1_000_000L, joinNanos)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        Pace pace = new Pace();
        while (true) {
            Throwable f = fault;
            if (f != null) {
                drainFailed(f);
                if (stopping) {
                    drainFailed(f);
                    return;
                }
                LockSupport.park(this);
                continue;
            }
            Throwable byCall = reported;
            if (byCall != null) {
                onFault(byCall);
                continue;
            }
            StreamOrder oldestPending;
            try {
                oldestPending = pollStreams(pace);
            } catch (Throwable t) {
                onFault(t);
                continue;
            }
            if (pace.progressed(oldestPending != null)) {
                continue;
            }
            if (oldestPending == null) {
                idle(pace);
            } else {
                waitBetweenPolls(pace, oldestPending);
            }
        }
    }

    /**
     * How the completion thread paces its polls, from what its last passes found: its own, made and used by that thread
     * only. Not fields of the engine: a field written on every pass could share a cache line with those that each
     * enqueue reads ({@code sleep}, {@code fault}, {@code stopping} in {@link #wake()}), and cost the enqueuing thread
     * a miss per pass.
     */
    private static final class Pace {
        /** When the thread last completed a future or found new work after having none, for the spin phase of PARK. */
        long lastActivity = System.nanoTime();
        /** The next park between polls under PARK, doubling up to the maximum while nothing completes. */
        long pause = 1_000;
        /** Whether the last pass found futures pending. */
        boolean wasPending;
        /** Whether the caller streams work: the last pass completed futures with others already queued behind them. */
        boolean streaming;
        /** Whether this pass completed a future. */
        boolean progress;

        /** Notes what this pass found; whether it completed a future, so that the thread polls again at once. */
        boolean progressed(boolean pending) {
            if (progress) {
                lastActivity = System.nanoTime();
                pause = 1_000;
                wasPending = pending;
                streaming = pending;
                return true;
            }
            if (pending && !wasPending) {
                // New work after none: spin for its completion before backing off.
                lastActivity = System.nanoTime();
                pause = 1_000;
            }
            wasPending = pending;
            return false;
        }
    }

    /**
     * One pass over the streams: completes what their markers say is done, drops the closed ones that are empty, and
     * notes in {@code pace} whether anything completed. Returns the first stream with futures still pending, or null.
     */
    private @Nullable StreamOrder pollStreams(Pace pace) {
        pace.progress = false;
        StreamOrder oldestPending = null;
        for (StreamOrder core : cores) {
            if (core.closing && core.isIdle()) {
                cores.remove(core);
                continue;
            }
            int r = core.tryAdvance();
            pace.progress |= (r & StreamOrder.PROGRESS) != 0;
            if ((r & (StreamOrder.PENDING | StreamOrder.BUSY)) != 0 && oldestPending == null) {
                oldestPending = core;
            }
        }
        return oldestPending;
    }

    /**
     * With nothing pending: keeps spinning (or yielding) for spinNanos after the last activity before parking, so the
     * next enqueue of a busy caller does not pay a thread wake-up (several µs, more in VMs) on top of the device's own
     * latency. PARK and SPIN spin, YIELD yields; BLOCKING parks at once. Parks until an enqueue wakes it.
     */
    private void idle(Pace pace) {
        pace.streaming = false;
        WaitStrategy idleWait = options.waitStrategy();
        if (idleWait != WaitStrategy.BLOCKING && System.nanoTime() - pace.lastActivity < options.spinNanos()) {
            if (idleWait == WaitStrategy.YIELD) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
            return;
        }
        sleep.settle();
        if (anyQueued() || fault != null || reported != null || stopping) {
            sleep.rise();
            return;
        }
        LockSupport.park(this);
        sleep.rise();
        pace.lastActivity = System.nanoTime();
    }

    /** With futures pending and none completed by the last pass: waits by the wait strategy before the next pass. */
    private void waitBetweenPolls(Pace pace, StreamOrder oldestPending) {
        switch (options.waitStrategy()) {
            case SPIN -> spinBetweenPolls(pace.streaming);
            case YIELD -> Thread.yield();
            case PARK -> {
                long idle = System.nanoTime() - pace.lastActivity;
                if (idle < options.spinNanos()) {
                    spinBetweenPolls(pace.streaming);
                } else if (idle < 2 * options.spinNanos()) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(this, pace.pause);
                    pace.pause = Math.min(pace.pause * 2, options.maxParkNanos());
                }
            }
            case BLOCKING -> {
                Marker m = oldestPending.oldestMarker();
                if (m != null) {
                    try {
                        m.awaitDone(options.maxParkNanos());
                    } catch (Throwable t) {
                        onFault(t);
                    }
                } else {
                    LockSupport.parkNanos(this, 1_000); // its group is not sealed yet: look again shortly
                }
            }
        }
    }

    /** Spins through the gap between two rounds of polls: the streaming one while the caller streams, else the short one. */
    private static void spinBetweenPolls(boolean streaming) {
        long gapNanos = streaming ? STREAMING_POLL_GAP_NANOS : POLL_GAP_NANOS;
        Thread.onSpinWait();
        if (gapNanos > 0) {
            long until = System.nanoTime() + gapNanos;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
        }
    }

    private void onFault(Throwable t) {
        Throwable cause = t instanceof SluiceException ? t
                : new DeviceException("completion marker failed: " + t, null, null, true, t);
        context.faulted(cause);
        failAll(cause);
    }

    private boolean anyQueued() {
        for (StreamOrder core : cores) {
            if (!core.isIdle()) {
                return true;
            }
        }
        return false;
    }

    private void drainFailed(Throwable cause) {
        for (StreamOrder core : cores) {
            core.failPending(cause);
        }
    }
}
