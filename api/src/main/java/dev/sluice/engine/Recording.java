package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.TraceSpan;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.WorkStep;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What one call of repeated work has recorded on a stream so far: each operation's description, its future, and the
 * memory it will claim when it is submitted. Nothing of it has reached the backend, claimed memory or taken a place in
 * the stream's order yet. Under the stream's lock.
 */
final class Recording {

    /**
     * One recorded operation.
     *
     * @param kind      its trace kind, as its plain enqueue would have marked it
     * @param keep      kept reachable until it has run (the public function of a launch)
     * @param regions   the memory it uses, claimed when it is submitted
     * @param writes    whether it writes each region
     * @param arguments each region's argument name, made only for the refusal of a region closed since
     * @param host      the page-locked host memory a copy to or from the host uses, claimed when it is submitted
     */
    record Step(WorkStep work, Operation<?> future, String kind, @Nullable Object keep, Region[] regions,
            boolean[] writes, ArgumentNames arguments, @Nullable HostUse host) {

        Step(WorkStep work, Operation<?> future, String kind, @Nullable Object keep, Region[] regions, boolean[] writes,
                ArgumentNames arguments) {
            this(work, future, kind, keep, regions, writes, arguments, null);
        }

        /** The bytes a copy moves, for listeners and metrics; 0 for other steps. */
        long bytes() {
            return switch (work) {
                case WorkStep.Copy c -> c.bytes();
                case WorkStep.Upload u -> u.bytes();
                case WorkStep.Download d -> d.bytes();
                case WorkStep.Launch _, WorkStep.Fill _ -> 0;
            };
        }
    }

    /**
     * The argument names of a step's regions, in the words of the enqueue's own refusals. Made only when a refusal needs
     * one: building them for every recorded launch cost more than the rest of its recording.
     */
    @FunctionalInterface
    interface ArgumentNames {
        /** The name of the argument of region {@code region}. */
        String name(int region);

        /** Names given up front. */
        static ArgumentNames of(String... names) {
            return region -> names[region];
        }

        /** A launch's: region {@code j} is its j-th pointer argument. */
        static ArgumentNames ofPointers(List<KernelParam> params) {
            return region -> {
                for (int i = 0, j = 0; i < params.size(); i++) {
                    if (params.get(i).isPointer() && j++ == region) {
                        return "arguments[" + i + "] (" + params.get(i) + ")";
                    }
                }
                throw new IndexOutOfBoundsException(region);
            };
        }
    }

    private static final ArgumentNames DESTINATION = ArgumentNames.of("destination");
    private static final ArgumentNames SOURCE = ArgumentNames.of("source");
    private static final ArgumentNames SOURCE_DESTINATION = ArgumentNames.of("source", "destination");

    /**
     * Host memory a recorded copy uses.
     *
     * @param buffer   the pinned or registered memory
     * @param what     the host buffer, named if it closed since the caller's check
     * @param argument its argument's name
     */
    record HostUse(HostAllocation buffer, Object what, String argument) {
    }

    private final List<Step> steps = new ArrayList<>();
    /** The thread running the body: only its enqueues are recorded (another thread's make the call fall back). */
    private final Thread owner = Thread.currentThread();
    /** The stream whose enqueues this records. */
    final StreamEngine stream;
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

    Recording(StreamEngine stream) {
        this.stream = stream;
    }

