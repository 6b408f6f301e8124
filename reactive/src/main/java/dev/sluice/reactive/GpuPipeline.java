package dev.sluice.reactive;

import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.StreamOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Moves a {@code Flux} of host chunks through the device: each chunk is uploaded, transformed by a
 * user-described {@link Stage} (one or more kernels), and downloaded, over N <em>lanes</em> so that the
 * upload of one chunk, the kernels of another and the download of a third overlap.
 *
 * <pre>{@code
 * try (GpuPipeline<float[], float[]> pipeline = GpuPipeline.builder(ctx)
 *         .lanes(3)
 *         .chunkElements(1 << 20, DType.F32)
 *         .stage((lane, in, out) -> lane.stream().enqueueLaunch(saxpy, LaunchConfig.forElements(lane.elements()),
 *                 in, out, lane.elements(), 2.0f))
 *         .build(Chunks.floats())) {
 *     Flux<float[]> results = pipeline.process(chunks);    // in input order; lanes are kept for the next call
 *     ...
 * }                                                        // close(): lanes freed once the device is done with them
 * }</pre>
 *
 * <p>A lane is a {@link dev.sluice.DeviceStream} with its own device input and output buffers (of
 * {@code chunkElements} and the output capacity), the declared scratch buffers, and, where needed, a pinned
 * staging buffer for each direction and each chunk the lane may hold at once (none for input given as pinned
 * {@link dev.sluice.HostBuffer}s of the context, see {@link Chunks#hostBuffers()}, or in pieces of pinned memory that
 * the source uploads itself, see {@link ChunkSource#enqueueUpload}; none for output downloaded
 * straight into the caller's pinned memory, see {@link Builder#buildInto}). A lane holds up to
 * {@link Builder#chunksPerLane chunksPerLane} chunks at once (default 1), enqueued one after the other on its
 * stream: the stream's order runs each chunk's upload after the previous chunk's kernels and download, so
 * they all share the lane's device buffers; with more than one, the stream no longer idles while a chunk's
 * completion travels to the host and the next chunk is enqueued (see {@link Builder#chunksPerLane}). A chunk may be shorter than {@code chunkElements} (the stage then
 * sees slices of the lane's buffers); a longer one, or an empty one, fails the {@code Flux} with an
 * {@link InvalidArgumentException}.
 *
 * <ul>
 * <li><b>Ordering:</b> {@link #process} emits results in the order of the input chunks, whichever lane each
 * took; a result that is ready waits for the ones before it. {@link #processUnordered} emits each result as soon as its download
 * has finished (and there is demand).
 * <li><b>Back-pressure:</b> at most {@code lanes * chunksPerLane} chunks are requested from upstream beyond
 * the results emitted, so at most that many chunks are uploaded, in flight, or holding a result not yet
 * requested. A subscriber that stops requesting stops uploads; {@code request(1)} at a time works; {@code request(n)}
 * with {@code n <= 0} fails the {@code Flux} with an {@link IllegalArgumentException} (Reactive Streams rule 3.9), as an
 * error does (below). Every
 * chunk in a lane holds its result (in its pinned staging buffer, or in the chunk's {@link ChunkTarget}
 * buffer) until it is emitted: nothing else buffers.
 * <li><b>Completion thread:</b> by default a chunk's upload and enqueues run on whichever thread delivers
 * the chunk or the demand, or on the completion thread when a place in a lane becomes free; results are read out of
 * staging and emitted on the completion thread ({@code sluice-completion-*}) or on the thread calling
 * {@code request}. With {@link Builder#hostScheduler} all of that runs on a worker of that scheduler
 * instead. Chunks of 1 MiB or more ({@code sluice.pipeline.parallelCopyBytes}) are copied into staging, and their
 * results read out of it, on the common {@link java.util.concurrent.ForkJoinPool}, several at once, so that one
 * thread's memory copies do not cap a pipeline over several lanes or devices; such a result is emitted from there
 * (or from the host scheduler's worker when there is one).
 * Nothing blocks. Put {@code publishOn(Schedulers.parallel())} after the pipeline when the
 * subscriber's work per result is more than a few microseconds, so that completions of other lanes are not
 * delayed by it.
 * <li><b>Errors:</b> an error in one chunk (thrown by the stage, a {@link ChunkSource} or a
 * {@link ChunkTarget} while enqueuing, or a failed operation on the device) or from upstream stops new
 * uploads, cancels upstream, and fails the {@code Flux} with that error once every chunk in flight has
 * drained from the device; results not yet emitted are dropped.
 * <li><b>Cancellation:</b> cancels upstream and stops signals at once; chunks in flight finish on the device
 * (downloads into {@link ChunkTarget} buffers included) and are dropped; each lane goes back to the pipeline
 * only once the work of every chunk it holds is done, so no later chunk and no {@link #close()} touches memory the device may still
 * use.
 * <li><b>Resources:</b> the pipeline owns its lanes. They are opened lazily: a chunk goes to an empty lane
 * if there is one, else to a new lane while fewer than {@code lanes} are open, else behind the chunks of the
 * lane holding the fewest (a one-chunk {@code Flux} opens one lane, an empty one none). When a subscription
 * ends each of its lanes, once its last chunk is off the device, goes back to the pipeline, which keeps it (at
 * most {@code lanes} of them) for the next {@code process} call: after the first call, later ones allocate no
 * device or pinned memory and create no stream. A lane whose chunk failed, or any lane of a faulted context,
 * is released instead of kept; with {@link Builder#keepLanes keepLanes(false)} every lane is released when
 * its subscription ends. Pinned staging buffers are allocated per lane and per place in it, on first need,
 * so a staged pipeline holds up to {@code chunksPerLane} of them per direction per lane. <b>Close the
 * pipeline</b> ({@link #close()}, or try-with-resources) to release the
 * kept lanes: their device buffers are freed in their stream's order after their last work, their pinned
 * buffers once their copies have finished, and their streams are closed on
 * {@link Schedulers#boundedElastic()}; {@link #released()} completes when all of that is done. An unclosed
 * pipeline holds its lanes until its context is closed. Per chunk, the pipeline makes no device or pinned
 * allocation: only the result the {@link ChunkSink} creates (none with a {@link ChunkTarget}), and the small
 * objects of the futures the API returns for each enqueue. {@link #metrics()} counts it all.
 * </ul>
 *
 * <p><b>Several devices.</b> {@link #builder(List)} spreads the lanes over several contexts, typically one per
 * GPU: {@link Builder#lanes lanes(n)} opens {@code n} lanes on every context, slot {@code i} on context
 * {@code i % contexts}, so that lanes opened one after the other alternate between devices. Everything above
 * holds across devices: a chunk goes to an empty lane (whichever device it is on) before it queues behind
 * another, results keep their input order, and back-pressure counts the lanes of every device. A faulted device
 * fails the chunks on its lanes, and so the {@code Flux}, once the chunks on the other devices have drained;
 * the lanes of the other contexts are kept and serve the next subscription. The stage must launch, on a lane,
 * functions of that lane's context: declare the kernels with {@link Builder#kernel} and take them with
 * {@link Lane#function(Kernel)}. Staging buffers are allocated from the lane's context. A pinned input chunk or
 * a {@link ChunkTarget} buffer of another of the pipeline's contexts is copied directly where the lane's context
 * {@linkplain DeviceContext#sharesPinnedMemoryWith shares pinned memory} with it (CUDA, HIP and the CPU simulator:
 * one set of pinned chunks and targets then serves every device, with no host copy), and through the lane's staging
 * buffer (a host copy) otherwise. The pipeline's host copies do not scale with devices: a pipeline of Java arrays
 * over several GPUs is bounded by the host's memory copies (see docs/benchmarks.md), one of pinned chunks and
 * targets by the devices and their links.
 *
 * <p>Thread-safe. Subscriptions to its {@code process} {@code Flux}es may run one after the other (they then
 * reuse the same lanes) or at once (each then has lanes of its own: those kept, and new ones for the rest;
 * the pipeline keeps at most {@code lanes} idle lanes and releases the others). {@link Lane#index()} is the
 * lane's slot within its subscription, 0 to {@code lanes - 1}.
 *
 * @param <I> the input chunk type
 * @param <O> the emitted result type
 */
public final class GpuPipeline<I, O> implements AutoCloseable {

    /**
     * The device work of one chunk, enqueued on {@link Lane#stream()} between the upload into {@code in} and
     * the download from {@code out}. Called on the pipeline's enqueue thread (see the class description); it
     * must only enqueue, never wait.
     */
    @FunctionalInterface
    public interface Stage {

        /**
         * Enqueues the kernels that turn {@code in} (the chunk, {@link Lane#elements()} elements of the input
         * type) into {@code out} ({@link Lane#outputElements()} elements of the output type; the same buffer
         * as {@code in} for an in-place pipeline).
         *
         * @return the future of the last operation enqueued (its failure fails the chunk), or null. If it is the
         *         future of another stream than the lane's, the pipeline makes the lane's stream wait for it
         *         (on the device) before the download reads {@code out}; any other work on another stream must
         *         be waited for by the lane's stream ({@code lane.stream().waitFor(future)}) before the stage
         *         returns, since the download, and the lane's next chunk, follow in the lane's stream order.
         */
        @Nullable DeviceFuture<?> enqueue(Lane lane, DeviceBuffer in, DeviceBuffer out);
    }

    /** The settled options: sizes, types, lanes, stage. */
    private final PipelineSpec spec;
    /** How chunks are read and sized and where results go. */
    private final ChunkIo<I, O> io;
    private final PipelineKernels kernels;
    /** The idle lanes between subscriptions, and the pipeline's release. */
    private final LanePool lanePool;
    private final HostCopies hostCopies;
    /** Where the lanes' staging buffers come from. */
    private final StagingPools stagingPools;
    final PipelineMetrics metrics = new PipelineMetrics();
    private final ProgressReporter progress;

    private GpuPipeline(PipelineSpec spec, ChunkIo<I, O> io, Set<Kernel> kernels) {
        this.spec = spec;
        this.io = io;
        this.hostCopies = HostCopies.fromProperties();
        this.stagingPools = new StagingPools(spec);
        this.progress = new ProgressReporter(metrics, spec.outputType().byteSize());
        this.kernels = PipelineKernels.load(kernels, spec.contexts());
        this.lanePool = new LanePool(this, spec, this.kernels);
    }

    /** Starts describing a pipeline on {@code context}. */
    public static Builder builder(DeviceContext context) {
        Objects.requireNonNull(context, "context");
        return new Builder(List.of(context));
    }

    /**
     * Starts describing a pipeline whose lanes are spread over {@code contexts} (typically one per device, of
     * one backend or several): see "Several devices" in the class description. The pipeline does not own the
     * contexts; close it before them.
     *
     * @throws NullPointerException     if {@code contexts} is null
     * @throws InvalidArgumentException if {@code contexts} is empty, holds null or one context twice, or holds
     *                                  more than {@value Builder#MAX_CONTEXTS} contexts
     */
    public static Builder builder(List<? extends DeviceContext> contexts) {
        Objects.requireNonNull(contexts, "contexts");
        if (contexts.isEmpty() || contexts.size() > Builder.MAX_CONTEXTS) {
            throw new InvalidArgumentException("contexts", "holds " + contexts.size() + " contexts; a pipeline needs 1 to "
                    + Builder.MAX_CONTEXTS);
        }
        Set<DeviceContext> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < contexts.size(); i++) {
            DeviceContext c = contexts.get(i);
            if (c == null) {
                throw new InvalidArgumentException("contexts", "element " + i + " is null");
            }
            if (!seen.add(c)) {
                throw new InvalidArgumentException("contexts", "element " + i + " (" + c + ") appears twice; each context"
                        + " takes its lanes once");
            }
        }
        return new Builder(List.copyOf(contexts));
    }

    /**
     * The results of {@code chunks}, in input order. Cold: each subscription runs the chunks it receives, on
     * the lanes the pipeline kept from earlier subscriptions (opening those it lacks). See the class
     * description for ordering, back-pressure, threads, errors, cancellation and resources. Subscribing
     * after {@link #close()} fails the {@code Flux} with a {@link ClosedResourceException}.
     *
     * @throws NullPointerException if {@code chunks} is null
     */
    public Flux<O> process(Publisher<? extends I> chunks) {
        return new FluxGpuPipeline<>(Objects.requireNonNull(chunks, "chunks"), this, true);
    }

    /** As {@link #process}, but each result is emitted as soon as it is ready, whatever its input position. */
    public Flux<O> processUnordered(Publisher<? extends I> chunks) {
        return new FluxGpuPipeline<>(Objects.requireNonNull(chunks, "chunks"), this, false);
    }

    /** Counters of allocations, releases and chunks over every subscription. */
    public PipelineMetrics metrics() {
        return metrics;
    }

    /**
     * Calls {@code listener} each time a result is emitted downstream, with the chunks and bytes done so far over every
     * subscription: a progress bar, a log line every N chunks. Replaces an earlier listener; null removes it.
     *
     * <p>Called on the thread that emits the result, just before {@code onNext}, so it must be short and must not
     * block: it delays the result. An exception it throws is logged and dropped. Costs one volatile read per chunk
     * while no listener is set.
     */
    public void onProgress(@Nullable Consumer<? super PipelineProgress> listener) {
        progress.listen(listener);
    }

    /**
     * Releases the pipeline's lanes; idempotent, never blocks (callable on any thread, completion threads
     * included), never waits for the device. Lanes kept idle are released now: each lane's device buffers
     * are freed in its stream's order, after the last work enqueued on it; then, on
     * {@link Schedulers#boundedElastic()}, its pinned buffers are freed (once their copies have finished) and
     * its stream is closed. Subscriptions already running are not stopped: they run to their end and each
     * of their lanes is released, not kept, once its last chunk is off the device. Later subscriptions fail
     * with a {@link ClosedResourceException}. {@link #released()} says when everything is released.
     */
    @Override
    public void close() {
        lanePool.close();
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return lanePool.isClosed();
    }

    /**
     * A future that completes (never exceptionally) once the pipeline is closed, every subscription has
     * ended and every lane has been released: device buffers freed on the device, pinned buffers freed,
     * streams closed. From then on the device no longer touches any memory the pipeline was given, including
     * {@link ChunkTarget} buffers of chunks dropped by a cancellation or an error. Each call returns a new
     * copy: completing or cancelling it affects nothing else.
     */
    public CompletableFuture<Void> released() {
        return lanePool.released().copy();
    }

    /** The context of the pipeline's first lane: the only one, unless it was built with {@link #builder(List)}. */
    public DeviceContext context() {
        return spec.context();
    }

    /** The contexts the lanes open on, in the order given to the builder (one element for {@link #builder(DeviceContext)}). */
    public List<DeviceContext> contexts() {
        return spec.contexts();
    }

    /**
     * The most lanes (streams) one subscription uses, {@link Builder#lanes lanes} on each of its {@link #contexts()},
     * and the most idle lanes the pipeline keeps between subscriptions.
     */
    public int lanes() {
        return spec.lanes();
    }

    /** The most chunks one lane holds at once (see {@link Builder#chunksPerLane}). */
    public int chunksPerLane() {
        return spec.chunksPerLane();
    }

    /** The element type of each lane's input buffer, as the stage sees it. */
    public DType inputType() {
        return spec.inputType();
    }

    /** The most elements of the input type a chunk may have: the size of each lane's input buffer. */
    public long chunkElements() {
        return spec.chunkElements();
    }

    /** The element type of each lane's output buffer; the input type for an in-place pipeline. */
    public DType outputType() {
        return spec.outputType();
    }

    /** The size of each lane's output buffer: the output size of a chunk of {@link #chunkElements()}. */
    public long outputCapacity() {
        return spec.outputCapacity();
    }

    /** Whether the stage writes its result into the input buffer (see {@link Builder#inPlace()}). */
    public boolean inPlace() {
        return spec.inPlace();
    }

    /** Whether lanes are kept for later subscriptions until {@link #close()} (see {@link Builder#keepLanes}). */
    public boolean keepsLanes() {
        return spec.keepLanes();
    }

    /** Where the host side of the pipeline runs, or null for inline (see {@link Builder#hostScheduler}). */
    public @Nullable Scheduler hostScheduler() {
        return spec.hostScheduler();
    }

    // ---------------------------------------------------------------- for the lanes and subscriptions

    PipelineSpec spec() {
        return spec;
    }

    /** The device work of each chunk, as the builder was given it. */
    Stage stage() {
        return spec.stage();
    }

    ChunkIo<I, O> io() {
        return io;
    }

    PipelineKernels kernels() {
        return kernels;
    }

    LanePool lanePool() {
        return lanePool;
    }

    HostCopies hostCopies() {
        return hostCopies;
    }

    StagingPools stagingPools() {
        return stagingPools;
    }

    ProgressReporter progress() {
        return progress;
    }

    @Override
    public String toString() {
        int chunksPerLane = spec.chunksPerLane();
        List<DeviceContext> contexts = spec.contexts();
        return "GpuPipeline[" + spec.lanes() + " lanes" + (chunksPerLane > 1 ? " x " + chunksPerLane + " chunks" : "")
                + ", " + spec.chunkElements() + " x " + spec.inputType() + " -> " + spec.outputCapacity() + " x "
                + spec.outputType() + (spec.inPlace() ? " in place" : "") + (io.hasTarget() ? " into targets" : "")
                + (isClosed() ? ", closed" : "") + ", " + (contexts.size() == 1 ? spec.context() : contexts) + "]";
    }

    /**
     * The most lanes a pipeline has per context, and a Flink subtask: each is a stream with its own device and pinned
     * buffers, so many more would only take memory (or, mistyped, every stream the device can make) while it opens.
     */
    public static final int MAX_LANES = 64;

    /** Describes a {@link GpuPipeline}. Not thread-safe. */
    public static final class Builder {
        /** The most chunks one lane may hold at once ({@link #chunksPerLane}). */
        public static final int MAX_CHUNKS_PER_LANE = 64;
        /** The most contexts one pipeline spreads its lanes over ({@link GpuPipeline#builder(List)}). */
        public static final int MAX_CONTEXTS = 64;
        private final List<DeviceContext> contexts;
        private final Set<Kernel> kernels = new LinkedHashSet<>();
        private int lanes = 3;
        private int chunksPerLane = 1;
        private @Nullable DType inputType;
        private long chunkElements;
        private @Nullable DType outputType;
        private LongUnaryOperator outputElements = LongUnaryOperator.identity();
        private boolean inPlace;
        private final List<PipelineSpec.Scratch> scratch = new ArrayList<>();
        private @Nullable Stage stage;
        private StreamOptions streamOptions = StreamOptions.defaults();
        private @Nullable Scheduler hostScheduler;
        private boolean keepLanes = true;
        private boolean graphReplay = true;
        private boolean elementwiseFusion = true;
        private @Nullable HostBufferPool stagingPool;

        private Builder(List<DeviceContext> contexts) {
            this.contexts = contexts;
        }

        /**
         * Lanes per context, each a stream of its own (default 3: one uploading, one computing, one downloading).
         * A pipeline over several contexts has {@code n} on each. The most chunks in flight at once is
         * {@code lanes * contexts * chunksPerLane} (see {@link #chunksPerLane}).
         */
        public Builder lanes(int n) {
            if (n < 1 || n > MAX_LANES) {
                throw new InvalidArgumentException("lanes", "value " + n + " is outside 1 to " + MAX_LANES);
            }
            this.lanes = n;
            return this;
        }

        /**
         * The most chunks one lane holds at once (default 1; at most {@value #MAX_CHUNKS_PER_LANE}). With more
         * than one, the pipeline enqueues a chunk on a lane that still has chunks in flight, behind them on the
         * lane's stream, instead of waiting until the previous chunk's completion has reached the host: one
         * lane then keeps its stream busy the way a plain stream with every chunk queued on it does (each
         * completion takes tens of microseconds to reach the host; with one chunk per lane the stream idles
         * that long between chunks). Safe for every pipeline: the chunks of a lane run in its stream's order,
         * so the next chunk's upload into the lane's device buffers, and its use of the scratch buffers, come
         * after the previous chunk's kernels and download; each place in a lane has its own pinned staging
         * buffers (allocated on first need, kept with the lane), so chunks never share host memory. A stage
         * whose returned future belongs to another stream is covered too (the lane's stream waits for it before
         * the download, see {@link Stage#enqueue}); work a stage enqueues on another stream without returning
         * its future must be ordered by the stage itself, as with one chunk per lane.
         *
         * <p>Back-pressure, lanes opened and memory scale with it: up to {@code lanes * n} chunks are requested
         * ahead of demand and held in flight; a staged pipeline allocates up to {@code n} pinned staging buffers
         * per direction per lane (none with {@link Chunks#hostBuffers()} input and a {@link ChunkTarget});
         * device memory does not grow. Chunks still go to empty lanes first, so {@code lanes(3).chunksPerLane(2)}
         * spreads six chunks over three streams, two each.
         *
         * @throws InvalidArgumentException naming {@code chunksPerLane} if {@code n} is outside 1 to
         *         {@value #MAX_CHUNKS_PER_LANE}
         */
        public Builder chunksPerLane(int n) {
            if (n < 1 || n > MAX_CHUNKS_PER_LANE) {
                throw new InvalidArgumentException("chunksPerLane", "value " + n + " is outside 1 to " + MAX_CHUNKS_PER_LANE);
            }
            this.chunksPerLane = n;
            return this;
        }

        /**
         * The input element type and the most elements a chunk may have (the size of each lane's input buffer).
         *
         * @throws NullPointerException     if {@code type} is null
         * @throws InvalidArgumentException naming {@code chunkElements} if {@code n} is below 1, or so large that
         *                                  {@code n} elements of {@code type} overflow a byte size
         */
        public Builder chunkElements(long n, DType type) {
            Objects.requireNonNull(type, "type");
            if (n < 1) {
                throw new InvalidArgumentException("chunkElements", "value " + n + " must be at least 1");
            }
            checkByteSize("chunkElements", n, type);
            this.chunkElements = n;
            this.inputType = type;
            return this;
        }

        /**
         * Refuses a count whose byte size overflows a {@code long}: accepted here, it failed only at the first
         * chunk, deep in the lane's allocation, with a negative byte size that named neither the option nor its value.
         */
        private static void checkByteSize(String argument, long count, DType type) {
            long most = Long.MAX_VALUE / type.byteSize();
            if (count > most) {
                throw new InvalidArgumentException(argument, "value " + count + " of " + type + " overflows a byte size;"
                        + " at most " + most);
            }
        }

        /** Results of {@code type}, one element per input element (the default: the input type). */
        public Builder output(DType type) {
            return output(type, LongUnaryOperator.identity());
        }

        /**
         * Results of {@code type}, {@code elementsForInput.applyAsLong(n)} elements for a chunk of {@code n}
         * input elements (a reduction: {@code n -> 1}; a fixed histogram: {@code n -> 256}). The lanes' output
         * buffers hold the count for a full chunk; the function must not give more for a shorter one.
         */
        public Builder output(DType type, LongUnaryOperator elementsForInput) {
            this.outputType = Objects.requireNonNull(type, "type");
            this.outputElements = Objects.requireNonNull(elementsForInput, "elementsForInput");
            this.inPlace = false;
            return this;
        }

        /** The stage writes its result into its input buffer: lanes get one device buffer instead of two. */
        public Builder inPlace() {
            this.inPlace = true;
            this.outputType = null;
            this.outputElements = LongUnaryOperator.identity();
            return this;
        }

        /**
         * A scratch device buffer per lane, for stages of several kernels; {@link Lane#scratch(int)} in declaration order.
         *
         * @throws NullPointerException     if {@code type} is null
         * @throws InvalidArgumentException naming {@code count} if it is below 1, or so large that its byte size
         *                                  overflows
         */
        public Builder scratch(DType type, long count) {
            Objects.requireNonNull(type, "type");
            if (count < 1) {
                throw new InvalidArgumentException("count", "value " + count + " must be at least 1");
            }
            checkByteSize("count", count, type);
            scratch.add(new PipelineSpec.Scratch(type, count));
            return this;
        }

        /** Options of the lanes' streams (priority). */
        public Builder streamOptions(StreamOptions options) {
            this.streamOptions = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * Runs the pipeline's host work (copying chunks into staging, enqueuing, reading results out of
         * staging, emitting them) on one worker of {@code scheduler} per subscription, instead of on whichever
         * thread signals: the completion thread then only records that a lane is done. Worth it when chunks
         * are large (their host copies take long enough to delay other completions of the context) or the
         * subscriber's work per result is not short; costs a task hand-off, and a few small objects, per
         * burst of events. {@code Schedulers.single()} or {@code Schedulers.parallel()} suit; the work never
         * blocks. Default: none (inline).
         *
         * <p>The scheduler must outlive the subscriptions. If it is disposed (or rejects a task) while one runs, that
         * subscription ends with a {@link java.util.concurrent.RejectedExecutionException}: within about 50 ms even
         * if no chunk, completion or request comes, after the chunks already on the device are off it; upstream is
         * cancelled and the subscription's lanes are released (their device and pinned buffers freed, as by
         * {@link GpuPipeline#close()}), not kept. Later subscriptions fail the same way.
         *
         * @throws NullPointerException     if {@code scheduler} is null
         * @throws InvalidArgumentException naming {@code scheduler} if it is already disposed
         */
        public Builder hostScheduler(Scheduler scheduler) {
            Objects.requireNonNull(scheduler, "scheduler");
            if (scheduler.isDisposed()) {
                // Else accepted, and every subscription failed about 50 ms in with a RejectedExecutionException.
                throw new InvalidArgumentException("scheduler", scheduler + " is disposed");
            }
            this.hostScheduler = scheduler;
            return this;
        }

        /**
         * Whether each lane enqueues its {@link Stage} as repeated work ({@link dev.sluice.DeviceStream#repeatedWork()};
         * the default: {@code true}): the kernels, fills and device copies a stage enqueues on the lane's stream are
         * recorded and launched as one graph per chunk, which the lane updates in place for the next chunk (the
         * lane's buffers and the stage's scalars may change; the kernels and sizes stay). A chunk whose stage
         * enqueues work of another shape (the last, shorter chunk) builds a new graph, and a stage that enqueues
         * anything else on the lane's stream (a copy of Java or unpinned memory, a wait, an event) runs that chunk as
         * plain enqueues. The chunk's own upload and download are enqueued before and after the graph, not in it:
         * copies in each chunk's graph measured slower than plain copies (docs/benchmarks.md).
         * The results are the same either way; {@link PipelineMetrics#graphReplays()} and
         * {@link PipelineMetrics#stageFallbacks()} show which ran. {@code false} enqueues the stage as it is.
         */
        public Builder graphReplay(boolean replay) {
            this.graphReplay = replay;
            return this;
        }

        /**
         * Whether a stage enqueued as repeated work ({@link #graphReplay}) runs consecutive launches of kernels the
         * kernel language generated ({@link dev.sluice.kernel.Kernels#elementwise}) as one fused launch where that is
         * the same computation (the default: {@code true}; see "Fusion" in {@link dev.sluice.RepeatedWork}):
         * {@link PipelineMetrics#fusedLaunches()} counts the launches that ran fused. {@code false} launches each of
         * them as the stage enqueued it.
         */
        public Builder elementwiseFusion(boolean fuse) {
            this.elementwiseFusion = fuse;
            return this;
        }

        /**
         * Whether the pipeline keeps its lanes (streams, device and pinned buffers) after a subscription ends,
         * for the next {@code process} call, until {@link GpuPipeline#close()} (the default: {@code true}).
         * With {@code false}, each lane is released once its subscription has ended and its last chunk is off
         * the device: repeated {@code process} calls then allocate afresh each time (pinned allocations can
         * cost milliseconds), but an idle pipeline holds no memory.
         */
        public Builder keepLanes(boolean keep) {
            this.keepLanes = keep;
            return this;
        }

        /**
         * A pool of pinned buffers that the lanes take their staging buffers from and give them back to, shared with
         * its other users (an Arrow allocator factory, a Flink function's lanes, the caller's own code): lanes on a
         * context that {@linkplain DeviceContext#sharesPinnedMemoryWith can use} its memory use it, the others a pool
         * of the pipeline's own. The pipeline does not close it; close it after the pipeline is
         * {@linkplain GpuPipeline#released() released}. By default each context of the pipeline has a pool of its own,
         * holding at most the staging its lanes hold at once, closed once the pipeline is released: a lane opened after
         * another was released (with {@link #keepLanes keepLanes(false)}) reuses its buffers instead of pinning anew.
         *
         * @throws InvalidArgumentException naming {@code pool} if it is null
         */
        public Builder stagingPool(HostBufferPool pool) {
            if (pool == null) {
                throw new InvalidArgumentException("pool", "null");
            }
            this.stagingPool = pool;
            return this;
        }

        /**
         * Declares a kernel the stage launches: {@link #build} loads it on every context of the pipeline (on the
         * calling thread; with source, that compiles it, or finds it in the compile cache), and the stage takes
         * the function of its lane's context with {@link Lane#function(Kernel)}. The pipeline owns these
         * functions: they are closed once it is {@linkplain GpuPipeline#released() released}. Declaring a kernel
         * twice declares it once.
         *
         * @throws NullPointerException if {@code kernel} is null
         */
        public Builder kernel(Kernel kernel) {
            kernels.add(Objects.requireNonNull(kernel, "kernel"));
            return this;
        }

        /** The device work of each chunk. */
        public Builder stage(Stage stage) {
            this.stage = Objects.requireNonNull(stage, "stage");
            return this;
        }


        /** A pipeline whose input chunks and results are of one kind ({@code Chunks.floats()}: {@code float[]} in and out). */
        public <T> GpuPipeline<T, T> build(ChunkCodec<T> codec) {
            return build(codec, codec);
        }

        /**
         * A pipeline reading chunks with {@code source} and emitting results made by {@code sink} (which copies
         * each result out of the lane's pinned staging buffer).
         *
         * @throws InvalidArgumentException if something required is missing or the chunk kinds cannot carry the element types
         */
        public <A, B> GpuPipeline<A, B> build(ChunkSource<A> source, ChunkSink<B> sink) {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(sink, "sink");
            PipelineSpec spec = settle(source);
            if (!sink.accepts(spec.outputType())) {
                throw new InvalidArgumentException("sink", sink + " cannot carry " + spec.outputType() + " elements");
            }
            return new GpuPipeline<>(spec, ChunkIo.toSink(spec, source, sink), kernels);
        }

        /**
         * A pipeline reading chunks with {@code source} and downloading each chunk's result straight into the
         * pinned buffer {@code target} gives for it (no staging buffer, no host copy: the lanes allocate no
         * output staging), then emitting that buffer once the download has finished. With
         * {@link Chunks#hostBuffers()} as the source, neither direction is staged and the lanes hold device
         * memory only. See {@link ChunkTarget} for what the buffer must be and when it may be touched.
         *
         * @throws InvalidArgumentException if something required is missing or the source cannot carry the input type
         */
        public <A> GpuPipeline<A, HostBuffer> buildInto(ChunkSource<A> source, ChunkTarget<? super A> target) {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(target, "target");
            PipelineSpec spec = settle(source);
            return new GpuPipeline<>(spec, ChunkIo.intoTarget(spec, source, target), kernels);
        }

        /** The options as the pipeline keeps them, once every required one is set and {@code source} can carry the input. */
        private PipelineSpec settle(ChunkSource<?> source) {
            DType in = inputType;
            Stage st = stage;
            if (in == null) {
                throw new InvalidArgumentException("chunkElements", "not set: call chunkElements(n, type)");
            }
            if (st == null) {
                throw new InvalidArgumentException("stage", "not set: call stage(...)");
            }
            if (!source.accepts(in)) {
                throw new InvalidArgumentException("source", source + " cannot carry " + in + " elements");
            }
            for (DeviceContext c : contexts) {
                if (c.isClosed()) {
                    // Else built, and failing only at the first chunk's lane.
                    throw new ClosedResourceException(c.toString());
                }
            }
            long capacity = inPlace ? chunkElements : outputElements.applyAsLong(chunkElements);
            if (capacity < 1) {
                throw new InvalidArgumentException("output", "a full chunk of " + chunkElements + " elements gives "
                        + capacity + " output elements; at least 1 is needed");
            }
            DType out = outputType == null ? in : outputType;
            if (capacity > Long.MAX_VALUE / out.byteSize()) {
                throw new InvalidArgumentException("output", "a full chunk of " + chunkElements + " elements gives "
                        + capacity + " output elements of " + out + ", which overflow a byte size; at most "
                        + Long.MAX_VALUE / out.byteSize());
            }
            return new PipelineSpec(contexts, lanes * contexts.size(), chunksPerLane, in, chunkElements,
                    outputType == null ? in : outputType, outputElements, capacity, inPlace, List.copyOf(scratch), st,
                    streamOptions, hostScheduler, keepLanes, graphReplay, elementwiseFusion, stagingPool);
        }
    }
}
