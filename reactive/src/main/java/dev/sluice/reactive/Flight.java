package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One place for a chunk in a {@link Lane}, and the chunk's passage through it: enqueues the chunk's upload, stage and
 * download on the lane's stream ({@link #start}), records its end on the completion thread, and gives its result
 * ({@link #takeResult}). Each place has staging buffers of its own (two slots of the lane's, taken from the
 * pipeline's pool on first need: a pipeline fed pinned {@link HostBuffer}s never stages its input, one downloading
 * into {@link ChunkTarget} buffers never its output), so the chunks a lane holds at once never share host memory.
 *
 * <p>Written by the drain loop before the completion callback is attached, read by the callback (ordered by
 * CompletableFuture); {@code state} publishes the callback's writes to the drain loop.
 */
final class Flight {

    /** No chunk: the place may take one. */
    static final int FREE = 0;
    /** The chunk's device work has been enqueued and has not finished. */
    static final int IN_FLIGHT = 1;
    /** The chunk's device work has finished: its result (or failure) waits to be taken. */
    static final int DONE = 2;

    private final Lane lane;
    /** The flight's place in its lane: its staging buffers are the lane's slots {@code 2 * place} and the next. */
    private final int place;
    /** Whether the output staging buffer was taken (a result was downloaded into staging). */
    private boolean stagedOut;
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
    /** The copy of a large chunk into staging, running off the drain loop; the stream waits for it. */
    private @Nullable CompletableFuture<Void> encoded;
    /** Whether the result was read out of staging when the chunk finished (a large one, in parallel with others). */
    private boolean readEarly;
    private @Nullable Object earlyResult;
    private @Nullable Throwable earlyFailure;
    /**
     * A large result's object ({@link ChunkSink#allocate}, null where the sink makes none), made on a result thread while
     * the device works on the chunk: a 4 MiB {@code float[]} takes about as long to zero as to fill, and made after the
     * download it lay on every chunk's path. Null (no future) where the result is not read early.
     */
    private @Nullable CompletableFuture<@Nullable Object> allocated;
    /** The completion callback of every chunk, made once (attaching it is the only per-chunk allocation here). */
    private final BiConsumer<@Nullable Object, @Nullable Throwable> onChunkDone = this::chunkDone;

    Flight(Lane lane, int place) {
        this.lane = lane;
        this.place = place;
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

    /** The input staging buffer, of {@code chunkElements}: taken now if it was not. */
    private HostBuffer stagingIn() {
        PipelineSpec spec = lane.spec();
        return lane.staging(2 * place, spec.inputType(), spec.chunkElements());
    }

    /** The output staging buffer, of the output capacity: taken now if it was not. */
    private HostBuffer stagingOut() {
        PipelineSpec spec = lane.spec();
        stagedOut = true;
        return lane.staging(2 * place + 1, spec.outputType(), spec.outputCapacity());
    }

    /** The output staging buffer, or null if none was taken (no result was ever downloaded into staging). */
    private @Nullable HostBuffer stagingOutIfTaken() {
        return stagedOut ? stagingOut() : null;
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

    // ---------------------------------------------------------------- enqueue (drain loop)

    /**
     * Enqueues upload, stage and download of one chunk on the lane's stream, after the chunks already in
     * the lane. On an exception, whatever was enqueued still runs: the flight stays in flight until it has,
     * then reports DONE with {@link #aborted()} set.
     */
    <I> void start(PipelineSubscriber<?, ?> by, long seq, I chunk, GpuPipeline<I, ?> p, long n, long outN) {
        lane.begin(by, seq, n, outN);
        clear(seq, outN);
        try {
            // Asked first, so that a bad target fails the chunk before anything of it is enqueued.
            HostBuffer directTarget = p.io().targetFor(chunk, seq, outN);
            DeviceBuffer in = lane.input(n);
            DeviceBuffer out = p.spec().inPlace() ? in : lane.output(outN);
            upload(p, chunk, n, in);
            DeviceFuture<?> sf = lane.enqueueStage(chunk, in, out);
            boolean foreign = followStage(sf);
            DeviceFuture<Void> download = download(out, outN, directTarget);
            lastUse = download;
            allocateEarly(p);
            state = IN_FLIGHT;
            p.metrics.chunkEnqueued();
            if (foreign) {
                CompletableFuture.allOf(download, sf).whenComplete(onChunkDone); // stage work on another stream
            } else {
                download.whenComplete(onChunkDone);
            }
        } catch (RuntimeException | Error e) {
            abandon(p.metrics);
            throw e;
        }
    }

    private void clear(long seq, long outN) {
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
        allocated = null;
    }

    /**
     * Starts making the result's object on a result thread now where the result is to be read early (a large one, out of
     * staging, by a sink: {@link #readsEarly}); a chunk that fails drops it.
     */
    private void allocateEarly(GpuPipeline<?, ?> p) {
        ChunkSink<?> sink = p.io().sink();
        DType type = p.spec().outputType();
        long elements = outputElements;
        if (sink == null || target != null || stagingOutIfTaken() == null
                || !p.hostCopies().inParallel(elements * type.byteSize())) {
            return;
        }
        CompletableFuture<@Nullable Object> made = new CompletableFuture<>();
        allocated = made;
        HostCopies.makeResult(() -> {
            try {
                made.complete(sink.allocate(type, elements));
            } catch (Throwable t) {
                made.completeExceptionally(t);
            }
        });
    }

    /**
     * Enqueues the upload of the chunk into {@code in}: by the source itself (several pieces of pinned memory), from the
     * caller's pinned memory, or through staging.
     */
    private <I> void upload(GpuPipeline<I, ?> p, I chunk, long n, DeviceBuffer in) {
        DeviceStream stream = lane.stream();
        ChunkSource<I> source = p.io().source();
        DeviceFuture<?> uploaded = source.enqueueUpload(chunk, stream, in);
        if (uploaded != null) {
            // A future of another stream would let the stage run before the copies: hold the lane's stream for it.
            lastUse = uploaded.stream() == stream ? uploaded : stream.waitFor(uploaded);
            return;
        }
        HostBuffer pinned = source.pinned(chunk);
        if (pinned != null && pinned.dtype() == in.dtype() && !pinned.isClosed()
                && stream.context().sharesPinnedMemoryWith(pinned.context())) {
            lastUse = stream.enqueueCopy(pinned, in); // zero-copy: the caller's pinned memory, of any device's
            return;
        }
        HostBuffer stagingIn = stagingIn();
        long bytes = n * in.dtype().byteSize();
        MemorySegment into = HostCopies.prefix(stagingIn.segment(), bytes);
        MemorySegment whole = source.segment(chunk);
        if (whole != null && whole.byteSize() != bytes) {
            // Copied as it is, a shorter segment left the rest of the staging buffer as an earlier chunk had it: a
            // wrong result, silently. Nothing of the chunk is enqueued yet.
            throw new InvalidArgumentException("source", source + " gives chunk " + sequence + " a segment of "
                    + whole.byteSize() + " bytes, but " + n + " elements of " + in.dtype() + " (its elements()) are "
                    + bytes + " bytes");
        }
        if (whole != null && p.hostCopies().inParallel(bytes)) {
            // Split over the copy threads while this one goes on with other chunks; the stream holds the upload until
            // every piece is copied. A copy that fails fails the chunk when it finishes (chunkDone).
            encoded = lane.fill(HostCopies.prefix(stagingIn, n), whole);
        } else if (p.hostCopies().inParallel(bytes)) {
            // The source copies the chunk itself: in one piece, on a copy thread.
            CompletableFuture<Void> copied = new CompletableFuture<>();
            encoded = copied;
            HostCopies.run(() -> {
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
        lastUse = stream.enqueueCopy(HostCopies.prefix(stagingIn, n), in);
    }

    /**
     * Orders the lane's stream after the stage's work; true if that work is on another stream (and not done yet),
     * so that the chunk ends only once both have finished.
     */
    private boolean followStage(@Nullable DeviceFuture<?> sf) {
        DeviceStream stream = lane.stream();
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
        return foreign;
    }

    /** Enqueues the download of {@code out}: into the chunk's target buffer, or into staging. */
    private DeviceFuture<Void> download(DeviceBuffer out, long outN, @Nullable HostBuffer directTarget) {
        DeviceStream stream = lane.stream();
        HostBuffer result;
        if (directTarget != null && stream.context().sharesPinnedMemoryWith(directTarget.context())) {
            result = directTarget; // zero-copy: the caller's pinned memory, of any device's whose it can use
            target = directTarget;
        } else if (directTarget != null) {
            // Pinned memory of another of the pipeline's contexts that this lane's cannot use: downloaded into
            // the lane's staging, and copied into the target on the host when the chunk's result is taken.
            result = HostCopies.prefix(stagingOut(), outN);
            target = directTarget;
            targetViaStaging = true;
        } else {
            result = HostCopies.prefix(stagingOut(), outN);
        }
        return stream.enqueueCopy(out, result);
    }

    /** After a failed start: lets what was enqueued finish before the lane is reused or freed. */
    private void abandon(PipelineMetrics metrics) {
        aborted = true;
        DeviceFuture<?> last = lastUse;
        if (last != null) {
            state = IN_FLIGHT;
            metrics.chunkEnqueued();
            last.whenComplete(onChunkDone);
        } else {
            state = FREE;
        }
    }

    // ---------------------------------------------------------------- end (completion thread)

    /** Completion of the chunk's last operation: on the completion thread. */
    private void chunkDone(@Nullable Object ignored, @Nullable Throwable failure) {
        Throwable e = failure;
        if (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        DeviceFuture<?> sf = stageFuture;
        if (e == null && sf != null && sf.isCompletedExceptionally()) {
            e = sf.state() == Future.State.FAILED ? sf.exceptionNow()
                    : new CancellationException("the stage's future was cancelled");
        }
        CompletableFuture<Void> copied = encoded;
        if (e == null && copied != null && copied.isCompletedExceptionally()) {
            e = copied.exceptionNow(); // the stream went on after the failed copy: the result is not the chunk's
        }
        if (e == null && !aborted && target == null && readsEarly()) {
            return;
        }
        finish(e);
    }

    /**
     * Reads a large result out of staging now, off the completion thread and in parallel with other chunks' (the
     * drain loop would otherwise read every result itself, one at a time, when it emits it); false if this result
     * is read when it is taken. The chunk's start decided it ({@link #allocateEarly}): a result read early is one whose
     * object is being made.
     */
    private boolean readsEarly() {
        CompletableFuture<@Nullable Object> made = allocated;
        if (made == null) {
            return false;
        }
        GpuPipeline<?, ?> p = lane.pipeline();
        ChunkSink<?> sink = Objects.requireNonNull(p.io().sink());
        DType type = p.spec().outputType();
        long elements = outputElements;
        long seq = sequence;
        MemorySegment staged = HostCopies.prefix(Objects.requireNonNull(stagingOutIfTaken()).segment(),
                elements * type.byteSize());
        readEarly = true;
        // On a copy thread, never the completion thread: the sink's read, or the hand-out of the copy's pieces.
        made.whenCompleteAsync((result, failed) -> {
            MemorySegment into;
            try {
                if (failed != null) {
                    throw failed;
                }
                into = result == null ? null : segmentOf(sink, result);
                if (into != null && into.byteSize() != staged.byteSize()) {
                    // Else an IndexOutOfBoundsException from a copy thread, or part of the result left unfilled.
                    throw new InvalidArgumentException("sink", sink + " gives the result of chunk " + seq + " a segment"
                            + " of " + into.byteSize() + " bytes; its " + elements + " elements of " + type + " are "
                            + staged.byteSize() + " bytes");
                }
            } catch (Throwable t) {
                earlyFailure = t;
                finish(null);
                return;
            }
            if (into != null) {
                // The sink's own result object, filled in pieces by the copy threads.
                p.hostCopies().copy(staged, into).whenComplete((v, t) -> {
                    earlyResult = result;
                    earlyFailure = t;
                    finish(null);
                });
                return;
            }
            try {
                earlyResult = sink.read(staged, type, elements);
            } catch (Throwable t) {
                earlyFailure = t;
            }
            finish(null);
        }, HostCopies.executor());
        return true;
    }

    @SuppressWarnings("unchecked")
    private static <R> @Nullable MemorySegment segmentOf(ChunkSink<R> sink, Object result) {
        return sink.segment((R) result);
    }

    /** Publishes the chunk's end; the volatile write of {@code state} publishes the fields written before it. */
    private void finish(@Nullable Throwable e) {
        error = e;
        lane.metrics().chunkFinished();
        state = DONE;
        PipelineSubscriber<?, ?> o = lane.owner();
        if (o != null) {
            o.drain();
        }
    }

    // ---------------------------------------------------------------- result (drain loop)

    /** The chunk's result: its target buffer, or read out of the staging buffer by the sink; then the flight is free. */
    @SuppressWarnings("unchecked")
    <O> O takeResult(@Nullable ChunkSink<O> sink) {
        try {
            HostBuffer t = target;
            if (t != null) {
                if (targetViaStaging) {
                    HostBuffer out = Objects.requireNonNull(stagingOutIfTaken());
                    long bytes = outputElements * lane.spec().outputType().byteSize();
                    MemorySegment.copy(out.segment(), 0, t.segment(), 0, bytes); // fails if t was closed meanwhile
                }
                return (O) t; // pipelines with a ChunkTarget emit HostBuffers (GpuPipeline.Builder.buildInto)
            }
            if (readEarly) {
                return (O) earlyResult();
            }
            HostBuffer out = stagingOutIfTaken();
            if (sink == null || out == null) {
                throw new IllegalStateException("no result to read in " + lane);
            }
            DType type = lane.spec().outputType();
            MemorySegment seg = HostCopies.prefix(out.segment(), outputElements * type.byteSize());
            return sink.read(seg, type, outputElements);
        } finally {
            discardResult();
        }
    }

    private @Nullable Object earlyResult() {
        Throwable f = earlyFailure;
        if (f != null) {
            if (f instanceof Error err) {
                throw err;
            }
            throw f instanceof RuntimeException r ? r : new CompletionException(f);
        }
        return earlyResult;
    }

    /** Drops the result (after a cancel or an error, or once it is taken): the flight is free. */
    void discardResult() {
        target = null;
        targetViaStaging = false;
        readEarly = false;
        earlyResult = null;
        allocated = null;
        state = FREE;
    }
}
