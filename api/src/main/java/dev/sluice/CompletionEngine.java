package dev.sluice;

import dev.sluice.spi.Marker;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * One thread per context that completes futures in stream order. Each stream has a queue of pending
 * futures, each with the completion marker recorded after its operation; the thread polls only the
 * oldest marker of each stream, and completes futures as their markers are seen done. Measured on the
 * GPU machine (MEASURED.md), a pooled marker per operation polled this way costs about 1.5 µs per
 * operation, where a driver host-function callback per operation costs 70 µs and throttles the stream.
 *
 * <p>While futures are pending it waits by its {@link WaitStrategy}; with nothing pending it parks until
 * an enqueue wakes it. A marker that reports a device fault fails every pending future of the context,
 * and every future queued later, with that fault: none is left hanging.
 */
final class CompletionEngine {

    private static final Logger LOG = Logger.getLogger(CompletionEngine.class.getName());

    /**
     * The pending futures of one stream, oldest first: a queue linked through the futures themselves
     * ({@link DeviceFuture#next}), with one producer at a time (enqueues hold the stream's lock) and one consumer (the
     * completion thread). Adding is two plain writes, one with release; no node is allocated and nothing is
     * compare-and-set, which a {@code ConcurrentLinkedQueue} does on every enqueue.
     */
    static final class Queue {
        /** The last future taken (a placeholder at first); moved by the completion thread only. */
        private volatile DeviceFuture<?> head = new DeviceFuture<>(null, -1, null, null);
        /** The last future added; read and written under the stream's lock only. */
        private DeviceFuture<?> tail = head;
        /** Set when the stream closes: the engine drops the queue once it is empty. */
        volatile boolean closing;

        /** Adds {@code f} last. Under the stream's lock. */
        void add(DeviceFuture<?> f) {
            DeviceFuture<?> t = tail;
            tail = f;
            t.setNext(f); // release: publishes f's fields to the completion thread
        }

        /** The oldest future, or null. Any thread. */
        @Nullable DeviceFuture<?> peek() {
            return head.next();
        }

        /** Takes the oldest future, or returns null. The completion thread only. */
        @Nullable DeviceFuture<?> poll() {
            DeviceFuture<?> h = head;
            DeviceFuture<?> n = h.next();
            if (n != null) {
                head = n;
                // h is no longer the tail (n came after it), so no enqueue writes h.next again; unlinking it keeps a future
                // the caller holds from keeping every later one reachable
                h.setNext(null);
            }
            return n;
        }

        boolean isEmpty() {
            return peek() == null;
        }
    }

    /**
     * The least time between two rounds of polls while markers are pending and nothing completed, under SPIN and
     * the spin phase of PARK: 1 µs. Polled back to back, event markers (a driver call each) slowed launches on the
     * enqueuing thread; with 1 µs between rounds the H100's launch + future cost fell from 7.0 to 5.5 µs in one run,
     * and the idle-stream latency did not grow (docs/gpu-runs.md, session 4). {@code -Dsluice.engine.pollGapNanos}
     * changes it (0 polls back to back), a knob for measuring, not part of the API.
     */
    private static final long POLL_GAP_NANOS = Long.getLong("sluice.engine.pollGapNanos", 1_000L);

    /**
     * The least time between two rounds of polls while the caller streams work: when the last round completed futures
     * and others were already queued behind them, so nobody waited for those before enqueuing more. A streaming caller
     * gains nothing from seeing each completion within a µs, and every poll is a driver call that competes with its
     * launches; a caller that waits for each operation before the next never streams and keeps the short gap. 4 µs: on
     * the H100, with C and Sluice alternating in one process, launch + future went from 1.75× to 1.63× C's launch and
     * tiny kernels from 1.83× to 1.60×, the idle latency stayed at 1.16–1.17×; 10 µs gained little more
     * (docs/gpu-runs.md, session 5). {@code -Dsluice.engine.streamingPollGapNanos}, a knob for measuring, not part of the API.
     */
    private static final long STREAMING_POLL_GAP_NANOS = Long.getLong("sluice.engine.streamingPollGapNanos", 4_000L);

    private final DeviceContext context;
    private final ContextOptions options;
    private final CopyOnWriteArrayList<Queue> queues = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean sleeping;
    private volatile boolean stopping;
    private volatile @Nullable Throwable fault;
    /**
     * When the completion thread last completed a future or found new work after having none, for the spin phase of
     * PARK. Only the completion thread reads or writes it: enqueuing threads do not touch it, so an enqueue costs no
     * clock read and no write to a line this thread polls.
     */
    private long lastActivity = System.nanoTime();

    CompletionEngine(DeviceContext context, ContextOptions options, String name) {
        this.context = context;
        this.options = options;
        this.thread = Thread.ofPlatform().daemon().name("sluice-completion-" + name).unstarted(this::run);
        thread.start();
    }

    Queue newQueue() {
        Queue q = new Queue();
        queues.add(q);
        return q;
    }

    /** Drops {@code q} once the futures still in it have completed. */
    void removeQueue(Queue q) {
        q.closing = true;
        LockSupport.unpark(thread);
    }

    /** Whether the calling thread is this engine's completion thread. */
    boolean isCompletionThread() {
        return Thread.currentThread() == thread;
    }

    /** The fault that stopped the context, if any. */
    @Nullable Throwable fault() {
        return fault;
    }