    /**
     * Adds {@code step}, refused naming the argument if its memory is closed (as the enqueue's claim would refuse it).
     * From here on the step's memory is held: its owner's close, {@code whenIdle()} and the leak detector wait for the
     * recording to end, and a close before then lets the step run as it would an enqueued operation.
     */
    void add(StreamCore core, Step step) {
        // Held before the closed flags are read: a close that the reads below miss finds the hold and defers its free
        // until the recording ends (the hold's monitor, then the flag, against the close's flag, then the monitor).
        HostUse h = step.host();
        for (Region r : step.regions()) {
            hold(r.allocation().uses);
        }
        if (h != null) {
            hold(h.buffer().uses);
        }
        for (int i = 0; i < step.regions().length; i++) {
            if (step.regions()[i].allocation().closed.get()) {
                throw new ClosedResourceException(step.arguments().name(i) + " " + step.regions()[i].what());
            }
        }
        if (h != null && h.buffer().closed.get()) {
            throw new ClosedResourceException(h.argument() + " " + h.what());
        }
        step.future().attach(core); // a wait for it on this stream, in the body, needs none
        step.future().recordedUnsubmitted(); // a wait for it anywhere else is refused until it is submitted
        steps.add(step);
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

    /** A fill's step. */
    static Step fill(Operation<?> f, Region destination, long count, int elementBytes, long bits) {
        return new Step(new WorkStep.Fill(destination.memory(), destination.byteOffset(), count, elementBytes, bits), f,
                TraceSpan.MEMSET, null, new Region[] {destination}, new boolean[] {true}, DESTINATION);
    }

    /** The step of a copy between two buffers of one context. */
    static Step copy(Operation<?> f, Region source, Region destination, long bytes) {
        return new Step(new WorkStep.Copy(source.memory(), source.byteOffset(), destination.memory(),
                destination.byteOffset(), bytes), f, TraceSpan.DEVICE_TO_DEVICE, null, new Region[] {source, destination},
                new boolean[] {false, true}, SOURCE_DESTINATION);
    }

    /** The step of a copy of {@code source}, page-locked memory of the stream's context, to {@code destination}. */
    static Step upload(Operation<?> f, MemorySegment source, HostAllocation sourceBuffer, Object sourceWhat,
            Region destination) {
        return new Step(new WorkStep.Upload(source, destination.memory(), destination.byteOffset(),
                destination.byteSize()), f, TraceSpan.UPLOAD, null, new Region[] {destination}, new boolean[] {true},
                DESTINATION, new HostUse(sourceBuffer, sourceWhat, "source"));
    }

    /** The step of a copy of {@code source} to {@code destination}, page-locked memory of the stream's context. */
    static Step download(Operation<?> f, Region source, MemorySegment destination, HostAllocation destinationBuffer,
            Object destinationWhat) {
        return new Step(new WorkStep.Download(source.memory(), source.byteOffset(), destination, source.byteSize()), f,
                TraceSpan.DOWNLOAD, null, new Region[] {source}, new boolean[] {false}, SOURCE,
                new HostUse(destinationBuffer, destinationWhat, "destination"));
    }

    /** A launch's step, with arguments of its own (the stream's are reused by its next launch). */
    static Step launch(Operation<?> f, FunctionHandle function, Object keep, String kind, List<KernelParam> params,
            LaunchConfig config, Object[] arguments, Function<Object, Region> regions) {
        LaunchArguments a = new LaunchArguments();
        setArguments(a, params, arguments, regions);
        int pointers = 0;
        for (KernelParam p : params) {
            pointers += p.isPointer() ? 1 : 0;
        }
        Region[] used = new Region[pointers];
        boolean[] writes = new boolean[pointers];
        for (int i = 0, j = 0; i < arguments.length; i++) {
            KernelParam p = params.get(i);
            if (p.isPointer()) {
                used[j] = regions.apply(arguments[i]);
                writes[j++] = p.access().writes();
            }
        }
        return new Step(new WorkStep.Launch(function, config, a), f, kind, keep, used, writes,
                ArgumentNames.ofPointers(params));
    }

    /**
     * Before a blocking wait for {@code stream}'s work ({@code synchronize}): what a body records there is submitted as
     * plain enqueues, as an operation no graph describes would submit it, so the wait covers it instead of missing it.
     * Returns the stream's last operation, the one to wait for.
     */
    static @Nullable Operation<?> submitBeforeWait(StreamEngine stream) {
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
    static void submitOnOtherStreams(Allocation allocation, StreamEngine except) {
        for (Recording r : allocation.uses.recordings()) {
            if (r.stream != except) {
                submitBeforeWait(r.stream);
            }
        }
    }

    /** Whether the calling thread is the one whose body this records. */
    boolean isOwnedByThisThread() {
        return owner == Thread.currentThread();
    }

    boolean isEmpty() {
        return steps.isEmpty();
    }

    List<Step> steps() {
        return steps;
    }

    /** The descriptions, in order: what a graph is built or updated with. */
    List<WorkStep> work() {
        List<WorkStep> w = new ArrayList<>(steps.size());
        for (Step s : steps) {
            w.add(s.work());
        }
        return w;
    }

    /**
     * Claims each step's memory for the stream's next operation. Memory its owner closed since the step was recorded is
     * claimed all the same: the recording holds it (see {@link #add}), and the step runs as an operation enqueued before
     * the close would.
     */
    static void claim(StreamClaims claims, Step s) {
        for (int i = 0; i < s.regions().length; i++) {
            claims.claimRecorded(s.regions()[i], s.writes()[i]);
        }
        HostUse h = s.host();
        if (h != null) {
            claims.claimRecorded(h.argument(), h.buffer(), h.what());
        }
    }

    /** Notes {@code s}'s future as the use of its memory, ending its claims. */
    static void noteUses(StreamClaims claims, Step s) {
        for (int i = 0; i < s.regions().length; i++) {
            claims.used(s.regions()[i], s.future(), s.writes()[i], null);
        }
        HostUse h = s.host();
        if (h != null) {
            claims.used(h.buffer(), h.what(), s.future(), null);
        }
    }

    /**
     * Enqueues the steps not submitted yet as the plain enqueues they stand for, each claimed, ordered, handed to the
     * backend, marked and noted in turn; a failure fails the step's future and those after it.
     */
    void submitPlain(StreamEngine stream) {
        try {
            for (; done < steps.size(); done++) {
                Step s = steps.get(done);
                stream.claims().begin();
                claim(stream.claims(), s);
                stream.claims().orderAfterHazards();
                s.work().enqueueOn(stream.handle);
                stream.copyBytes = s.bytes(); // what its listeners hear a copy moved
                stream.mark(s.future(), s.kind(), s.keep());
                s.future().submitted();
                noteUses(stream.claims(), s);
            }
        } catch (RuntimeException e) {
            fail(stream.core, e);
            throw e;
        }
    }

    /** After the graph that runs the steps was launched: each future completes once the launch has finished. */
    void markReplayed(StreamEngine stream) {
        for (Step s : steps) {
            stream.markRecorded(s.future(), s.kind(), s.bytes(), s.keep());
            s.future().submitted();
        }
        done = steps.size();
        for (Step s : steps) {
            noteUses(stream.claims(), s);
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
            b.append(i == 0 ? "" : ", ").append(steps.get(i).kind());
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
    void fail(StreamCore core, Throwable cause) {
        for (; done < steps.size(); done++) {
            Operation<?> f = steps.get(done).future();
            f.attach(core);
            f.submitted();
            f.fail(cause);
        }
    }

    /** Sets a launch's arguments, pointers through {@code regions}. */
    static void setArguments(LaunchArguments a, List<KernelParam> params, Object[] arguments,
            Function<Object, Region> regions) {
        a.reset(params);
        for (int i = 0; i < arguments.length; i++) {
            KernelParam p = params.get(i);
            Object v = arguments[i];
            if (p.isPointer()) {
                Region r = regions.apply(v);
                a.setPointer(i, r.memory(), r.byteOffset());
            } else {
                a.setBits(i, v instanceof Boolean bool ? (bool ? 1 : 0) : p.type().bits(p.name(), (Number) v));
            }
        }
    }
}
