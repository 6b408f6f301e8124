package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * One lane of a {@link GpuPipeline}: a stream of its own, the device input and output buffers, the scratch
 * buffers the pipeline declared, and the pinned staging buffers it needs (taken from the pipeline's
 * {@link dev.sluice.HostBufferPool} on first need), all reused chunk after chunk and, while the pipeline keeps its
 * lanes, subscription after subscription; the stage's view of a {@link DeviceLane}, which holds them. A lane
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

    // Inside the package, the lane also holds its chunks' places (a Flight per chunk it may hold); its stream and
    // buffers are a DeviceLane's, the lane type the Flink integration runs on too.

    private final GpuPipeline<?, ?> pipeline;
    private final int index;
    private final DeviceLane lane;
    private final DeviceBuffer deviceIn;
    private final DeviceBuffer deviceOut;
    private final DeviceBuffer[] scratch;
    /** One per chunk the lane may hold at once; each with its own staging buffers (taken on first need). */
    final Flight[] flights;

    // The chunk being enqueued, for the stage's getters (written and read by the drain loop only).
    private long sequence = -1;
    private @Nullable Object chunk;
    private long elements;
    private long outputElements;

    /** The subscription the lane serves, told of each chunk's end; null while the lane is idle. */
    private @Nullable PipelineSubscriber<?, ?> owner;
    private boolean released;

    private Lane(GpuPipeline<?, ?> pipeline, int index, DeviceStream stream) {
        this.pipeline = pipeline;
        this.index = index;
        PipelineSpec spec = pipeline.spec();
        DeviceLane l;
        try {
            l = DeviceLane.open(stream, index, pipeline.stagingPools().poolFor(stream.context()), spec.graphReplay(),
                    spec.elementwiseFusion(), pipeline.hostCopies(), pipeline.metrics.laneCounters());
        } catch (RuntimeException | Error e) {
            LanePool.CLOSER.execute(() -> { // no lane owns it yet; closing a stream may wait
                stream.close();
                pipeline.lanePool().laneGone();
            });
            throw e;
        }
        this.lane = l;
        this.flights = new Flight[spec.chunksPerLane()];
        for (int i = 0; i < flights.length; i++) {
            flights[i] = new Flight(this, i);
        }
        try {
            deviceIn = l.deviceBuffer(0, spec.inputType(), spec.chunkElements());
            deviceOut = spec.inPlace() ? deviceIn : l.deviceBuffer(1, spec.outputType(), spec.outputCapacity());
            scratch = new DeviceBuffer[spec.scratch().size()];
            for (int i = 0; i < scratch.length; i++) {
                PipelineSpec.Scratch s = spec.scratch().get(i);
                scratch[i] = l.deviceBuffer(2 + i, s.type(), s.count());
            }
        } catch (RuntimeException e) {
            releaseNow(LanePool.CLOSER);
            throw e;
        }
    }

    /** Opens a lane: a new stream and stream-ordered allocations (nothing here waits for the device). */
    static Lane open(GpuPipeline<?, ?> pipeline, int index) {
        LanePool pool = pipeline.lanePool();
        pool.laneOpening();
        DeviceStream s;
        try {
            PipelineSpec spec = pipeline.spec();
            s = spec.contextFor(index).createStream(spec.streamOptions());
        } catch (RuntimeException | Error e) {
            pool.laneGone();
            throw e;
        }
        pipeline.metrics.lanesOpened.increment();
        return new Lane(pipeline, index, s);
    }

    // ---------------------------------------------------------------- what stages see

    /** The lane's stream: enqueue the chunk's kernels here. */
    public DeviceStream stream() {
        return lane.stream();
    }

    /** The context of the lane's stream: one of the pipeline's {@link GpuPipeline#contexts()}. */
    public DeviceContext context() {
        return lane.context();
    }
    /**
     * The function of {@code kernel} on this lane's context, loaded when the pipeline was built; owned by the
     * pipeline (do not close it).
     *
     * @throws InvalidArgumentException if {@code kernel} was not declared with
     *         {@link GpuPipeline.Builder#kernel}
     */
    public DeviceFunction function(Kernel kernel) {
        return pipeline.kernels().function(kernel, index);
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

    /**
     * Scratch buffer {@code i}, in the order the builder declared them; whole, whatever the chunk's size.
     *
     * @throws InvalidArgumentException naming {@code i} if it is outside 0 to {@link #scratchCount()} - 1
     */
    public DeviceBuffer scratch(int i) {
        if (i < 0 || i >= scratch.length) {
            throw new InvalidArgumentException("i", "value " + i + (scratch.length == 0
                    ? ": no scratch buffer was declared (GpuPipeline.Builder.scratch)"
                    : " is outside 0 to " + (scratch.length - 1)));
        }
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
            if (f.state() != Flight.FREE) {
                c++;
            }
        }
        return c;
    }

    /** Chunks of the lane whose device work has not finished. */
    int inFlight() {
        int c = 0;
        for (Flight f : flights) {
            if (f.state() == Flight.IN_FLIGHT) {
                c++;
            }
        }
        return c;
    }

    /** A flight with no chunk, or null. */
    @Nullable Flight freeFlight() {
        for (Flight f : flights) {
            if (f.state() == Flight.FREE) {
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
     * Starts chunk {@code seq} of {@code owner}'s subscription: what the stage's getters report while it enqueues
     * that chunk, and whom the chunk's end is told.
     */
    void begin(PipelineSubscriber<?, ?> owner, long seq, long n, long outN) {
        this.owner = owner;
        this.sequence = seq;
        this.elements = n;
        this.outputElements = outN;
    }

    /** The subscription the lane serves, or null once it has been handed back. */
    @Nullable PipelineSubscriber<?, ?> owner() {
        return owner;
    }

    /** The lane's input buffer, or the slice of it that a chunk of {@code n} elements fills. */
    DeviceBuffer input(long n) {
        return n == deviceIn.count() ? deviceIn : deviceIn.slice(0, n);
    }

    /** The lane's output buffer, or the slice of it that a result of {@code outN} elements fills. */
    DeviceBuffer output(long outN) {
        return outN == deviceOut.count() ? deviceOut : deviceOut.slice(0, outN);
    }

    /** Calls the stage for {@code chunk}, which {@link #chunk()} shows it during the call only. */
    @Nullable DeviceFuture<?> enqueueStage(Object chunk, DeviceBuffer in, DeviceBuffer out) {
        this.chunk = chunk;
        try {
            DeviceLane l = lane;
            long replays = l.replays();
            long builds = l.builds();
            long fallbacks = l.fallbacks();
            long fused = l.fusedLaunches();
            DeviceFuture<?> f = l.repeat(s -> pipeline.spec().stage().enqueue(this, in, out));
            if (pipeline.spec().graphReplay()) {
                PipelineMetrics m = pipeline.metrics;
                m.graphReplays.add(l.replays() - replays);
                m.graphBuilds.add(l.builds() - builds);
                m.stageFallbacks.add(l.fallbacks() - fallbacks);
                m.fusedLaunches.add(l.fusedLaunches() - fused);
            }
            return f;
        } finally {
            this.chunk = null; // an idle lane must not keep a subscription's chunk reachable
        }
    }

    /** Staging buffer {@code slot} of the lane: {@code count} elements of {@code type} (see {@link DeviceLane#staging}). */
    HostBuffer staging(int slot, DType type, long count) {
        return lane.staging(slot, type, count);
    }

    /** Copies {@code source} into {@code target}, in parallel when large, and holds the stream until it has. */
    CompletableFuture<Void> fill(HostBuffer target, MemorySegment source) {
        return lane.fill(target, source);
    }

    PipelineSpec spec() {
        return pipeline.spec();
    }

    PipelineMetrics metrics() {
        return pipeline.metrics;
    }

    GpuPipeline<?, ?> pipeline() {
        return pipeline;
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

    // ---------------------------------------------------------------- release

    /**
     * Frees everything once the device is done with the lane: called only when no chunk is in flight. Device
     * frees are enqueued on the lane's stream (after all its work); once they have finished, the staging
     * buffers go back to the pipeline's pool and the stream is closed on {@code closer}
     * ({@link DeviceStream#close()} waits, so never on a non-blocking thread).
     */
    void release(Executor closer) {
        if (released) {
            return;
        }
        releaseNow(closer);
    }

    private void releaseNow(Executor closer) {
        released = true;
        lane.release(closer).whenComplete((v, e) -> {
            pipeline.metrics.lanesClosed.increment();
            pipeline.lanePool().laneGone();
        });
    }

    @Override
    public String toString() {
        return "Lane[" + index + " of " + pipeline + ", " + lane.stream() + "]";
    }
}