    /** Adds a future whose marker was just recorded; called under the stream's lock, in stream order. */
    void track(Queue q, DeviceFuture<?> future) {
        q.add(future);
        if (fault != null || stopping) {
            // The thread may already have drained everything: wake it so this one fails too.
            LockSupport.unpark(thread);
        } else if (sleeping) {
            LockSupport.unpark(thread);
        }
    }

    /** Fails every pending future with {@code cause}; later tracked futures fail as they arrive. */
    void failAll(Throwable cause) {
        if (fault == null) {
            fault = cause;
        }
        LockSupport.unpark(thread);
    }

    /** Stops the thread after failing whatever is still pending with {@code cause}. */
    void stop(Throwable cause) {
        failAll(cause);
        stopping = true;
        LockSupport.unpark(thread);
        if (!isCompletionThread()) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        long pause = 1_000;
        boolean wasPending = false;
        boolean streaming = false;
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
            int progress = 0;
            boolean pending = false;
            Queue oldestPending = null;
            try {
                for (Queue q : queues) {
                    if (q.closing && q.isEmpty()) {
                        queues.remove(q);
                        continue;
                    }
                    DeviceFuture<?> head;
                    // The futures of a marker batch share one marker: once it is seen done, the others of the batch
                    // complete without asking it again (a driver call each on a GPU).
                    Marker seenDone = null;
                    while ((head = q.peek()) != null) {
                        Marker m = head.marker();
                        if (m == null && head.batch != null) {
                            // a marker batch not recorded yet: record it once it stops growing
                            head.batch.stream.sealIfIdle(head.batch);
                            m = head.marker();
                        }
                        if (m == null ? head.batch != null : m != seenDone && !m.isDone()) { // unsealed batch, or not done
                            pending = true;
                            if (oldestPending == null) {
                                oldestPending = q;
                            }
                            break;
                        }
                        q.poll();
                        // Complete before releasing: while a future is not done its marker is not back in its pool, which
                        // narrows the window in which a wait enqueued after checking isDone() could land on a recycled one.
                        complete(head);
                        seenDone = m;
                        if (m != null && head.ownsMarker) {
                            m.release();
                            seenDone = null; // the batch's last future: a released marker may be handed out again
                        }
                        progress++;
                    }
                }
            } catch (Throwable t) {
                onFault(t);
                continue;
            }
            if (progress > 0) {
                lastActivity = System.nanoTime();
                pause = 1_000;
                wasPending = pending;
                streaming = pending;
                continue;
            }
            if (pending && !wasPending) {
                // New work after none: spin for its completion before backing off.
                lastActivity = System.nanoTime();
                pause = 1_000;
            }
            wasPending = pending;
            if (!pending) {
                streaming = false;
                // Idle: keep spinning (or yielding) for spinNanos after the last activity before parking, so the
                // next enqueue of a busy caller does not pay a thread wake-up (several µs, more in VMs) on top of
                // the device's own latency. PARK and SPIN spin, YIELD yields; BLOCKING parks at once.
                WaitStrategy idleWait = options.waitStrategy();
                if (idleWait != WaitStrategy.BLOCKING && System.nanoTime() - lastActivity < options.spinNanos()) {
                    if (idleWait == WaitStrategy.YIELD) {
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                    continue;
                }
                sleeping = true;
                if (anyQueued() || fault != null || stopping) {
                    sleeping = false;
                    continue;
                }
                LockSupport.park(this);
                sleeping = false;
                lastActivity = System.nanoTime();
                continue;
            }
            switch (options.waitStrategy()) {
                case SPIN -> spinBetweenPolls(streaming);
                case YIELD -> Thread.yield();
                case PARK -> {
                    long idle = System.nanoTime() - lastActivity;
                    if (idle < options.spinNanos()) {
                        spinBetweenPolls(streaming);
                    } else if (idle < 2 * options.spinNanos()) {
                        Thread.yield();
                    } else {
                        LockSupport.parkNanos(this, pause);
                        pause = Math.min(pause * 2, options.maxParkNanos());
                    }
                }
                case BLOCKING -> {
                    DeviceFuture<?> head = oldestPending.peek();
                    Marker m = head == null ? null : head.marker();
                    if (m != null) {
                        try {
                            m.awaitDone(options.maxParkNanos());
                        } catch (Throwable t) {
                            onFault(t);
                        }
                    } else if (head != null && head.batch != null) {
                        LockSupport.parkNanos(this, 1_000); // its batch is not recorded yet: look again shortly
                    }
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

    private void complete(DeviceFuture<?> future) {
        try {
            future.finish();
        } catch (Throwable t) {
            // CompletableFuture confines exceptions of dependent stages to those stages; anything that
            // escapes here is a bug in a stage's executor and must not stop the completion thread.
            LOG.log(Level.WARNING, "dependent stage of " + future + " threw", t);
        }
    }

    private void onFault(Throwable t) {
        Throwable cause = t instanceof SluiceException ? t
                : new DeviceException("completion marker failed: " + t, null, null, true, t);
        context.faulted(cause);
        failAll(cause);
    }

    private boolean anyQueued() {
        for (Queue q : queues) {
            if (!q.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private void drainFailed(Throwable cause) {
        for (Queue q : queues) {
            DeviceFuture<?> head;
            while ((head = q.poll()) != null) {
                try {
                    head.fail(cause);
                } catch (Throwable t) {
                    LOG.log(Level.WARNING, "dependent stage of " + head + " threw", t);
                }
            }
        }
    }
}
