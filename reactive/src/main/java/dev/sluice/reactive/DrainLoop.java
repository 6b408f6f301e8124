package dev.sluice.reactive;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.Exceptions;
import reactor.core.scheduler.Scheduler;

/**
 * Where and when a subscription's drain loop runs: serialised by a work-in-progress counter (as in reactor-core's own
 * operators), so that every event only records itself and calls {@link #drain()}, and whichever thread finds the loop
 * idle runs it, pass after pass, until no event came meanwhile. With a host scheduler, the loop runs on one worker of
 * it instead (one task per burst of events), so the completion thread only records completions.
 *
 * <p>A host scheduler that goes away while the subscription runs (disposed, or rejecting tasks) fails it with a
 * {@link RejectedExecutionException} ({@link #hostFailure()}): the first rejected task, or the first event or
 * watchdog tick ({@link #WATCH_MILLIS}) that finds the scheduler disposed, claims the loop from the worker (a task
 * the scheduler dropped never runs it), and from then on the loop runs on the signalling thread.
 */
final class DrainLoop {

    /** How often a subscription with a host scheduler checks that the scheduler is still there. */
    static final long WATCH_MILLIS = 50;

    /** One daemon thread for every pipeline's scheduler check: a tick per {@link #WATCH_MILLIS} per subscription. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-pipeline-watchdog");
        t.setDaemon(true);
        return t;
    });

    /** One pass of the loop. */
    private final Runnable pass;
    /**
     * Told of an exception a pass threw; must not throw. Why: the loop has to go on counting its events whatever a pass
     * does, or every later event would find it still running (wip above 0) and the subscription would hang for good,
     * silently when the pass ran in a completion callback that drops what it throws.
     */
    private final Consumer<Throwable> passFailed;
    /** Run after the passes, once no event is left to handle. */
    private final Runnable drained;
    /** Named in the failure when the host scheduler goes away. */
    private final Object pipeline;
    private final AtomicInteger wip = new AtomicInteger();
    /** Where the loop runs when the pipeline has a host scheduler; null: on the signalling thread. */
    private final Scheduler.@Nullable Worker worker;
    private final @Nullable Scheduler hostScheduler;
    private volatile boolean workerDone;
    /** The drain task last handed to the worker: whoever claims it runs the loop (see {@link #drain()}). */
    private volatile @Nullable DrainTask scheduled;
    /** Why the host scheduler can no longer run the loop; set once, before {@link #workerDone}. */
    private volatile @Nullable Throwable hostFailure;
    private volatile @Nullable ScheduledFuture<?> watch;
    private volatile boolean over;
    /** The drain task seen unclaimed at the watchdog's last tick (watchdog thread only). */
    private @Nullable DrainTask stale;

    DrainLoop(@Nullable Scheduler hostScheduler, Object pipeline, Runnable pass, Consumer<Throwable> passFailed,
            Runnable drained) {
        this.hostScheduler = hostScheduler;
        this.worker = hostScheduler == null ? null : hostScheduler.createWorker();
        this.pipeline = pipeline;
        this.pass = pass;
        this.passFailed = passFailed;
        this.drained = drained;
    }

    /** One run of the loop on the worker, unless {@link #rescue} claimed it first. */
    private final class DrainTask extends AtomicBoolean implements Runnable {
        @Override
        public void run() {
            if (compareAndSet(false, true)) {
                runLoop();
            }
        }

        boolean claim() {
            return compareAndSet(false, true);
        }
    }

    /** Starts the watchdog's checks of the host scheduler, if there is one. */
    void watch() {
        if (worker != null) {
            try {
                watch = WATCHDOG.scheduleWithFixedDelay(this::checkHostScheduler, WATCH_MILLIS, WATCH_MILLIS,
                        TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // the JVM is shutting down; the checks made on every event remain
            }
        }
    }

    /** Why the host scheduler can no longer run the loop, or null. */
    @Nullable Throwable hostFailure() {
        return hostFailure;
    }

    /**
     * Runs the drain loop, or makes sure that the thread running it goes round once more. With a host scheduler
     * the loop runs as a {@link DrainTask} on the worker. A scheduler that rejects the task, or is disposed
     * with the task queued (a disposed executor drops it, and nothing would ever run the loop again: wip would
     * stay above 0 for good), fails the subscription ({@link #hostGone}); the caller then claims the loop and
     * runs it here, as every later event does.
     */
    void drain() {
        if (wip.getAndIncrement() != 0) {
            if (worker != null && !workerDone && schedulerGone()) {
                rescue(null);
            }
            return;
        }
        Scheduler.Worker w = worker;
        if (w != null && !workerDone) {
            DrainTask t = new DrainTask();
            scheduled = t;
            try {
                w.schedule(t);
                return;
            } catch (RejectedExecutionException e) {
                if (!t.claim()) {
                    return; // ran after all
                }
                hostGone(e);
            }
        }
        runLoop();
    }

    /** The subscription has ended: no more watchdog ticks, and the worker goes. */
    void stop() {
        over = true;
        ScheduledFuture<?> wf = watch;
        if (wf != null) {
            wf.cancel(false);
        }
        if (worker != null) {
            // Nothing can signal any more but a late request or cancel, which then runs inline (a no-op).
            workerDone = true;
            worker.dispose();
        }
    }

    private void runLoop() {
        int missed = 1;
        boolean failedOnce = false;
        do {
            try {
                pass.run();
            } catch (Throwable t) {
                Exceptions.throwIfJvmFatal(t);
                passFailed.accept(t);
                if (!failedOnce) {
                    failedOnce = true;
                    wip.incrementAndGet(); // one more pass, which ends the subscription; not more, if that throws too
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
        drained.run();
    }

    private boolean schedulerGone() {
        Scheduler h = hostScheduler;
        return h != null && h.isDisposed();
    }

    /**
     * Takes the loop from a task the worker will never run, if that task has not started: fails the
     * subscription and runs the loop on this thread. Does nothing if the task runs (or ran): it sees the new
     * wip count and goes round again.
     */
    private void rescue(@Nullable RejectedExecutionException cause) {
        DrainTask t = scheduled;
        if (t != null && t.claim()) {
            hostGone(cause);
            runLoop();
        }
    }

    /**
     * The watchdog's tick: a scheduler that is gone fails the subscription even when no event comes. Gone means
     * disposed, or (for a scheduler over an executor shut down behind its back, which does not say it is
     * disposed) rejecting a probe task while the drain task has waited a whole tick.
     */
    private void checkHostScheduler() {
        if (over || workerDone) {
            return;
        }
        if (schedulerGone()) {
            if (wip.get() != 0) {
                rescue(null);
            } else {
                drain(); // the worker rejects the task: hostGone, then the loop runs here
            }
            return;
        }
        DrainTask t = scheduled;
        if (t != null && !t.get() && wip.get() != 0) {
            if (t != stale) {
                stale = t; // look again at the next tick
                return;
            }
            Scheduler h = hostScheduler;
            try {
                if (h != null) {
                    h.schedule(() -> { });
                }
            } catch (RejectedExecutionException e) {
                rescue(e);
            }
        }
    }

    /** The host scheduler can no longer run the loop: later drains run on the signalling thread, and the loop fails. */
    private void hostGone(@Nullable RejectedExecutionException cause) {
        if (hostFailure == null) {
            hostFailure = new RejectedExecutionException("the host scheduler " + hostScheduler + " of " + pipeline
                    + " rejected work or was disposed while a subscription ran", cause);
        }
        workerDone = true;
    }
}
