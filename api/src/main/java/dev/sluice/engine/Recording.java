package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import dev.sluice.spi.WorkStep;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one call of repeated work has recorded on a stream so far: each operation as a {@link Work} of its own (a copy of
 * the stream's description, completing the future its enqueue returned). Nothing of it has reached the backend, claimed
 * memory or taken a place in the stream's order yet, though the memory it uses is held from the moment it is recorded.
 * Under the stream's lock.
 */
final class Recording implements UseTracker.Recorder {

    private final List<Work> steps = new ArrayList<>();
    /** The thread running the body: only its enqueues are recorded (another thread's make the call fall back). */
    private final Thread owner = Thread.currentThread();
    /** The stream whose enqueues this records. */
    final StreamEnqueuer stream;
    /**
     * The memory the steps use, each noted once as held by this recording ({@link UseTracker#recordedBy}) from the
     * moment a step on it is recorded until the recording ends ({@link #endHolds}): a free, {@code whenIdle()} or the
     * leak detector waits for that, as for an enqueued use. Under the stream's lock until the end.
     */
    private UseTracker[] held = new UseTracker[4];
    private int heldCount;
    /** How many steps have been submitted (their futures marked) or failed. */
    private int done;
    /** How many of the launches ran inside fused kernels, and in how many, for the trace label. */
    private int fusedLaunches;
    private int fusedKernels;

    Recording(StreamEnqueuer stream) {
        this.stream = stream;
    }

    /**
     * Adds {@code w}, a copy of the stream's description completing its future, refused naming the argument if its
     * memory is closed (as the enqueue's claim would refuse it). From here on its memory is held: its owner's close,
     * {@code whenIdle()} and the leak detector wait for the recording to end, and a close before then lets the
     * operation run as it would one enqueued before the close.
     */
    void add(StreamOrder core, Work w) {
        // Held before the closed flags are read: a close that the reads below miss finds the hold and defers its free
        // until the recording ends (the hold's monitor, then the flag, against the close's flag, then the monitor).
        HostAllocation h = w.host;
        for (int i = 0; i < w.regionCount; i++) {
            hold(w.regions[i].allocation().uses);
        }
        if (h != null) {
            hold(h.uses);
        }
        for (int i = 0; i < w.regionCount; i++) {
            if (w.regions[i].allocation().closed.get()) {
                throw new ClosedResourceException(w.argumentName(i) + " " + w.regions[i].what());
            }
        }
        if (h != null && h.closed.get()) {
            throw new ClosedResourceException(w.hostArgument + " " + w.hostWhat);
        }
        Operation<?> f = Objects.requireNonNull(w.future);
        f.attach(core); // a wait for it on this stream, in the body, needs none
        f.recordedUnsubmitted(); // a wait for it anywhere else is refused until it is submitted
        steps.add(w);
    }

    /** Notes {@code uses}' memory as held by this recording, once. Under the stream's lock. */
    private void hold(UseTracker uses) {
        for (int i = 0; i < heldCount; i++) {
            if (held[i] == uses) {
                return;
            }
        }
        if (heldCount == held.length) {
            held = java.util.Arrays.copyOf(held, heldCount * 2);
        }
        held[heldCount++] = uses;
        uses.recordedBy(this);
    }

    /**
     * Ends the holds on the steps' memory, once the recording has been submitted (each step's use noted) or dropped:
     * frees, {@code whenIdle()} stages and leak releases that waited for it go ahead, on the calling thread. Not under
     * the stream's lock; idempotent.
     */
    void endHolds() {
        UseTracker[] h = held;
        int n = heldCount;
        held = new UseTracker[0];
        heldCount = 0;
        for (int i = 0; i < n; i++) {
            h[i].recordingEnded(this);
        }
    }

    /**
     * Before a blocking wait for {@code stream}'s work ({@code synchronize}): what a body records there is submitted as
     * plain enqueues, as an operation no graph describes would submit it, so the wait covers it instead of missing it.
     * Returns the stream's last operation, the one to wait for.
     */
    static @Nullable Operation<?> submitBeforeWait(StreamEnqueuer stream) {
        if (stream.recording != null) { // read without the lock: begin() checks again under it
            stream.begin();
            stream.end();
        }
        return stream.core.last();
    }

    /**
     * Submits, as plain enqueues, what repeated work on streams other than {@code except} has recorded on
     * {@code allocation} and not submitted yet (as a wait for those streams' work would), so that their uses are noted
     * and an operation of {@code except} can be ordered after them; what {@code except} itself records is submitted by
     * its next enqueue, in its own order.
     */
    static void submitOnOtherStreams(Allocation allocation, StreamEnqueuer except) {
        for (UseTracker.Recorder r : allocation.uses.recordings()) {
            r.submitUnlessOn(except);
        }
    }

    @Override
    public void submitUnlessOn(StreamEnqueuer except) {
        if (stream != except) {
            submitBeforeWait(stream);
        }
    }

    /** Whether the calling thread is the one whose body this records. */
    boolean isOwnedByThisThread() {
        return owner == Thread.currentThread();
    }

    boolean isEmpty() {
        return steps.isEmpty();
    }

    List<Work> steps() {
        return steps;
    }

    /** The descriptions, in order: what a graph is built or updated with. */
    List<WorkStep> work() {
        List<WorkStep> w = new ArrayList<>(steps.size());
        for (Work s : steps) {
            w.add(s.step);
        }
        return w;
    }

    /**
     * Enqueues the steps not submitted yet as the plain enqueues they stand for, each through the stream's one path in
     * turn (their memory held: claimed whatever its owner did since); a failure fails the step's future and those after
     * it.
     */
    void submitPlain(StreamEnqueuer stream) {
        try {
            for (; done < steps.size(); done++) {
                Work w = steps.get(done);
                Operation<?> f = Objects.requireNonNull(w.future);
                stream.claims().begin();
                stream.enqueueLocked(f, w, true);
                f.submitted();
            }
        } catch (RuntimeException e) {
            fail(stream.core, e);
            throw e;
        }
    }

    /** Claims, for the graph launch that runs them, the memory every step uses (held: claimed whatever happened since). */
    void claimAll(StreamClaims claims) {
        for (Work w : steps) {
            claims.claim(w, true, false);
        }
    }

    /** After the graph that runs the steps was launched: each future completes once the launch has finished. */
    void markReplayed(StreamEnqueuer stream) {
        for (Work w : steps) {
            stream.markRecorded(w);
            Objects.requireNonNull(w.future).submitted();
        }
        done = steps.size();
        for (Work w : steps) {
            stream.claims().used(w, Objects.requireNonNull(w.future), null);
        }
    }

    /** Notes that {@code launches} of the steps ran inside {@code kernels} fused kernels. */
    void fused(int launches, int kernels) {
        fusedLaunches = launches;
        fusedKernels = kernels;
    }

    /**
     * What a graph launch of these steps runs, for its trace span: the user's label (if any), then the steps' kinds,
     * the first few of them ({@code "chunk 3: kernel scale, memset (2 operations)"}).
     */
    String traceLabel(@Nullable String userLabel) {
        StringBuilder b = new StringBuilder();
        if (userLabel != null) {
            b.append(userLabel).append(": ");
        }
        int shown = Math.min(steps.size(), 3);
        for (int i = 0; i < shown; i++) {
            b.append(i == 0 ? "" : ", ").append(steps.get(i).traceKind);
        }
        if (shown < steps.size()) {
            b.append(", ...");
        }
        b.append(" (").append(steps.size()).append(steps.size() == 1 ? " operation" : " operations");
        if (fusedKernels > 0) {
            b.append(", ").append(fusedLaunches).append(" launches fused into ").append(fusedKernels)
                    .append(fusedKernels == 1 ? " kernel" : " kernels");
        }
        return b.append(')').toString();
    }

    /** Fails the futures of the steps not submitted: they will never run. */
    void fail(StreamOrder core, Throwable cause) {
        for (; done < steps.size(); done++) {
            Operation<?> f = Objects.requireNonNull(steps.get(done).future);
            f.attach(core);
            f.submitted();
            f.fail(cause);
        }
    }
}
