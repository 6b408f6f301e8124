package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.Kernel;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One lane of a {@link GpuPipeline}: a stream of its own, the device input and output buffers, the scratch
 * buffers the pipeline declared, and the pinned staging buffers it needs (allocated on first need), all
 * reused chunk after chunk and, while the pipeline keeps its lanes, subscription after subscription. A lane
 * carries up to {@link GpuPipeline#chunksPerLane()} chunks at a time, queued on its stream one after the
 * other: the stream's order makes the next chunk's upload wait for the previous chunk's kernels and download,
 * so every chunk of the lane uses the same device buffers. The {@link GpuPipeline.Stage} sees it while
 * enqueuing a chunk's kernels: enqueue them on {@link #stream()} so that they run after the upload and before
 * the download.
 *
 * <p>Valid only during the stage call; do not keep it (the pipeline may give it to another subscription, or
 * release it, afterwards). Not thread-safe.
 */
public final class Lane {

    private static final System.Logger LOG = System.getLogger(Lane.class.getName());

    static final int FREE = 0;
    static final int IN_FLIGHT = 1;
    static final int DONE = 2;

    private final GpuPipeline<?, ?> pipeline;
    private final int index;
    private final DeviceStream stream;
    /** Buffers this lane allocated, freed on release. */
    private final List<DeviceBuffer> deviceBuffers = new ArrayList<>(4);
    private final DeviceBuffer deviceIn;
    private final DeviceBuffer deviceOut;
    private final DeviceBuffer[] scratch;
    /** One per chunk the lane may hold at once; each with its own staging buffers (allocated on first need). */
    final Flight[] flights;

    // The chunk being enqueued, for the stage's getters (written and read by the drain loop only).
    private long sequence = -1;
    private @Nullable Object chunk;
    private long elements;
    private long outputElements;

    private FluxGpuPipeline.@Nullable PipelineSubscriber<?, ?> owner;
    private boolean released;

    private Lane(GpuPipeline<?, ?> pipeline, int index, DeviceStream stream) {
        this.pipeline = pipeline;
        this.index = index;
        this.stream = stream;
        this.flights = new Flight[pipeline.chunksPerLane()];
        for (int i = 0; i < flights.length; i++) {
            flights[i] = new Flight(this);
        }
        try {
            deviceIn = allocate(pipeline.inputType(), pipeline.chunkElements());
            deviceOut = pipeline.inPlace() ? deviceIn : allocate(pipeline.outputType(), pipeline.outputCapacity());
            scratch = new DeviceBuffer[pipeline.scratch.size()];
            for (int i = 0; i < scratch.length; i++) {
                GpuPipeline.Scratch s = pipeline.scratch.get(i);
                scratch[i] = allocate(s.type(), s.count());
            }
        } catch (RuntimeException e) {
            releaseNow(GpuPipeline.CLOSER);
            throw e;
        }
    }

    /** Opens a lane: a new stream and stream-ordered allocations (nothing here waits for the device). */
    static Lane open(GpuPipeline<?, ?> pipeline, int index) {
        pipeline.laneOpening();
        DeviceStream s;
        try {
            s = pipeline.contextFor(index).createStream(pipeline.streamOptions());
        } catch (RuntimeException | Error e) {
            pipeline.laneGone();
            throw e;
        }
        pipeline.metrics.lanesOpened.increment();
        return new Lane(pipeline, index, s);
    }

    private DeviceBuffer allocate(DType type, long count) {
        DeviceBuffer b = stream.enqueueAllocate(type, count);
        deviceBuffers.add(b);
        pipeline.metrics.deviceAllocations.increment();
        return b;
    }

    // ---------------------------------------------------------------- what stages see

    /** The lane's stream: enqueue the chunk's kernels here. */
    public DeviceStream stream() {
        return stream;
    }

    /** The context of the lane's stream: one of the pipeline's {@link GpuPipeline#contexts()}. */
    public DeviceContext context() {
        return stream.context();
    }

    /**
     * The function of {@code kernel} on this lane's context, loaded when the pipeline was built; owned by the
     * pipeline (do not close it).
     *
     * @throws dev.sluice.InvalidArgumentException if {@code kernel} was not declared with
     *         {@link GpuPipeline.Builder#kernel}
     */
    public DeviceFunction function(Kernel kernel) {
        return pipeline.function(kernel, index);
    }

    /**
     * The lane's number, 0 to {@code lanes - 1}: its slot within the subscription it serves (two subscriptions
     * running at once each have a lane 0).
     */
    public int index() {
        return index;
    }

    /** The position of the chunk being enqueued within its {@code Flux}, from 0. */
    public long sequence() {
        return sequence;
    }

    /**
     * The chunk being enqueued, as the pipeline received it (an object of the pipeline's input type): for stages whose
     * device work depends on more than the chunk's bytes, such as the columns of a record batch. Null outside the stage
     * call; the lane does not keep it.
     */
    public @Nullable Object chunk() {
        return chunk;
    }

    /** Elements of the input type in the chunk being enqueued (the {@code in} buffer's count). */
    public long elements() {
        return elements;
    }

    /** Elements of the output type the chunk's result has (the {@code out} buffer's count). */
    public long outputElements() {
        return outputElements;
    }

    /** Scratch buffer {@code i}, in the order the builder declared them; whole, whatever the chunk's size. */
    public DeviceBuffer scratch(int i) {
        return scratch[i];
    }

    /** Number of scratch buffers. */
    public int scratchCount() {
        return scratch.length;
    }

    // ---------------------------------------------------------------- the chunk protocol (drain loop only)

    /** Chunks in the lane: in flight, or finished and holding a result not yet taken. */
    int busy() {
        int c = 0;
        for (Flight f : flights) {
            if (f.state != FREE) {
                c++;
            }
        }
        return c;
    }

    /** Chunks of the lane whose device work has not finished. */
    int inFlight() {
        int c = 0;
        for (Flight f : flights) {
            if (f.state == IN_FLIGHT) {
                c++;
            }
        }
        return c;
    }

    /** A flight with no chunk, or null. */
    @Nullable Flight freeFlight() {
        for (Flight f : flights) {
            if (f.state == FREE) {
                return f;
            }
        }
        return null;
    }

    /** Whether the lane may serve more chunks: none of its chunks failed on the device or stopped half-enqueued. */
    boolean reusable() {
        for (Flight f : flights) {
            if (!f.reusable()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Forgets the subscription the lane served, when it hands the lane back to the pipeline (no chunk in flight
     * then): an idle kept lane must not keep that subscription's subscribers, chunks or futures reachable.
     */
    void detach() {
        owner = null;
        for (Flight f : flights) {
            f.reset();
        }
    }

    /**
     * One chunk in a lane: its position, sizes, futures and result, and the staging buffers of this place in
     * the lane (a chunk is copied into, and its result read out of, staging of its own, so that the chunks a
     * lane holds at once never share host memory). Written by the drain loop before the completion callback
     * is attached, read by the callback (ordered by CompletableFuture); {@code state} publishes the
     * callback's writes.
     */
    static final class Flight {
        private final Lane lane;
        private long sequence = -1;
        private long outputElements;
        private @Nullable DeviceFuture<?> stageFuture;
        private @Nullable DeviceFuture<?> lastUse;
        /** The caller's buffer the chunk's result is downloaded into (pipelines built with a ChunkTarget). */
        private @Nullable HostBuffer target;
        /** Whether {@link #target} is of another context, so its result waits in the staging buffer. */
        private boolean targetViaStaging;
        private boolean aborted;
        private @Nullable Throwable error;
        private volatile int state = FREE;
        private @Nullable HostBuffer stagingIn;
        private @Nullable HostBuffer stagingOut;
        /** The copy of a large chunk into staging, running off the drain loop; the stream waits for it. */
        private @Nullable CompletableFuture<Void> encoded;
        /** Whether the result was read out of staging when the chunk finished (a large one, in parallel with others). */
        private boolean readEarly;
        private @Nullable Object earlyResult;
        private @Nullable Throwable earlyFailure;
        /** The completion callback of every chunk, made once (attaching it is the only per-chunk allocation here). */
        private final BiConsumer<@Nullable Object, @Nullable Throwable> onChunkDone = this::chunkDone;

        Flight(Lane lane) {
            this.lane = lane;
        }

        int state() {
            return state;
        }

        long chunkSequence() {
            return sequence;
        }

        /** The output elements of the chunk in flight (its result's size). */
        long outputElements() {
            return outputElements;
        }

        boolean aborted() {
            return aborted;
        }

        @Nullable Throwable error() {
            return error;
        }

        /**
         * Whether the lane may serve another chunk after this one: it did not fail on the device, and did not
         * stop half-enqueued (a chunk refused before anything was enqueued leaves the lane as it was).
         */
        boolean reusable() {
            return error == null && !(aborted && lastUse != null);
        }

        void reset() {
            target = null;
            stageFuture = null;
            lastUse = null;
            state = FREE;
        }

        /**
         * Enqueues upload, stage and download of one chunk on the lane's stream, after the chunks already in
         * the lane. On an exception, whatever was enqueued still runs: the flight stays in flight until it has,
         * then reports DONE with {@link #aborted()} set.
         */
        <I> void start(FluxGpuPipeline.PipelineSubscriber<?, ?> by, long seq, I chunk, GpuPipeline<I, ?> p, long n, long outN) {
            Lane l = lane;
            DeviceStream stream = l.stream;
            l.owner = by;
            l.sequence = seq;
            l.elements = n;
            l.outputElements = outN;
            sequence = seq;
            outputElements = outN;
            stageFuture = null;
            lastUse = null;
            target = null;
            targetViaStaging = false;
            aborted = false;
            error = null;
            encoded = null;
            readEarly = false;
            earlyResult = null;
            earlyFailure = null;
            try {
                // Asked first, so that a bad target fails the chunk before anything of it is enqueued.
                HostBuffer directTarget = p.targetFor(chunk, seq, outN);
                ChunkSource<I> source = p.source();
                DeviceBuffer in = n == l.deviceIn.count() ? l.deviceIn : l.deviceIn.slice(0, n);
                DeviceBuffer out = p.inPlace() ? in
                        : outN == l.deviceOut.count() ? l.deviceOut : l.deviceOut.slice(0, outN);
                HostBuffer pinned = source.pinned(chunk);
                if (pinned != null && pinned.dtype() == l.deviceIn.dtype() && !pinned.isClosed()
                        && stream.context().sharesPinnedMemoryWith(pinned.context())) {
                    lastUse = stream.enqueueCopy(pinned, in); // zero-copy: the caller's pinned memory, of any device's
                } else {
                    HostBuffer staging = stagingIn();
                    MemorySegment seg = staging.segment();
                    long bytes = n * l.deviceIn.dtype().byteSize();
                    MemorySegment into = bytes == seg.byteSize() ? seg : seg.asSlice(0, bytes);
                    if (p.copiesInParallel(bytes)) {
                        // Copied on another thread while this one goes on with other chunks; the stream holds the
                        // upload until the copy is done. A copy that fails fails the chunk when it finishes (chunkDone).
                        CompletableFuture<Void> copied = new CompletableFuture<>();
                        encoded = copied;
                        GpuPipeline.hostCopy(() -> {
                            try {
                                source.copyTo(chunk, into);
                                copied.complete(null);
                            } catch (Throwable t) {
                                copied.completeExceptionally(t);
                            }
                        });
                        lastUse = stream.waitFor(copied);
                    } else {
                        source.copyTo(chunk, into);
                    }
                    lastUse = stream.enqueueCopy(n == staging.count() ? staging : staging.slice(0, n), in);
                }
                DeviceFuture<?> sf;
                l.chunk = chunk;
                try {
                    sf = p.stage().enqueue(l, in, out);
                } finally {
                    l.chunk = null; // an idle lane must not keep a subscription's chunk reachable
                }
                stageFuture = sf;
                boolean foreign = sf != null && sf.stream() != stream && !sf.isDone();
                if (sf != null && sf.stream() == stream) {
                    lastUse = sf;
                }
                if (foreign) {
                    // The download reads `out`, and the lane's next chunk reuses its buffers once the stream gets
                    // there: make the stream wait for the stage's work on another stream first (a device-side
                    // wait, no host thread; a no-op cost if the stage already made it wait).
                    lastUse = stream.waitFor(sf);
                }
                HostBuffer result;
                if (directTarget != null && stream.context().sharesPinnedMemoryWith(directTarget.context())) {
                    result = directTarget; // zero-copy: the caller's pinned memory, of any device's whose it can use
                    target = directTarget;
                } else if (directTarget != null) {
                    // Pinned memory of another of the pipeline's contexts that this lane's cannot use: downloaded into
                    // the lane's staging, and copied into the target on the host when the chunk's result is taken.
                    HostBuffer staging = stagingOut();
                    result = outN == staging.count() ? staging : staging.slice(0, outN);
                    target = directTarget;
                    targetViaStaging = true;
                } else {
                    HostBuffer staging = stagingOut();
                    result = outN == staging.count() ? staging : staging.slice(0, outN);
                }
                DeviceFuture<Void> download = stream.enqueueCopy(out, result);
                lastUse = download;
                state = IN_FLIGHT;
                p.metrics.chunkEnqueued();
                if (foreign) {
                    CompletableFuture.allOf(download, sf).whenComplete(onChunkDone); // stage work on another stream
                } else {
                    download.whenComplete(onChunkDone);
                }
            } catch (RuntimeException | Error e) {
                aborted = true;
                DeviceFuture<?> last = lastUse;
                if (last != null) {
                    state = IN_FLIGHT;
                    p.metrics.chunkEnqueued();
                    last.whenComplete(onChunkDone); // let what was enqueued finish before the lane is reused or freed
                } else {
                    state = FREE;
                }
                throw e;
            }
        }

        private HostBuffer stagingIn() {
            if (stagingIn == null) {
                // Allocated on first need: a pipeline fed pinned HostBuffers never stages its input.
                stagingIn = allocateStaging(lane.pipeline.inputType(), lane.pipeline.chunkElements());
            }
            return stagingIn;
        }

        private HostBuffer stagingOut() {
            if (stagingOut == null) {
                // Allocated on first need: a pipeline downloading into ChunkTarget buffers never stages its output.
                stagingOut = allocateStaging(lane.pipeline.outputType(), lane.pipeline.outputCapacity());
            }
            return stagingOut;
        }

        private HostBuffer allocateStaging(DType type, long count) {
            HostBuffer h = lane.context().allocateHost(type, count);
            lane.pipeline.metrics.hostAllocations.increment();
            return h;
        }

        /** Completion of the chunk's last operation: on the completion thread. */
        private void chunkDone(@Nullable Object ignored, @Nullable Throwable failure) {
            Throwable e = failure;
            if (e instanceof CompletionException && e.getCause() != null) {
                e = e.getCause();
            }
            DeviceFuture<?> sf = stageFuture;
            if (e == null && sf != null && sf.isCompletedExceptionally()) {
                e = sf.state() == java.util.concurrent.Future.State.FAILED ? sf.exceptionNow()
                        : new java.util.concurrent.CancellationException("the stage's future was cancelled");
            }
            CompletableFuture<Void> copied = encoded;
            if (e == null && copied != null && copied.isCompletedExceptionally()) {
                e = copied.exceptionNow(); // the stream went on after the failed copy: the result is not the chunk's
            }
            GpuPipeline<?, ?> p = lane.pipeline;
            ChunkSink<?> sink = p.sink();
            HostBuffer staging = stagingOut;
            long bytes = outputElements * p.outputType().byteSize();
            if (e == null && !aborted && target == null && sink != null && staging != null && p.copiesInParallel(bytes)) {
                // A large result is read out of staging now, off the completion thread and in parallel with other
                // chunks' (the drain loop would otherwise read every result itself, one at a time, when it emits it).
                readEarly = true;
                GpuPipeline.hostCopy(() -> {
                    try {
                        MemorySegment whole = staging.segment();
                        earlyResult = sink.read(bytes == whole.byteSize() ? whole : whole.asSlice(0, bytes), p.outputType(),
                                outputElements);
                    } catch (Throwable t) {
                        earlyFailure = t;
                    }
                    finish(null);
                });
                return;
            }
            finish(e);
        }

        /** Publishes the chunk's end; the volatile write of {@code state} publishes the fields written before it. */
        private void finish(@Nullable Throwable e) {
            error = e;
            lane.pipeline.metrics.chunkFinished();
            state = DONE;
            FluxGpuPipeline.@Nullable PipelineSubscriber<?, ?> o = lane.owner;
            if (o != null) {
                o.drain();
            }
        }

        /** The chunk's result: its target buffer, or read out of the staging buffer by the sink; then the flight is free. */
        @SuppressWarnings("unchecked")
        <O> O takeResult(@Nullable ChunkSink<O> sink) {
            try {
                HostBuffer t = target;
                if (t != null && targetViaStaging) {
                    HostBuffer staging = java.util.Objects.requireNonNull(stagingOut);
                    long bytes = outputElements * lane.pipeline.outputType().byteSize();
                    MemorySegment.copy(staging.segment(), 0, t.segment(), 0, bytes); // fails if t was closed meanwhile
                }
                if (t != null) {
                    return (O) t; // pipelines with a ChunkTarget emit HostBuffers (GpuPipeline.Builder.buildInto)
                }
                if (readEarly) {
                    Throwable f = earlyFailure;
                    if (f != null) {
                        if (f instanceof Error err) {
                            throw err;
                        }
                        throw f instanceof RuntimeException r ? r : new CompletionException(f);
                    }
                    return (O) earlyResult;
                }
                HostBuffer staging = stagingOut;
                if (sink == null || staging == null) {
                    throw new IllegalStateException("no result to read in " + lane);
                }
                MemorySegment whole = staging.segment();
                DType type = lane.pipeline.outputType();
                long bytes = outputElements * type.byteSize();
                MemorySegment seg = bytes == whole.byteSize() ? whole : whole.asSlice(0, bytes);
                return sink.read(seg, type, outputElements);
            } finally {
                target = null;
                targetViaStaging = false;
                readEarly = false;
                earlyResult = null;
                state = FREE;
            }
        }

        void discardResult() {
            target = null;
            targetViaStaging = false;
            readEarly = false;
            earlyResult = null;
            state = FREE;
        }
    }

    // ---------------------------------------------------------------- release

    /**
     * Frees everything once the device is done with the lane: called only when no chunk is in flight. Device
     * frees are enqueued on the lane's stream (after all its work); once they have finished, the staging
     * buffers and the stream are closed on {@code closer} ({@link DeviceStream#close()} waits, so never on
     * a non-blocking thread).
     */
    void release(Executor closer) {
        if (released) {
            return;
        }
        released = true;
        releaseNow(closer);
    }

    private void releaseNow(Executor closer) {
        released = true;
        PipelineMetrics m = pipeline.metrics;
        CompletableFuture<?> lastFree = null;
        for (DeviceBuffer b : deviceBuffers) {
            try {
                DeviceFuture<Void> f = stream.enqueueFree(b);
                f.whenComplete((v, e) -> m.deviceReleases.increment());
                lastFree = f;
            } catch (RuntimeException e) {
                // Faulted or closed context: close() forgets the memory, which went with the device.
                b.close();
                m.deviceReleases.increment();
            }
        }
        List<HostBuffer> staging = new ArrayList<>(2 * flights.length);
        for (Flight f : flights) {
            if (f.stagingIn != null) {
                staging.add(f.stagingIn);
            }
            if (f.stagingOut != null) {
                staging.add(f.stagingOut);
            }
        }
        Runnable closeStream = () -> {
            // Off the enqueuing thread: freeing pinned memory can wait for the device on some drivers
            // (cuMemFreeHost), and closing a stream waits for it.
            for (HostBuffer h : staging) {
                h.close(); // frees once every copy enqueued on it has finished (all have, by now)
                m.hostReleases.increment();
            }
            try {
                stream.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing " + stream + " failed", e);
            }
            m.lanesClosed.increment();
            pipeline.laneGone();
        };
        if (lastFree == null) {
            closer.execute(closeStream);
        } else {
            lastFree.whenCompleteAsync((v, e) -> closeStream.run(), closer);
        }
    }

    @Override
    public String toString() {
        return "Lane[" + index + " of " + pipeline + ", " + stream + "]";
    }
}
