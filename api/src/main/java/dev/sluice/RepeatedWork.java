package dev.sluice;

import dev.sluice.engine.ReplayedWork;
import java.util.function.Consumer;

/**
 * Work of the same shape enqueued again and again on one stream (a pipeline's per-chunk kernels on fixed buffers, a
 * solver's iteration), launched as one graph per call instead of one enqueue per operation. Made by
 * {@link DeviceStream#repeatedWork()}.
 *
 * <p>Each {@link #enqueue} runs its body, which enqueues on the stream as usual. Launches, fills, memsets, copies
 * between buffers of the stream's context, and whole-buffer copies between a buffer and pinned or registered host
 * memory of the stream's context ({@link DeviceContext#allocateHost}, {@link DeviceContext#registerHost}) are checked
 * as always and <em>recorded</em> instead of submitted. When the body returns, the recording becomes one launch of a
 * graph (CUDA and HIP graphs; the CPU simulator replays its own recording). The graph is kept: the next call whose
 * recording has the same shape (the same operations in the same order, with the same functions, launch configurations,
 * copy sizes and fill sizes) updates only the values that changed (kernel arguments, buffers, offsets, fill values) and
 * launches it again. The graphs of the last four shapes are kept, so work that alternates between a few shapes (full
 * chunks and a short last one) replays each; a call of a fifth shape builds a new graph and destroys the one launched
 * least recently. {@link #replays()},
 * {@link #builds()} and {@link #fallbacks()} count what ran; with tracing on, each graph launch is a span of kind
 * {@link TraceSpan#REPLAY} (or {@link TraceSpan#REPLAY_BUILT}).
 *
 * <p><b>Fallback.</b> An operation that a recording cannot describe (a copy with Java or unpinned host memory, or with
 * pinned memory of another context, a 2-D or peer copy, an event record or wait, a wait for a future or stage, a host
 * function, an allocation or free, a graph launch, a call of another repeated work of the stream, a capture) makes that
 * call fall back to plain enqueues: what was recorded so
 * far is submitted as the enqueues it stands for, then that operation and the rest of the body run as plain enqueues.
 * So does every call of work the backend's graph nodes cannot describe (on CUDA and HIP: launches with a cluster or
 * launch attributes, fills of 8-byte elements), every call on a backend without updatable graphs, and a call made while
 * the stream holds work for the host ({@link HostWaits#HOLD_ON_HOST}). Results are the same either way.
 *
 * <ul>
 * <li><b>Ordering:</b> the call's work runs after everything enqueued on the stream before the call and before
 * everything enqueued after it, in the body's order; automatic ordering across streams applies to it as to the
 * operations it records. Only the body's thread records: work another thread enqueues on the stream while a body runs
 * makes the call fall back (what was recorded so far is submitted first, then that work, in the stream's order), and
 * so does a {@link DeviceStream#synchronize()} of the stream (or {@link DeviceContext#synchronize()}), which then waits
 * for what was recorded. Work the body enqueues on other streams is submitted at once, as always: where it uses a buffer
 * that the body's recorded work also uses, automatic ordering puts it before the recorded work, which is submitted only
 * when the body returns.
 * <li><b>Completion thread:</b> the futures that the body's enqueue calls return complete (or fail) on the context's
 * completion thread once the graph launch (or their plain enqueue) has finished, in the order of the calls, and the
 * future {@link #enqueue} returns completes after them. Until the body returns, their work has no place in the
 * stream's order: a blocking wait for one of them ({@code join}, {@code get}) or another stream's
 * {@link DeviceStream#waitFor(DeviceFuture)} for one is refused with {@link IllegalStateException} (the wait could
 * never end, or would order nothing); wait after {@link #enqueue} has returned. A wait on this stream itself needs
 * nothing: stream order covers it.
 * <li><b>Cancellation:</b> as for every enqueue, cancelling a future stops nothing and frees nothing early.
 * <li><b>Resources:</b> the buffers a call uses are in use from the moment an operation on them is recorded, as its
 * enqueue would make them: closing one while a launch using it is pending frees it after that launch. A buffer closed
 * before it is used in a body is refused at that enqueue; one closed in the body after an operation on it was recorded
 * (device memory, or pinned or registered host memory) stays allocated: the operation runs as one enqueued before the
 * close would, and the memory is freed after it. {@link HostBuffer#whenIdle()} asked in the body, or after it, waits
 * for the recorded copies on that memory to run; if the body throws, its recorded uses are dropped and what was closed
 * is freed then. Functions must stay open while a call may use them.
 * <li><b>Errors:</b> bad arguments throw at the enqueue call in the body, as always; if the body throws (anything, a
 * checked exception a Kotlin body throws undeclared included), nothing it recorded is submitted, the futures its enqueue
 * calls returned fail with {@link IllegalStateException}, and the exception leaves {@link #enqueue} as it was thrown. A
 * body that closes the stream or the context fails its call with {@link ClosedResourceException}, its futures too.
 * </ul>
 *
 * <p><b>Fusion.</b> Consecutive launches of kernels generated by the kernel language's element-wise builders
 * ({@link dev.sluice.kernel.ElementwiseBuilder#build()}, {@link dev.sluice.kernel.FusedBuilder#build()}) run in the
 * graph as one launch of a kernel fused from them, where that is provably the same computation: the launches have the
 * same launch configuration and element count {@code n}, and every two of their pointer arguments whose bytes overlap,
 * one of them written, are the same region (the same buffer memory, byte offset and element type). Each element's
 * thread then runs the launches' bodies one after another, touching what their threads for that element touched, in
 * the same order; an input that an earlier launch wrote reads what it wrote, an input that is the same region as an
 * earlier input is the same argument, and every region written holds its last value in memory afterwards: an output
 * that a later launch of the run writes again (the same region) stays in a register where no launch could read the
 * earlier value from memory (both bodies assign the output before reading it, and the later one reads no other argument
 * of that region after assigning it), and is stored otherwise. Anything else (another kernel, a
 * fill, a copy, a partial overlap such as a shifted slice, another element type, {@code n} or configuration) ends the
 * run, and a run whose bodies would sum past {@link Kernel.Fusion#MAX_FUSED_SIZE} goes on in a fused kernel of its
 * own: one kernel of thousands of bodies runs slower than their launches. The fused kernel is generated and loaded once per plan (which kernels, which inputs read what), kept until
 * {@link #close()}; calls of one shape whose buffers alias differently have different plans, and so graphs of
 * different shapes. Results are those of the launches one by one, with {@link dev.sluice.kernel.FusedBuilder}'s caveat: on a GPU
 * the run-time compiler may contract a float multiplication in one launch and an addition in a later one into one
 * multiply-add, rounded once (the last bit may differ; integers and every other float operation are the same; the CPU
 * simulator is bit for bit). The futures, listeners (each launch under its own kernel's name) and uses of memory are
 * those of the recorded launches; {@link #fusedLaunches()} counts what ran fused, and a traced replay's label says so.
 * {@link #fuseElementwise(boolean) fuseElementwise(false)} turns it off; plain enqueues (fallbacks) never fuse.
 *
 * <p>Calls are serialised: a second thread's call waits until the first has submitted its work. Only one repeated work
 * records on a stream at a time: a call of another repeated work from inside a body makes the body's call fall back
 * from there and then records its own; a call while another thread's body records on the stream, a call of this work
 * from inside its own body, and a call while the stream captures ({@link DeviceStream#capture}) are refused.
 */
