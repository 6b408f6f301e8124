package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import dev.sluice.OperationKind;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.UpdatableGraph;
import dev.sluice.spi.WorkStep;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The engine's half of repeated work on one stream: each call records what its body enqueues ({@link Recording}), then
 * launches one graph that runs it all. Graphs are kept between calls, one per shape (the same operations, functions,
 * configurations and sizes, {@link WorkStep#sameShape}) for the last {@value #KEPT_GRAPHS} shapes: a call of a kept
 * shape updates that graph with the call's values; a call of another shape builds a new one, and the graph of the shape
 * launched least recently is destroyed when that makes more than {@value #KEPT_GRAPHS}. Work the backend cannot put in a
 * graph runs as plain enqueues instead, with the same results.
 *
 * <p>Calls are serialised by their own lock, held while the body runs; the kept graphs are under it, and under the
 * stream's lock while a recording is submitted.
 */
public final class ReplayedWork {

    private final ContextRuntime context;
    private final StreamEnqueuer stream;
    private final ReentrantLock calls = new ReentrantLock();
    /**
     * How many graphs one work keeps, one per shape. More than one, so that work whose shape alternates replays each
     * shape's graph: a pipeline's lane whose batches are full but for a short last one, or a kept lane that a stage's
     * tasks of different batch sizes share, would otherwise build a graph at every change (a build costs tens of
     * launches). Few, because each graph holds driver resources and is searched at every call.
     */
    static final int KEPT_GRAPHS = 4;

    /** The kept graphs, the one launched last first. */
    private final ArrayList<Kept> kept = new ArrayList<>(KEPT_GRAPHS + 1);
    /** The backend builds no graphs: every call runs as plain enqueues. */
    private boolean unsupported;
    private boolean closed;
    private String name = "RepeatedWork";
    /** The fused kernels of this work's runs of element-wise launches, loaded once per plan. */
    private final FusedLaunches fusion;
    /** Whether runs of element-wise launches are fused; read when a call is submitted. */
    private volatile boolean fuse = true;
    /** Counts, written under the stream's lock and read by any thread. */
    private volatile long replays;
    private volatile long builds;
    private volatile long fallbacks;
    private volatile long fusedLaunches;

    /**
     * Repeated work on {@code stream}, with no graph yet.
     *
     * @throws ClosedResourceException if the stream or its context is closed
     */
    public ReplayedWork(StreamEnqueuer stream) {
        stream.core.lock();
        try {
            stream.checkOpenLocked();
        } finally {
            stream.core.unlock();
        }
        this.context = stream.context();
        this.stream = stream;
        this.fusion = new FusedLaunches(context);
    }

    /** Names the work in messages by its public side. */
    public void name(String workName) {
        this.name = workName;
    }

    /**
     * Runs {@code body}, which enqueues on the stream, recording its work, then submits it as one graph launch (or as
     * plain enqueues) and fills in {@code f}, which completes after all of it.
     */
    public <F extends Operation<?>> F enqueue(F f, Runnable body) {
        awaitTurn();
        try {
            if (closed) {
                throw new ClosedResourceException(name);
            }
            Recording r = new Recording(stream);
            try {
                begin(r);
                try {
                    body.run();
                } catch (Throwable e) { // also what a Kotlin body or a sneaky rethrow throws undeclared: the stream must stop recording
                    abandon(r, e);
                    throw e;
                }
                return end(f, r);
            } finally {
                r.endHolds(); // submitted or dropped by now: frees and whenIdle() stages that waited for it go ahead
            }
        } finally {
            calls.unlock();
        }
    }

    /**
     * Takes the calls' lock. A call waits here only while another thread's call runs its body and submits it, never for
     * the device; the reactive module's BlockHound integration names this method so.
     */
    private void awaitTurn() {
        calls.lock();
    }

    /** Starts recording the stream's enqueues into {@code r} instead of submitting them. */
    private void begin(Recording r) {
        stream.core.lock();
        try {
            stream.checkOpenLocked();
            Recording outer = stream.recording;
            if (outer != null && outer.isOwnedByThisThread() && calls.getHoldCount() == 1) {
                // Another work's body on this thread calls this one: that call falls back from here, as it does for any
                // operation no graph describes (what it recorded is submitted first, in order).
                stream.recording = null;
                outer.submitPlain(stream);
            } else if (stream.isCapturing() || outer != null) {
                throw new IllegalStateException(stream + " is capturing or recording other repeated work: " + name
                        + " cannot begin on it now");
            }
            stream.recording = r;
        } finally {
            stream.core.unlock();
        }
    }

    /** The body threw {@code cause}: nothing recorded is submitted, and the recorded futures fail. */
    private void abandon(Recording r, Throwable cause) {
        stream.core.lock();
        try {
            if (take(stream, r)) {
                r.fail(stream.core, new IllegalStateException("not enqueued: the body of " + name + " threw " + cause,
                        cause));
            }
        } finally {
            stream.core.unlock();
        }
    }

    /** Ends {@code r} if the stream still records into it; false if it was submitted already. Under the lock. */
    private static boolean take(StreamEnqueuer s, Recording r) {
        if (s.recording != r) {
            return false;
        }
        s.recording = null;
        return true;
    }

    /** Ends {@code r} and submits what it recorded; {@code f} completes after all of it. */
    private <F extends Operation<?>> F end(F f, Recording r) {
        StreamEnqueuer s = stream;
        s.core.lock();
        try {
            boolean whole = take(s, r); // false: an operation no graph describes submitted it already
            s.checkOpenLocked();
            s.claims().begin();
            s.traceFromHere();
            if (!whole) {
                fallbacks++;
            }
            return whole && !r.isEmpty() ? submit(s, r, f) : s.mark(f, OperationKind.MARKER, null);
        } catch (RuntimeException e) {
            r.fail(s.core, e);
            throw s.failed(e);
        } finally {
            s.core.unlock();
        }
    }

    /**
     * Submits {@code r} under the stream's lock: claims its memory and orders it after other streams' uses as its
     * operations would be, then launches the graph updated (or built) for it, or, where no graph can run it, enqueues
     * its operations one by one. Marks {@code f} last.
     */
    <F extends Operation<?>> F submit(StreamEnqueuer s, Recording r, F f) {
        if (!unsupported && !closed) { // closed by the body itself: a graph built now would never be destroyed
            r.claimAll(s.claims());
            s.claims().orderAfterHazards(null);
            // Held work is launched later, from a queue: the graph updated for it would be updated again by then.
            if (!s.handle.isHolding() && !s.isCapturing()) {
                FusedLaunches.Result fused = fuse ? fusion.work(r) : FusedLaunches.Result.unfused(r);
                List<WorkStep> work = fused.work();
                Kept same = keptOfShape(work); // moved first
                boolean built = same == null || !same.update(work);
                UpdatableGraph g = built ? build(work, same) : same.graph;
                if (g != null) {
                    s.handle.launchGraph(g);
                    r.markReplayed(s);
                    replays++;
                    fusedLaunches += fused.launches();
                    r.fused(fused.launches(), fused.kernels());
                    return s.markReplay(f, built ? OperationKind.REPLAY_BUILT : OperationKind.REPLAY, g, r);
                }
            }
            s.claims().giveBack(); // claimed again step by step
        }
        r.submitPlain(s);
        fallbacks++;
        return s.mark(f, OperationKind.MARKER, null);
    }

    private static boolean sameShape(List<WorkStep> last, List<WorkStep> work) {
        if (last.size() != work.size()) {
            return false;
        }
        for (int i = 0; i < work.size(); i++) {
            if (!last.get(i).sameShape(work.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** The kept graph of {@code work}'s shape, moved first; null if none is kept. */
    private @Nullable Kept keptOfShape(List<WorkStep> work) {
        for (int i = 0; i < kept.size(); i++) {
            Kept k = kept.get(i);
            if (sameShape(k.shape, work)) {
                if (i > 0) {
                    kept.remove(i);
                    kept.addFirst(k);
                }
                return k;
            }
        }
        return null;
    }

    /**
     * A new graph for {@code work}, kept first: in place of {@code replaced} (a graph of the same shape that refused the
     * update), or else beside the others, the least recently launched destroyed beyond {@link #KEPT_GRAPHS}. Launches of
     * a destroyed graph already enqueued still run. Null if the backend builds no graphs.
     */
    private @Nullable UpdatableGraph build(List<WorkStep> work, @Nullable Kept replaced) {
        UpdatableGraph made;
        try {
            made = context.handle().buildGraph(work);
        } catch (UnsupportedOnBackendException e) {
            unsupported = true;
            return null;
        }
        builds++;
        UpdatableGraph old = null;
        if (replaced != null) {
            old = replaced.graph;
            replaced.graph = made;
            replaced.shape = work;
        } else {
            kept.addFirst(new Kept(made, work));
            if (kept.size() > KEPT_GRAPHS) {
                old = kept.removeLast().graph;
            }
        }
        if (old != null) {
            old.destroy();
        }
        return made;
    }

    /** Graph launches so far, the first of each shape included. */
    public long replays() {
        return replays;
    }

    /**
     * Graphs built so far: one for each call whose shape no kept graph had (the first call's included), and one for each
     * call whose kept graph refused its values.
     */
    public long builds() {
        return builds;
    }

    /** Calls that ran as plain enqueues. */
    public long fallbacks() {
        return fallbacks;
    }

    /** Recorded launches that ran inside a fused kernel so far. */
    public long fusedLaunches() {
        return fusedLaunches;
    }

    /** Fuses runs of element-wise launches in the calls submitted from now on, or not ({@code false}). */
    public void fuse(boolean on) {
        fuse = on;
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Destroys the kept graphs, after a call in progress on another thread; launches already enqueued still run (the
     * drivers free an executable graph once its launches have finished). Nothing to destroy once the context is closed;
     * a context close on another thread waits for a destruction in progress before it closes the native context.
     */
    public void close() {
        calls.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (!kept.isEmpty()) {
                // Noted before the check: a context close from here on waits for the destruction before its native close.
                context.handshake().beginRelease();
                try {
                    if (!context.isClosed()) {
                        kept.forEach(k -> k.graph.destroy());
                    }
                } finally {
                    context.handshake().endRelease();
                }
                kept.clear();
            }
            fusion.close();
        } finally {
            calls.unlock();
        }
    }

    /** A kept graph and the work it was last built or updated for. */
    private static final class Kept {
        UpdatableGraph graph;
        List<WorkStep> shape;

        Kept(UpdatableGraph graph, List<WorkStep> shape) {
            this.graph = graph;
            this.shape = shape;
        }

        /** Updates the graph with {@code work}'s values (same shape); false if the backend refused. */
        boolean update(List<WorkStep> work) {
            if (graph.update(work)) {
                shape = work;
                return true;
            }
            return false;
        }
    }
}
