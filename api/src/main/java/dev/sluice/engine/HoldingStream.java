package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import dev.sluice.HostWaits;
import dev.sluice.SluiceException;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.WorkStep;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The stream handle the public layer talks to: the backend's stream, which can be held on the host
 * ({@link HostWaits#HOLD_ON_HOST}).
 *
 * <p>While the stream waits for the host (a host gate: a stage, or a host function's turn), or for work that another
 * held stream has not submitted yet, every later operation is queued here, in order, instead of reaching the
 * backend; the thread that ends the wait (opens the gate, or submits the awaited work) submits the queue. The device
 * itself never waits for the host. Why: on CUDA a stream waiting for the host on the device makes module loading and
 * {@code cuMemFree} wait for it, and eight or more such streams stall every other stream (docs/architecture.md,
 * "Waiting for the host"), so a program that compiles a kernel before completing the stage it waits for would hang.
 *
 * <p>Held work keeps its meaning: a held completion marker is a {@link HeldMarker} that becomes done once the work is
 * submitted and finished; another stream waiting for it (or for an event whose record is held) is held in turn until
 * it is submitted; a stream-ordered allocation made while held is made at once from the context (the memory simply
 * exists a little earlier); launch arguments are copied. An operation that the backend refuses when the queue is
 * submitted fails the future of that operation (its next marker), not the caller that enqueued it.
 *
 * <p>Threads: enqueue methods are called under the owning {@link DeviceStream}'s lock (one enqueuer at a time); the
 * queue is submitted under this object's lock by whichever thread ends a wait. Not holding costs one volatile read
 * per call.
 */
public final class HoldingStream implements StreamHandle {

    /**
     * The event records of one context that are held on the host: a wait for such an event, or a query of it, must wait
     * for the record. One per context (events are used on their own context only), shared by its streams.
     */
    public static final class HeldRecords {
        private final Map<EventHandle, Submission> records = new ConcurrentHashMap<>();

        /** Whether the last record of {@code event} is still held on the host. */
        public boolean isHeld(EventHandle event) {
            Submission s = records.get(event);
            return s != null && !s.isSubmitted();
        }

        /** Blocks until the last record of {@code event} has reached the device. */
        void awaitSubmitted(EventHandle event) {
            Submission s = records.get(event);
            if (s != null) {
                s.awaitSubmitted(Long.MAX_VALUE);
            }
        }
    }

    private final HeldRecords heldRecords;

    final StreamHandle device;
    private final ContextHandle context;
    private final boolean holdOnHost;
    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();
    /** Under the lock. */
    private final ArrayDeque<Held> queue = new ArrayDeque<>();
    /** True while the queue is not empty: written under the lock, read without it by the enqueuer. */
    private volatile boolean holding;
    /** Under the lock. */
    private boolean destroyed;
    /** Under the lock: the first failure of a held operation since the last held marker was submitted. */
    private @Nullable RuntimeException submitFailure;

    HoldingStream(StreamHandle device, ContextHandle context, HostWaits waits, String name, HeldRecords heldRecords) {
        this.device = device;
        this.heldRecords = heldRecords;
        this.context = context;
        this.holdOnHost = waits == HostWaits.HOLD_ON_HOST;
        this.name = name;
    }

    // ---------------------------------------------------------------- queue items

    /** One held step: submitted in order once {@link #ready()}. */
    private interface Held {
        boolean ready();

        /** Submits the step to the backend; returns the submission it completed, if any, whose waiters to wake. */
        @Nullable Submission submit();
    }

    private record Op(Runnable action) implements Held {
        @Override
        public boolean ready() {
            return true;
        }

        @Override
        public @Nullable Submission submit() {
            action.run();
            return null;
        }
    }

    /** Held work that other streams may wait for: a completion marker or an event record. */
    static class Submission {
        private volatile boolean submitted;
        private @Nullable List<HoldingStream> waiters;

        final boolean isSubmitted() {
            return submitted;
        }

        /** Makes {@code stream} submit its queue once this is submitted (at once if it is already). */
        final void wake(HoldingStream stream) {
            synchronized (this) {
                if (!submitted) {
                    if (waiters == null) {
                        waiters = new ArrayList<>(2);
                    }
                    waiters.add(stream);
                    return;
                }
            }
            stream.drain();
        }

        /** Under the submitting stream's lock. */
        final void markSubmitted() {
            synchronized (this) {
                submitted = true;
                notifyAll();
            }
        }

        /** Outside any stream's lock. */
        final void wakeWaiters() {
            List<HoldingStream> w;
            synchronized (this) {
                w = waiters;
                waiters = null;
            }
            if (w != null) {
                for (HoldingStream s : w) {
                    s.drain();
                }
            }
        }

        final synchronized boolean awaitSubmitted(long timeoutNanos) {
            long deadline = System.nanoTime() + timeoutNanos;
            boolean interrupted = false;
            try {
                while (!submitted) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                return true;
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * A completion marker whose work is held: not done until the work has been submitted (then the backend's marker
     * decides). {@link #failure()} is the failure of a held operation it stands for, which the completion engine gives
     * to its future.
     */
    static final class HeldMarker extends Submission implements Marker, Outcome {
        private volatile @Nullable Marker real;
        private volatile @Nullable RuntimeException failure;
        private volatile boolean released;

        @Override
        public @Nullable RuntimeException failure() {
            return failure;
        }

        @Override
        public boolean isDone() {
            Marker r = real;
            return r != null && r.isDone();
        }

        @Override
        public boolean awaitDone(long timeoutNanos) {
            long start = System.nanoTime();
            if (!awaitSubmitted(timeoutNanos)) {
                return false;
            }
            Marker r = real;
            return r != null && r.awaitDone(Math.max(0, timeoutNanos - (System.nanoTime() - start)));
        }

        @Override
        public void release() {
            released = true;
            Marker r = real;
            if (r != null) {
                r.release();
            }
        }

        /** Passes on to the device's marker once recorded; before that there is nothing to prepare. */
        @Override
        public void awaited() {
            Marker r = real;
            if (r != null && !released) {
                r.awaited();
            }
        }
    }

    private final class MarkerStep implements Held {
        final HeldMarker marker;

        MarkerStep(HeldMarker marker) {
            this.marker = marker;
        }

        @Override
        public boolean ready() {
            return true;
        }

        @Override
        public Submission submit() {
            Marker r;
            RuntimeException failure = submitFailure;
            submitFailure = null;
            try {
                r = device.recordMarker();
            } catch (RuntimeException e) {
                r = Marker.DONE;
                failure = failure != null ? failure : e;
            }
            marker.failure = failure;
            marker.real = r;
            marker.markSubmitted();
            return marker;
        }
    }

    /**
     * Waits, still on the host, for another stream's held work to be submitted, then as {@code then} says;
     * {@code dropped} runs instead if this stream is destroyed first.
     */
    private record AfterSubmission(Submission awaited, Runnable then, @Nullable Runnable dropped) implements Held {
        AfterSubmission(Submission awaited, Runnable then) {
            this(awaited, then, null);
        }

        @Override
        public boolean ready() {
            return awaited.isSubmitted();
        }

        @Override
        public @Nullable Submission submit() {
            then.run();
            return null;
        }
    }

    private final class Gate implements Held, HostGate {
        private volatile boolean open;
        /** A host function's turn, which opens by itself once the work before it has finished and the function ran. */
        final boolean hostFunction;

        Gate(boolean hostFunction) {
            this.hostFunction = hostFunction;
        }

        @Override
        public boolean ready() {
            return open;
        }

        @Override
        public @Nullable Submission submit() {
            return null;
        }

        @Override
        public void open() {
            open = true;
            drain();
        }
    }

    // ---------------------------------------------------------------- holding and submitting

    /** Queues {@code step} if the stream is holding; false if it is not (the caller submits directly). */
    private boolean enqueueIfHolding(Held step) {
        lock.lock();
        try {
            if (!holding) {
                return false;
            }
            queue.add(step);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Starts holding (or keeps on) with {@code step} at the end of the queue. */
    private void hold(Held step) {
        lock.lock();
        try {
            queue.add(step);
            holding = true;
        } finally {
            lock.unlock();
        }
    }

    /** Submits the queue up to the first step that is not ready; any thread, at any time. */
    void drain() {
        List<Submission> done = null;
        lock.lock();
        try {
            Held step;
            while (!destroyed && (step = queue.peek()) != null && step.ready()) {
                queue.poll();
                Submission s = null;
                try {
                    s = step.submit();
                } catch (RuntimeException e) {
                    if (submitFailure == null) {
                        submitFailure = e;
                    }
                }
                if (s != null) {
                    if (done == null) {
                        done = new ArrayList<>(4);
                    }
                    done.add(s);
                }
            }
            if (queue.isEmpty()) {
                holding = false;
            }
            drained.signalAll(); // also wakes a closing context waiting for a host function's turn to pass
        } finally {
            lock.unlock();
        }
        if (done != null) {
            for (Submission s : done) {
                s.wakeWaiters();
            }
        }
    }

    // ---------------------------------------------------------------- StreamHandle

    /**
     * Hands {@code step} to the backend, or, while holding, queues it: detached ({@link WorkStep#detached}), since the
     * caller reuses a launch's arguments for its next launch.
     */
    @Override
    public void enqueue(WorkStep step) {
        if (holding) {
            WorkStep kept = step.detached();
            if (enqueueIfHolding(new Op(() -> device.enqueue(kept)))) {
                return;
            }
        }
        device.enqueue(step);
    }

    /**
     * While holding, the memory is allocated at once from the context rather than in stream order: the work that
     * uses it is queued behind this call anyway, and every backend frees context allocations in stream order too.
     */
    @Override
    public DeviceMemory allocate(long bytes) {
        return holding ? context.allocate(bytes) : device.allocate(bytes);
    }

    @Override
    public void free(DeviceMemory memory) {
        if (!holding || !enqueueIfHolding(new Op(() -> device.free(memory)))) {
            device.free(memory);
        }
    }

    /**
     * Whether later operations are held on the host now. Under the stream's lock it stays false until this stream
     * enqueues a wait for the host or for held work.
     */
    boolean isHolding() {
        return holding;
    }

    /** Launches an executable graph here (a backend's graph launches on its own stream type). */
    void launchGraph(GraphHandle graph) {
        if (!holding || !enqueueIfHolding(new Op(() -> graph.launch(device)))) {
            graph.launch(device);
        }
    }

    /**
     * A held event record: while queued, waits for the event and queries of it wait for this record.
     *
     * <p>Two rules keep the meaning of calls, which the device would otherwise see in submission order. A wait on the
     * event captured while this record is held waits for this record's work: so such waits wait on an event of their
     * own (the stand-in), which this record writes next to the event, since by the time the waits reach the device a
     * later record may have moved the event on. And a record of the same event made later by call on another stream,
     * while this one is still held, overtakes it: this record then leaves the event alone (the stand-in still serves
     * the waits captured before).
     */
    private static final class RecordStep extends Submission implements Held {
        final HoldingStream stream;
        final EventHandle event;
        /** Under this step's monitor. */
        private boolean overtaken;
        /** Under this step's monitor: created with the first captured wait, destroyed after the last one. */
        private @Nullable EventHandle standIn;
        /** Under this step's monitor: waits captured on this record that have not reached the device yet. */
        private int capturedWaits;

        RecordStep(HoldingStream stream, EventHandle event) {
            this.stream = stream;
            this.event = event;
        }

        @Override
        public boolean ready() {
            return true;
        }

        @Override
        public Submission submit() {
            try {
                // Under the monitor: a later record either overtook this one before, or waits until it is on the device.
                synchronized (this) {
                    if (!overtaken) {
                        stream.device.record(event);
                    }
                    if (standIn != null) {
                        stream.device.record(standIn);
                    }
                }
            } finally {
                settle();
            }
            destroyStandInIfUnused();
            return this;
        }

        void settle() {
            stream.heldRecords.records.remove(event, this);
            markSubmitted();
        }

        /** A record of the event made, by call, after this one, on another stream: see the class comment. */
        void overtake() {
            synchronized (this) {
                if (isSubmitted()) {
                    return; // already on the device, before the later record
                }
                overtaken = true;
            }
            stream.heldRecords.records.remove(event, this);
        }

        /** Registers a wait on this record; false if it is on the device already or was overtaken (wait on the event). */
        boolean captureWait() {
            synchronized (this) {
                if (isSubmitted() || overtaken) {
                    return false;
                }
                if (standIn == null) {
                    standIn = stream.context.createEvent(Set.of());
                }
                capturedWaits++;
                return true;
            }
        }

        /** The captured wait of {@code waiter}, once this record is submitted: on the stand-in this record wrote. */
        void enqueueWait(StreamHandle waiter) {
            EventHandle e;
            synchronized (this) {
                e = standIn;
            }
            try {
                if (e != null) {
                    waiter.waitEvent(e);
                }
            } finally {
                releaseWait();
            }
        }

        /** A captured wait that reached the device, or was dropped with its stream. */
        void releaseWait() {
            synchronized (this) {
                capturedWaits--;
            }
            destroyStandInIfUnused();
        }

        private void destroyStandInIfUnused() {
            EventHandle e;
            synchronized (this) {
                if (standIn == null || capturedWaits > 0 || !isSubmitted()) {
                    return;
                }
                e = standIn;
                standIn = null;
            }
            e.destroy(); // the backends release an event still awaited on the device once the wait has passed
        }
    }

    @Override
    public void record(EventHandle event) {
        if (heldRecords.records.get(event) instanceof RecordStep earlier && earlier.stream != this) {
            earlier.overtake();
        }
        if (holding) {
            RecordStep step = new RecordStep(this, event);
            heldRecords.records.put(event, step); // before queueing: the queue may be submitted at once
            if (enqueueIfHolding(step)) {
                return;
            }
            step.settle();
        }
        device.record(event);
    }

    @Override
    public void waitEvent(EventHandle event) {
        if (heldRecords.records.get(event) instanceof RecordStep record && record.captureWait()) {
            hold(new AfterSubmission(record, () -> record.enqueueWait(device), record::releaseWait));
            record.wake(this);
            return;
        }
        if (!holding || !enqueueIfHolding(new Op(() -> device.waitEvent(event)))) {
            device.waitEvent(event);
        }
    }

    @Override
    public Marker recordMarker() {
        if (holding) {
            HeldMarker m = new HeldMarker();
            if (enqueueIfHolding(new MarkerStep(m))) {
                return m;
            }
        }
        return device.recordMarker();
    }

    @Override
    public void waitMarker(Marker marker) {
        if (marker == Marker.DONE) {
            return; // stands for work that never reached the device: nothing to wait for, and no backend's marker
        }
        if (marker instanceof HeldMarker held) {
            if (!held.isSubmitted()) {
                hold(new AfterSubmission(held, () -> waitSubmitted(held)));
                held.wake(this);
                return;
            }
            if (!holding || !enqueueIfHolding(new Op(() -> waitSubmitted(held)))) {
                waitSubmitted(held);
            }
            return;
        }
        if (!holding || !enqueueIfHolding(new Op(() -> device.waitMarker(marker)))) {
            device.waitMarker(marker);
        }
    }

    /** Device-side wait on a held marker's submitted work, unless it was refused or has finished and been recycled. */
    private void waitSubmitted(HeldMarker held) {
        Marker r = held.real;
        if (r != null && r != Marker.DONE && !held.released) {
            device.waitMarker(r);
        }
    }

    @Override
    public HostGate enqueueHostGate() {
        return enqueueHostGate(false);
    }

    /**
     * The gate of a host function's turn: a stage's gate, except that {@link #awaitHostFunctions} knows it opens by
     * itself.
     */
    HostGate enqueueHostFunctionGate() {
        return enqueueHostGate(true);
    }

    private HostGate enqueueHostGate(boolean hostFunction) {
        if (!holdOnHost) {
            return device.enqueueHostGate();
        }
        Gate gate = new Gate(hostFunction);
        hold(gate);
        return gate;
    }

    /**
     * For a closing context: waits, until {@code deadline}, while the first step held is a host function's turn, which
     * opens by itself once the work before it has finished and the function has run, so that the close runs it and the
     * work after it rather than dropping them. A stage's gate, or a wait for another stream's held work, ends the wait
     * (what it holds is dropped), as does an interrupt. Returns whether it waited and may wait again.
     */
    boolean awaitHostFunctions(long deadline) {
        boolean waited = false;
        lock.lock();
        try {
            while (!destroyed && queue.peek() instanceof Gate g && g.hostFunction) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                waited = true;
                drained.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            // close() is not interruptible: it stops waiting and drops what is still held; false, so that the close
            // does not ask again (every later wait would end at once, the flag set)
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
        return waited;
    }

    /**
     * Waits until nothing is held, then for the backend's stream. An interrupt ends the first wait (work held behind a
     * stage may wait for ever) with a {@link SluiceException} caused by the {@link InterruptedException}, the interrupt
     * flag set again; the backend's own wait cannot be cut short.
     */
    @Override
    public void synchronize() {
        lock.lock();
        try {
            while (holding && !destroyed) {
                try {
                    drained.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SluiceException(name + ": interrupted while waiting for work held behind a wait for the host;"
                            + " that work goes on once the wait ends", e);
                }
            }
        } finally {
            lock.unlock();
        }
        device.synchronize();
    }

    @Override
    public void beginCapture() {
        lock.lock();
        try {
            if (holding) {
                throw new IllegalStateException(name + " is waiting for the host (a stage or a host function enqueued"
                        + " earlier); capture once that wait has ended, for example after synchronize()");
            }
            device.beginCapture();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void captureHostStep(Runnable step) {
        if (!holding || !enqueueIfHolding(new Op(() -> device.captureHostStep(step)))) {
            device.captureHostStep(step);
        }
    }

    @Override
    public GraphHandle endCapture() {
        return device.endCapture();
    }

    /** Drops what is still held (the public layer destroys a stream only after waiting for it, or after a fault). */
    @Override
    public void destroy() {
        drop(new ClosedResourceException(name + " (destroyed before this work was submitted)"), true);
        device.destroy();
    }

    /**
     * Drops the work held on the host without submitting it, for a context that closes while a stage it waits for has
     * not completed: the held operations never run, and their futures (through their markers) fail with {@code cause}.
     */
    void dropHeld(RuntimeException cause) {
        drop(cause, false);
    }

    private void drop(RuntimeException cause, boolean destroy) {
        List<Submission> dropped = new ArrayList<>();
        lock.lock();
        try {
            if (destroy) {
                destroyed = true;
            }
            for (Held step : queue) {
                if (step instanceof MarkerStep m) {
                    m.marker.failure = cause;
                    m.marker.real = Marker.DONE;
                    m.marker.markSubmitted();
                    dropped.add(m.marker);
                } else if (step instanceof RecordStep r) {
                    r.settle();
                    dropped.add(r);
                } else if (step instanceof AfterSubmission a && a.dropped() != null) {
                    a.dropped().run();
                }
            }
            queue.clear();
            holding = false;
            drained.signalAll();
        } finally {
            lock.unlock();
        }
        for (Submission sub : dropped) {
            sub.wakeWaiters();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