public final class RepeatedWork implements AutoCloseable {

    private final DeviceStream stream;
    private final ReplayedWork work;

    RepeatedWork(DeviceStream stream, ReplayedWork work) {
        this.stream = stream;
        this.work = work;
        work.name(toString());
    }

    /**
     * Runs {@code body} on this thread, recording what it enqueues on the stream, then submits all of it as one graph
     * launch (or as plain enqueues; see the class comment) and returns the future of the whole call.
     *
     * @param body enqueues the work on the stream it is given (this work's stream)
     * @return completes once everything the body enqueued has finished
     * @throws ClosedResourceException if this work, the stream or the context is closed, or a buffer the body used was
     *                                 closed before the call was submitted
     * @throws IllegalStateException   if the stream is capturing, or another thread's body records on it, or this is
     *                                 called from inside this work's own body
     */
    public DeviceFuture<Void> enqueue(Consumer<? super DeviceStream> body) {
        Checks.notNull("body", body);
        return work.enqueue(stream.future(null), () -> body.accept(stream));
    }

    /** The stream the work is enqueued on. */
    public DeviceStream stream() {
        return stream;
    }

    /** Graph launches so far: one per call that did not fall back, the calls that built a graph included. */
    public long replays() {
        return work.replays();
    }

    /** Graphs built so far: one for each call of a shape whose graph was not kept (the first call's included). */
    public long builds() {
        return work.builds();
    }

    /** Calls that ran as plain enqueues, wholly or from an operation no graph describes on. */
    public long fallbacks() {
        return work.fallbacks();
    }

    /**
     * Recorded launches that ran inside a fused kernel so far (see "Fusion" in the class comment): a call whose graph
     * ran three launches as one adds three.
     */
    public long fusedLaunches() {
        return work.fusedLaunches();
    }

    /**
     * Whether calls submitted from now on fuse runs of element-wise launches (see "Fusion" in the class comment); on
     * by default. Off, each recorded launch is a launch of its own in the graph, as before fusion; a call of the other
     * setting's plan builds a new graph.
     *
     * @param on whether to fuse
     * @return this work
     */
    public RepeatedWork fuseElementwise(boolean on) {
        work.fuse(on);
        return this;
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return work.isClosed();
    }

    /**
     * Destroys the work's graph; launches already enqueued still run, and buffers they use stay allocated until they
     * have finished. Idempotent; waits for a call in progress on another thread, never for the device.
     */
    @Override
    public void close() {
        work.close();
    }

    @Override
    public String toString() {
        return "RepeatedWork[" + stream + "]";
    }
}
