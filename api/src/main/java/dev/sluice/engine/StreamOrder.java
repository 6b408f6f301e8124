package dev.sluice.engine;

import dev.sluice.ContextOptions;
import dev.sluice.SluiceException;
import dev.sluice.SluiceProperties;
import dev.sluice.WaitStrategy;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The ordered core of one stream, behind {@code DeviceStream}'s argument checks: the enqueue lock, the sequence of
 * operations, the marker policy, the queue of pending futures and the <em>completed sequence</em>.
 *
 * <p><b>Completed sequence.</b> {@link #completed()} is the sequence of the last operation the device has finished, as
 * the completion thread has seen it. The completion thread advances it, and runs the internal actions waiting for it
 * ({@link #afterCompleted}), before it completes the operation's public future. Everything Sluice itself waits for
 * (freeing memory after its last use, releasing pinned host memory, keeping a Java array reachable during its copy)
 * is expressed as (stream, sequence) against this number, never through a {@link Operation}'s public state, which
 * the user may change by cancelling it.
 *
 * <p><b>Marker policy.</b> An operation enqueued while nothing is pending on the stream gets a completion marker of its
 * own at once: its caller may be about to wait for it. An operation enqueued while earlier work is pending joins the
 * stream's open {@link Group}, whose single marker, recorded after the group's last operation, completes all of its
 * futures. The group is sealed (its marker recorded) when a thread looks at or waits for one of its futures (see
 * {@link Operation}), when it holds {@link #groupBound} operations, when another stream must wait on it, before
 * anything that can hold the stream for the host, or by the completion thread once it has stopped growing for
 * {@link #groupIdleNanos}. A marker that is done completes every earlier future of its stream, so the completion
 * thread asks one marker per group instead of one per operation.
 *
 * <p><b>Threads.</b> Enqueues hold {@link #lock()}; the completion thread alone calls {@link #advance()} and
 * {@link #failPending}; {@link #completed()} and {@link #afterCompleted} are for any thread.
 */
public final class StreamOrder {

    private static final System.Logger LOG = System.getLogger(StreamOrder.class.getName());

    /** {@link #advance()} completed at least one future. */
    static final int PROGRESS = 1;
    /** {@link #advance()} left futures pending. */
    static final int PENDING = 2;
    /** {@link #tryAdvance()}: another thread was advancing the stream. */
    static final int BUSY = 4;

    /** How long an enqueue that finds the lock taken spins before parking: 20 µs, many times a marker record. */
    private static final long LOCK_SPIN_NANOS = 20_000;

    /** Consecutive operations that share one completion marker; sealed as the class comment says. */
    static final class Group implements Outcome {
        final StreamOrder core;
        /** Null until sealed; then the backend's marker (or {@link Marker#DONE} if the backend refused it). */
        volatile @Nullable Marker marker;
        /** The backend's refusal of the group's marker, given to each of its futures; written before {@link #marker}. */
        @Nullable RuntimeException refused;
        /** The sequence of the group's last operation: its future releases the marker. Final once sealed. */
        long lastSequence;
        /** Operations in the group; written under the lock, read by the completion thread to see it grow. */
        volatile int size;
        /** The completion thread's own: the size it last saw, and when. */
        int seenSize;
        long seenAt;

        Group(StreamOrder core) {
            this.core = core;
        }

        @Override
        public @Nullable Throwable failure() {
            return refused;
        }
    }

    /** Set while the calling thread helps complete a stream's futures ({@link #helpUntilDone}). */
    private static final ThreadLocal<Boolean> HELPING = new ThreadLocal<>();

    private final ReentrantLock lock = new ReentrantLock();
    private final StreamHandle handle;
    private final ContextState context;
    private final CompletionPoller engine;
    /** The public stream this core orders, for its futures' {@code stream()}. */
    private final PublicStream owner;
    private final CompletionQueue queue = new CompletionQueue();
    /** The most operations one marker may cover; 1 gives every operation a marker of its own. */
    private final int groupBound;
    /**
     * How long a group must have stopped growing before the completion thread seals it: 2 µs, a few enqueues' time, so
     * a caller that streams operations keeps adding to one group and a caller that paused sees its futures complete
     * about as soon as with a marker each. {@code -Dsluice.markers.batchIdleNanos}, read when the stream is created: a
     * knob for measuring and testing.
     */
    private final long groupIdleNanos = Long.getLong(SluiceProperties.Measurement.MARKER_BATCH_IDLE_NANOS, 2_000L);
    // The fields every enqueue writes, under the lock, and the one the completion thread writes for every future, each
    // on lines of its own (OwnLine): the completion thread reads this object's other fields on every pass. The future of
    // the last operation enqueued is the queue's tail (CompletionQueue.last()), which lies on lines of its own too.
    /** Under the lock: the sequence of the last operation enqueued. */
    private final OwnLine.OfLong sequence = new OwnLine.OfLong();
    /** Under the lock: the group operations join, or null. */
    private final OwnLine.OfReference<@Nullable Group> open = new OwnLine.OfReference<>(null);
    /** Written by the completion thread only, before it completes the future of that sequence. */
    private final OwnLine.OfLong completed = new OwnLine.OfLong();
    /**
     * 1 while a thread runs {@link #advance()}: the completion thread, or a thread waiting for one of the stream's futures
     * ({@link #help}). On lines of its own: the completion thread takes and gives it back on every pass.
     */
    private final OwnLine.OfLong advancing = new OwnLine.OfLong();
    /** Set when the stream closes: the engine drops the core once its queue is empty. */
    volatile boolean closing;

    private final Object watchLock = new Object();
    /** Whether {@link #watches} may hold actions: the completion thread reads it after each completion. */
    private volatile boolean watched;
    /** Under {@link #watchLock}: internal actions waiting for the completed sequence. */
    private final ArrayList<Watch> watches = new ArrayList<>(0);

    private record Watch(long sequence, Runnable action) {
    }

    StreamOrder(StreamHandle handle, ContextState context, int groupBound, PublicStream owner) {
        this.handle = handle;
        this.context = context;
        this.engine = context.engine();
        this.groupBound = groupBound;
        this.owner = owner;
    }

    /** The public stream whose operations this core orders. */
    public PublicStream owner() {
        return owner;
    }

    /** The context this stream belongs to. */
    ContextState context() {
        return context;
    }

    // ---------------------------------------------------------------- the enqueue lock

    /**
     * Takes the stream's lock, spinning for up to {@link #LOCK_SPIN_NANOS} before parking: the completion thread and
     * observers of a future take it to seal a group (one marker record, about a µs on a GPU), and an enqueue on a
     * Reactor thread must not park for that.
     */
    void lock() {
        if (lock.tryLock()) {
            return;
        }
        long until = System.nanoTime() + LOCK_SPIN_NANOS;
        do {
            Thread.onSpinWait();
            if (lock.tryLock()) {
                return;
            }
        } while (System.nanoTime() - until < 0);
        lock.lock();
    }

    void unlock() {
        lock.unlock();
    }

    // ---------------------------------------------------------------- marking operations (under the lock)

    /**
     * The future of the operation just handed to the backend, marked by the policy in the class comment. Under the lock.
     *
     * @param keepAlive an object the device reads or writes (a Java array's segment), kept reachable until the device has
     *                  finished the operation, whatever happens to the future
     */
    <F extends Operation<?>> F mark(F f, @Nullable Object keepAlive) {
        long seq = nextSequence();
        Group g = open.get();
        if (g == null && (groupBound == 1 || queue.isEmpty())) {
            withOwnMarker(f, seq);
        } else {
            if (g == null) {
                g = new Group(this);
                open.set(g);
            }
            f.bind(this, seq, null, g);
            g.lastSequence = seq;
            int size = g.size + 1;
            g.size = size;
            if (size >= groupBound) {
                sealLocked();
            }
        }
        return publish(f, keepAlive);
    }

    /** The future of the operation just handed to the backend, with a marker of its own (traced operations). Under the lock. */
    <F extends Operation<?>> F markAlone(F f, @Nullable Object keepAlive) {
        sealLocked(); // keeps markers in stream order
        withOwnMarker(f, nextSequence());
        return publish(f, keepAlive);
    }

    /** The sequence of the operation being marked: one more than the last. Under the lock. */
    private long nextSequence() {
        long seq = sequence.get() + 1;
        sequence.set(seq);
        return seq;
    }

    /**
     * A future with a marker of its own. A marker the backend refuses fails the future (on the completion thread), not the
     * caller: the operation was handed to the backend, and its listeners have heard of it.
     */
    private void withOwnMarker(Operation<?> f, long seq) {
        Marker m;
        RuntimeException refused = null;
        try {
            m = handle.recordMarker();
        } catch (RuntimeException e) {
            refused = e;
            m = refusedMarker();
        }
        f.bind(this, seq, m, null);
        if (refused != null) {
            f.presetFailure(refused);
        }
    }

    private <F extends Operation<?>> F publish(F f, @Nullable Object keepAlive) {
        // A future stays in the queue until the device has finished its operation, so keepAlive stays reachable until then
        f.keepAlive = keepAlive; // before the queue's release publishes f
        queue.add(f);
        engine.wake();
        return f;
    }

    /**
     * Records the open group's marker, if there is a group. Under the lock. A marker the backend refuses fails the group's
     * futures (on the completion thread), not the caller.
     */
    void sealLocked() {
        Group g = open.get();
        if (g == null) {
            return;
        }
        open.set(null);
        Marker m;
        try {
            m = handle.recordMarker();
        } catch (RuntimeException e) {
            g.refused = e;
            m = refusedMarker();
        }
        g.marker = m; // volatile: publishes failure and lastSequence with it
    }

    /**
     * Stands in for a marker the backend refused: the futures it covers fail with the refusal, but the completed
     * sequence must not pass operations the device may still run (memory they use would be freed under them), so it
     * first waits, here, until the stream has drained. Rare: a backend refuses a marker when the device faulted (then
     * this returns at once) or a resource ran out.
     */
    private Marker refusedMarker() {
        try {
            handle.synchronize();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "synchronize after a refused marker failed", e);
        }
        return Marker.DONE;
    }

    /** Seals {@code g} if it is still open: for observers of its futures and for waits of other streams. No lock held. */
    void seal(Group g) {
        if (g.marker != null) {
            return;
        }
        lock();
        try {
            if (open.get() == g) {
                sealLocked();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link #seal(Group)} without waiting: false if another thread holds this stream's lock. For a thread that holds
     * another stream's lock, which must not wait for this one (the holder of this one may be waiting for that one).
     */
    boolean trySeal(Group g) {
        if (g.marker != null) {
            return true;
        }
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (open.get() == g) {
                sealLocked();
            }
        } finally {
            lock.unlock();
        }
        return true;
    }

    /** The future of the last operation enqueued, or null. */
    @Nullable Operation<?> last() {
        lock();
        try {
            return queue.last();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- the completed sequence

    /** The sequence of the last operation the device has finished, as the completion thread has seen it. Any thread. */
    long completed() {
        return completed.getVolatile();
    }

    /** Whether the device has finished the operation of sequence {@code seq} on this stream. */
    boolean hasCompleted(long seq) {
        return seq <= completed.getVolatile();
    }

    /**
     * Runs {@code action} once the device has finished the operation of sequence {@code seq}: on the completion thread
     * before that operation's future completes, or at once on the caller if it has finished already. Never runs if the
     * context faults first (the context frees what it owns when it closes). The action must be short and must not throw.
     */
    void afterCompleted(long seq, Runnable action) {
        List<Runnable> ready;
        synchronized (watchLock) {
            watches.add(new Watch(seq, action));
            watched = true; // written before completed is read: with advance()'s write-then-read, one of the two sees the other
            ready = takeReady(completed.getVolatile());
        }
        runAll(ready);
    }

    /** Under {@link #watchLock}: removes and returns the actions whose sequence has completed. */
    private @Nullable List<Runnable> takeReady(long upTo) {
        List<Runnable> ready = null;
        for (int i = 0; i < watches.size(); i++) {
            Watch w = watches.get(i);
            if (w.sequence <= upTo) {
                if (ready == null) {
                    ready = new ArrayList<>(2);
                }
                ready.add(w.action);
                watches.remove(i--);
            }
        }
        watched = !watches.isEmpty();
        return ready;
    }

    private static void runAll(@Nullable List<Runnable> actions) {
        if (actions != null) {
            for (Runnable r : actions) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "internal completion action failed", e);
                }
            }
        }
    }

    /**
     * Blocks until the device has finished the operation of sequence {@code seq}, sealing its group first, until the
     * context stops (faults or closes: nothing will complete then), or until {@code deadline} ({@link System#nanoTime()}).
     * With {@code interruptible}, an interrupt ends the wait with a {@link SluiceException} caused by the
     * {@link InterruptedException}, the flag set again; otherwise it is kept for the caller and the wait goes on.
     *
     * @return whether the operation completed
     */
    boolean awaitCompleted(long seq, long deadline, boolean interruptible) {
        if (hasCompleted(seq)) {
            return true;
        }
        CountDownLatch done = new CountDownLatch(1);
        afterCompleted(seq, done::countDown);
        Group g;
        lock();
        try {
            g = open.get();
        } finally {
            lock.unlock();
        }
        if (g != null) {
            seal(g);
        }
        boolean interrupted = false;
        try {
            while (done.getCount() > 0 && context.fault() == null && !engine.isStopped()
                    && (deadline == Long.MAX_VALUE || System.nanoTime() - deadline < 0)) {
                try {
                    done.await(10, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    if (interruptible) {
                        Thread.currentThread().interrupt();
                        throw new SluiceException("interrupted while waiting for operation " + seq + " of a stream to finish;"
                                + " it goes on in stream order", e);
                    }
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return done.getCount() == 0;
    }

    // ---------------------------------------------------------------- the completion thread's side

    /**
     * Completes, in order, every pending future whose marker is done; seals an idle group at the head. The completion
     * thread only. Returns {@link #PROGRESS} and {@link #PENDING} bits.
     *
     * @throws RuntimeException a marker's device fault, for the engine to fail the context with
     */
    int tryAdvance() {
        if (!advancing.compareAndSet(0, 1)) {
            return BUSY;
        }
        try {
            return advance();
        } finally {
            advancing.setRelease(0);
        }
    }

    /**
     * One pass of {@link #advance()} on the calling thread, a thread waiting for one of this stream's futures, unless
     * another thread is advancing the stream or the context has faulted or is stopping (its completion thread then fails
     * what is pending). A marker's device fault found here is handed to the completion thread, which faults the context.
     *
     * @return false once the caller must leave completion to the completion thread
     */
    boolean help() {
        if (engine.fault() != null || engine.isStopped()) {
            return false;
        }
        try {
            tryAdvance();
        } catch (RuntimeException e) {
            engine.report(e);
            return false;
        }
        return true;
    }

    /**
     * Completes {@code f} on the calling thread, which is about to wait for it: polls the stream's markers itself
     * ({@link #help}) instead of waiting for the completion thread to see the marker and wake it. Spins (under
     * {@link WaitStrategy#YIELD}: yields) for at most the context's {@link ContextOptions#spinNanos()} and returns, done or
     * not, for the caller to block; does nothing under {@link WaitStrategy#BLOCKING}, and nothing on a thread that is
     * completing futures already (its wait is refused, see {@link #isCompletingOnThisThread()}).
     */
    void helpUntilDone(Operation<?> f) {
        ContextOptions o = context.options();
        WaitStrategy w = o.waitStrategy();
        if (w == WaitStrategy.BLOCKING || HELPING.get() != null) {
            return;
        }
        long until = System.nanoTime() + o.spinNanos();
        HELPING.set(Boolean.TRUE); // once for the whole wait, not per pass: the stages it runs see it
        try {
            while (!f.doneRaw() && help()) {
                if (System.nanoTime() - until > 0) {
                    return;
                }
                if (w == WaitStrategy.YIELD) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
        } finally {
            HELPING.remove();
        }
    }

    /**
     * Whether the calling thread is completing futures of a stream it helped ({@link #helpUntilDone}): the dependent
     * stages it runs then must not wait for a future, as on the completion thread (the stream's completion is theirs
     * to finish first).
     */
    static boolean isCompletingOnThisThread() {
        return HELPING.get() != null;
    }

    int advance() {
        int result = 0;
        // The futures of a group share one marker: once it is seen done, the rest of the group completes without asking
        // it again (a driver call each on a GPU).
        Marker seenDone = null;
        long now = 0; // the clock for observed futures, read once per pass (their listeners' latency ends here)
        boolean clocked = false;
        Operation<?> head;
        while ((head = queue.peek()) != null) {
            Marker m = head.marker();
            if (m == null) {
                Group g = head.group;
                if (g == null) {
                    throw new IllegalStateException("internal: " + head + " has neither a marker nor a group");
                }
                sealIfIdle(g);
                m = g.marker;
                if (m == null) {
                    return result | PENDING;
                }
            }
            if (m != seenDone && !m.isDone()) {
                return result | PENDING;
            }
            queue.poll();
            long seq = head.seq();
            completed.setVolatile(seq); // before any user-visible completion; then read watched (see afterCompleted)
            if (watched) {
                List<Runnable> ready;
                synchronized (watchLock) {
                    ready = takeReady(seq);
                }
                runAll(ready);
            }
            if (!clocked && head.isObserved()) {
                now = System.nanoTime();
                clocked = true;
            }
            finish(head, now);
            // Release after completing: while a future is not done its marker is not back in its pool, which narrows the
            // window in which a wait enqueued after checking completion could land on a recycled one.
            if (head.releasesMarker()) {
                m.release();
                seenDone = null; // a released marker may be handed out again
            } else {
                seenDone = m;
            }
            result |= PROGRESS;
        }
        return result;
    }

    /**
     * Seals {@code g} once no operation has joined it for {@link #groupIdleNanos} and the lock is free (an enqueuing
     * thread holding it seals full groups itself). The completion thread only; never blocks.
     */
    private void sealIfIdle(Group g) {
        int size = g.size;
        long now = System.nanoTime();
        if (size != g.seenSize) {
            g.seenSize = size;
            g.seenAt = now;
            if (groupIdleNanos > 0) {
                return;
            }
        }
        if (now - g.seenAt < groupIdleNanos || !lock.tryLock()) {
            return;
        }
        try {
            if (open.get() == g) {
                sealLocked();
            }
        } finally {
            lock.unlock();
        }
    }

    private static void finish(Operation<?> f, long nowNanos) {
        try {
            f.finish(nowNanos);
        } catch (Throwable t) {
            // CompletableFuture confines exceptions of dependent stages to those stages; anything that escapes here is a
            // bug in a stage's executor and must not stop the completion thread.
            LOG.log(System.Logger.Level.WARNING, "dependent stage of " + f + " threw", t);
        }
    }

    /** The marker of the oldest pending future, for the blocking wait strategy; null if none is recorded yet. */
    @Nullable Marker oldestMarker() {
        Operation<?> head = queue.peek();
        return head == null ? null : head.marker();
    }

    boolean isIdle() {
        return queue.isEmpty();
    }

    /** Fails every pending future with {@code cause}, after a fault; the completed sequence stays where it was. */
    void failPending(Throwable cause) {
        while (!advancing.compareAndSet(0, 1)) {
            Thread.onSpinWait(); // a waiting thread's pass ends soon: it stops helping once the context faulted
        }
        try {
            failPendingAlone(cause);
        } finally {
            advancing.setRelease(0);
        }
    }

    private void failPendingAlone(Throwable cause) {
        Operation<?> head;
        while ((head = queue.poll()) != null) {
            try {
                head.fail(cause);
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, "dependent stage of " + head + " threw", t);
            }
        }
    }
}
