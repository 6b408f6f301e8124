package dev.sluice.reactive;

import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import dev.sluice.InvalidArgumentException;
import dev.sluice.RepeatedWork;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A lane: a stream of its own and the device and pinned staging buffers that the work items running on it (the chunks
 * of a {@link GpuPipeline}, the elements of a Flink {@code SluiceAsyncFunction}) reuse one after another, in the stream's
 * order. Both integrations run their work on lanes of this type, so what it does for one it does for the other: graph
 * replay and element-wise fusion of the stage ({@link #repeat}), staging from a shared {@link HostBufferPool}, and host
 * copies into staging spread over several copy threads ({@link #fill}).
 *
 * <p>Buffers are numbered slots: {@link #deviceBuffer} and {@link #staging} hand out slot {@code n}'s buffer, made on
 * first need and replaced by a larger one when a work item needs more, so a steady load allocates nothing after its
 * first items. The stream's order keeps each item's use of them after the previous item's.
 *
 * <p><b>Thread-safety:</b> the methods that make buffers and {@link #close()} are synchronized (a Flink element that
 * waited for a lane is started on another thread than the task's); enqueue a work item from one thread at a time.
 *
 * <p><b>Resources:</b> the lane owns its stream and buffers. {@link #release} and {@link #close()} free the device
 * buffers in the stream's order, give the staging buffers back to the pool (reusable once their copies have finished)
 * and close the stream; both are idempotent and thread-safe. Buffers handed out are valid until the lane is released.
 */
public final class DeviceLane {

    /**
     * The highest slot number of {@link #staging} and {@link #deviceBuffer}: a stage numbers a few buffers, and the lane
     * keeps a table up to the highest number asked for, so a larger one is refused rather than grown to (a slot of
     * {@code Integer.MAX_VALUE} would otherwise take the heap).
     */
    public static final int MAX_SLOT = 1023;

    private static final System.Logger LOG = System.getLogger(DeviceLane.class.getName());

    /** What a lane reports to its owner's metrics; package-private, for the pipeline's counters. */
    interface Counters {
        /** Reports nothing. */
        Counters NONE = new Counters() {
        };

        default void deviceAllocated() {
        }

        default void deviceReleased() {
        }

        default void stagingTaken() {
        }

        default void stagingGiven() {
        }
    }

    private final int index;
    private final DeviceStream stream;
    private final HostBufferPool pool;
    /** The stage as repeated work of the stream (graph replay), or null to enqueue it plainly. */
    private final @Nullable RepeatedWork repeated;
    private final HostCopies copies;
    private final Counters counters;
    private final List<@Nullable DeviceBuffer> device = new ArrayList<>(4);
    private final List<@Nullable HostBuffer> staging = new ArrayList<>(4);
    /** Set once by {@link #release} or {@link #close()}; buffers are made and the lane released under this monitor. */
    private boolean released;

    private DeviceLane(int index, DeviceStream stream, HostBufferPool pool, boolean graphReplay, boolean fuseElementwise,
            HostCopies copies, Counters counters) {
        this.index = index;
        this.stream = stream;
        this.pool = pool;
        this.copies = copies;
        this.counters = counters;
        this.repeated = graphReplay ? stream.repeatedWork().fuseElementwise(fuseElementwise) : null;
    }

    /**
     * A lane over {@code stream}, which it owns from now on, with staging buffers from {@code pool}.
     *
     * @param index           the lane's number among its owner's lanes
     * @param graphReplay     whether {@link #repeat} records its body and replays it as one graph launch
     * @param fuseElementwise whether that replay fuses consecutive element-wise launches ({@link RepeatedWork})
     * @throws InvalidArgumentException naming {@code stream} or {@code pool} if null, {@code index} if negative, or
     *                                  {@code pool} if the stream's context cannot use its pinned memory
     * @throws ClosedResourceException  if {@code stream} is closed
     */
    public static DeviceLane open(DeviceStream stream, int index, HostBufferPool pool, boolean graphReplay,
            boolean fuseElementwise) {
        return open(stream, index, pool, graphReplay, fuseElementwise, HostCopies.fromProperties(), Counters.NONE);
    }

    static DeviceLane open(DeviceStream stream, int index, HostBufferPool pool, boolean graphReplay,
            boolean fuseElementwise, HostCopies copies, Counters counters) {
        if (stream == null) {
            throw new InvalidArgumentException("stream", "null");
        }
        if (pool == null) {
            throw new InvalidArgumentException("pool", "null");
        }
        if (index < 0) {
            throw new InvalidArgumentException("index", "value " + index + " must not be negative");
        }
        if (stream.isClosed()) {
            // Else a lane opened without graph replay took it, and failed only at its first buffer.
            throw new ClosedResourceException(stream.toString());
        }
        if (!stream.context().sharesPinnedMemoryWith(pool.context())) {
            throw new InvalidArgumentException("pool", "its pinned memory of " + pool.context() + " cannot be copied"
                    + " by streams of " + stream.context());
        }
        return new DeviceLane(index, stream, pool, graphReplay, fuseElementwise, copies, counters);
    }

    /** The lane's stream: enqueue a work item's device work here. */
    public DeviceStream stream() {
        return stream;
    }

    /** The context of the lane's stream. */
    public DeviceContext context() {
        return stream.context();
    }

    /** The lane's number among its owner's lanes. */
    public int index() {
        return index;
    }

    /** The pool the lane's staging buffers come from and go back to. */
    public HostBufferPool pool() {
        return pool;
    }

    /**
     * Device buffer number {@code slot}: {@code count} elements of {@code type}, allocated on the lane's stream on first
     * need and reused item after item; a larger one replaces it (the old one freed in the stream's order) when an item
     * needs more. Holds what the previous item left.
     *
     * @throws InvalidArgumentException naming {@code slot} if outside 0 to {@value #MAX_SLOT}, {@code type} if null,
     *                                  {@code count} if not positive
     * @throws ClosedResourceException  once the lane is released
     */
    public synchronized DeviceBuffer deviceBuffer(int slot, DType type, long count) {
        check(slot, type, count);
        while (device.size() <= slot) {
            device.add(null);
        }
        DeviceBuffer b = device.get(slot);
        if (b == null || b.dtype() != type || b.count() < count) {
            if (b != null) {
                stream.enqueueFree(b).whenComplete((v, e) -> counters.deviceReleased());
            }
            b = stream.enqueueAllocate(type, count);
            device.set(slot, b);
            counters.deviceAllocated();
        }
        return b.count() == count ? b : b.slice(0, count);
    }

    /**
     * Pinned staging buffer number {@code slot}: {@code count} elements of {@code type}, taken from the lane's pool on
     * first need and kept item after item; a larger one replaces it when an item needs more (the old one goes back to
     * the pool, reusable once its copies have finished). Holds what the previous item, or the pool's last user, left.
     *
     * @throws InvalidArgumentException as {@link #deviceBuffer}
     * @throws ClosedResourceException  once the lane is released
     */
    public synchronized HostBuffer staging(int slot, DType type, long count) {
        check(slot, type, count);
        while (staging.size() <= slot) {
            staging.add(null);
        }
        HostBuffer h = staging.get(slot);
        if (h == null || h.dtype() != type || h.count() < count) {
            if (h != null) {
                pool.give(h);
                counters.stagingGiven();
            }
            h = pool.take(type, count);
            staging.set(slot, h);
            counters.stagingTaken();
        }
        return h.count() == count ? h : h.slice(0, count);
    }

    /**
     * Copies {@code source} into the first bytes of {@code target} (a staging buffer of this lane) and holds the lane's
     * stream until the copy has finished, so that an upload from {@code target} enqueued next reads the copied bytes.
     * A large copy (from {@code sluice.pipeline.parallelCopyBytes} bytes, 1 MiB by default) runs on the lanes' copy
     * threads, split over several of them; a small one on the caller's.
     *
     * <ul>
     * <li><b>Ordering:</b> the stream's work enqueued after this call runs after the copy; work enqueued before may run
     * meanwhile.
     * <li><b>Completion thread:</b> a copy thread, or the caller for a small copy (the future is then complete when this
     * returns).
     * <li><b>Cancellation:</b> cancelling the future stops nothing; the stream still waits for the copy.
     * <li><b>Resources:</b> {@code source} must not change, nor {@code target} be touched by the host, until the future
     * completes. A copy that fails (a closed arena) completes the future exceptionally, and the stream goes on: check
     * the future before trusting what the device computed from {@code target}.
     * </ul>
     *
     * @return completes once every byte is in {@code target}
     * @throws InvalidArgumentException naming {@code source} if null or larger than {@code target}, {@code target} if
     *                                  null
     * @throws ClosedResourceException  once the lane is released
     */
    public CompletableFuture<Void> fill(HostBuffer target, MemorySegment source) {
        if (target == null) {
            throw new InvalidArgumentException("target", "null");
        }
        if (source == null || source.byteSize() > target.byteSize()) {
            throw new InvalidArgumentException("source", source == null ? "null" : source.byteSize()
                    + " bytes do not fit the " + target.byteSize() + " bytes of " + target);
        }
        synchronized (this) {
            if (released) {
                // Its staging buffers went back to the pool, maybe to another lane by now: writing them would corrupt
                // that lane's chunk, and the stream that would wait for the copy is closed.
                throw new ClosedResourceException(this + " (released)");
            }
        }
        CompletableFuture<Void> copied = copies.copy(source, target.segment());
        if (!copied.isDone()) {
            stream.waitFor(copied);
        }
        return copied;
    }

    /**
     * Runs {@code body} with the lane's stream and returns what it returns: recorded and launched as one graph, replayed
     * for the next call of the same shape, where the lane was opened with graph replay (see {@link RepeatedWork}, whose
     * contract the body follows: no wait for a future inside it), else enqueued plainly. Call it from one thread at a
     * time.
     *
     * @throws InvalidArgumentException naming {@code body} if null
     * @throws ClosedResourceException  once the lane is released
     */
    @SuppressWarnings("unchecked")
    public <T> T repeat(Function<? super DeviceStream, T> body) {
        if (body == null) {
            throw new InvalidArgumentException("body", "null");
        }
        RepeatedWork w = repeated;
        if (w == null) {
            return body.apply(stream);
        }
        Object[] result = new Object[1];
        w.enqueue(s -> result[0] = body.apply(s));
        return (T) result[0];
    }

    /** Calls of {@link #repeat} launched as a replay of a graph built before. */
    public long replays() {
        RepeatedWork w = repeated;
        return w == null ? 0 : w.replays();
    }

    /** Calls of {@link #repeat} that built a graph. */
    public long builds() {
        RepeatedWork w = repeated;
        return w == null ? 0 : w.builds();
    }

    /** Calls of {@link #repeat} that fell back to plain enqueues; every call where graph replay is off. */
    public long fallbacks() {
        RepeatedWork w = repeated;
        return w == null ? 0 : w.fallbacks();
    }

    /** Launches that ran fused with others in {@link #repeat}'s graphs. */
    public long fusedLaunches() {
        RepeatedWork w = repeated;
        return w == null ? 0 : w.fusedLaunches();
    }

    /**
     * Copies all of {@code from} into the start of {@code to} (reading a result out of staging into a new array, say):
     * on the lanes' copy threads, split over several, from {@code sluice.pipeline.parallelCopyBytes} bytes (1 MiB by
     * default), else at once on the caller's thread.
     *
     * <ul>
     * <li><b>Ordering:</b> none with any stream: call it once the device is done with {@code from}.
     * <li><b>Completion thread:</b> a copy thread, or the caller for a small copy (the future is then complete).
     * <li><b>Cancellation:</b> cancelling the future stops nothing.
     * <li><b>Resources:</b> neither segment may change, nor {@code to} be read, until the future completes.
     * </ul>
     *
     * @return completes once every byte is copied, exceptionally if a piece failed
     * @throws InvalidArgumentException naming {@code from} or {@code to} if null, {@code to} if shorter than {@code from}
     *                                  or read-only
     */
    public static CompletableFuture<Void> copy(MemorySegment from, MemorySegment to) {
        if (from == null) {
            throw new InvalidArgumentException("from", "null");
        }
        if (to == null || to.byteSize() < from.byteSize()) {
            throw new InvalidArgumentException("to", to == null ? "null" : to.byteSize() + " bytes cannot hold the "
                    + from.byteSize() + " bytes copied");
        }
        if (to.isReadOnly()) {
            // Else the JDK's IllegalArgumentException, thrown here for a small copy and failing the future for a large one.
            throw new InvalidArgumentException("to", "is read-only");
        }
        return HostCopies.fromProperties().copy(from, to);
    }

    /** An executor of the lanes' copy threads, for short host work after a copy (reading a result out of staging). */
    public static Executor hostExecutor() {
        return HostCopies.executor();
    }

    private void check(int slot, DType type, long count) {
        if (slot < 0 || slot > MAX_SLOT) {
            throw new InvalidArgumentException("slot", "value " + slot + " is outside 0 to " + MAX_SLOT);
        }
        if (type == null) {
            throw new InvalidArgumentException("type", "null");
        }
        if (count < 1) {
            throw new InvalidArgumentException("count", "value " + count + " must be at least 1");
        }
        if (released) {
            // A work item started just before its owner closed must not make buffers that nothing would free.
            throw new ClosedResourceException(this + " (released)");
        }
    }

    // ---------------------------------------------------------------- release

    /**
     * Releases the lane without waiting: enqueues the free of every device buffer on the stream (after all its work),
     * and once those have finished, on {@code closer}, gives the staging buffers back to the pool and closes the stream
     * ({@link DeviceStream#close()} waits, so {@code closer} must be a thread that may block). Call it when no work item
     * is in flight. Idempotent and thread-safe.
     *
     * @param closer where the stream is closed; if it rejects the task, a virtual thread of the lane's own closes it
     * @return completes once the stream is closed (a failure to close it is logged, not reported)
     * @throws NullPointerException if {@code closer} is null
     */
    public CompletableFuture<Void> release(Executor closer) {
        Objects.requireNonNull(closer, "closer");
        // A closer that rejects the task (shut down) left the stream open, the staging buffers out of the pool and the
        // future incomplete for good: the close then runs on a virtual thread of its own instead (it may wait).
        Executor safe = task -> {
            try {
                closer.execute(task);
            } catch (RejectedExecutionException e) {
                LOG.log(System.Logger.Level.DEBUG, closer + " rejected the release of " + this + "; released on a"
                        + " virtual thread", e);
                Thread.ofVirtual().name("sluice-lane-release").start(task);
            }
        };
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<?> lastFree;
        synchronized (this) {
            if (released) {
                done.complete(null);
                return done;
            }
            released = true;
            lastFree = freeDeviceBuffers();
        }
        Runnable closeStream = () -> {
            try {
                closeStream();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing " + stream + " failed", e);
            } finally {
                done.complete(null);
            }
        };
        if (lastFree == null) {
            safe.execute(closeStream);
        } else {
            lastFree.whenCompleteAsync((v, e) -> closeStream.run(), safe);
        }
        return done;
    }

    /**
     * Releases the lane and waits: frees its device buffers in the stream's order, closes the stream (waiting for its
     * work) and gives the staging buffers back to the pool; for a thread that may block. Idempotent and thread-safe.
     *
     * @throws RuntimeException what closing the stream threw (the staging buffers are given back all the same)
     */
    public void close() {
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            freeDeviceBuffers();
        }
        closeStream();
    }

    /** Enqueues the free of every device buffer; the last one's future, or null if none was enqueued. */
    private @Nullable CompletableFuture<?> freeDeviceBuffers() {
        if (repeated != null) {
            repeated.close(); // its graph: launches already enqueued still run, and the buffers wait for them
        }
        CompletableFuture<?> lastFree = null;
        for (DeviceBuffer b : device) {
            if (b == null) {
                continue;
            }
            try {
                DeviceFuture<Void> f = stream.enqueueFree(b);
                f.whenComplete((v, e) -> counters.deviceReleased());
                lastFree = f;
            } catch (RuntimeException e) {
                // Faulted or closed context: close() forgets the memory, which went with the device.
                b.close();
                counters.deviceReleased();
            }
        }
        device.clear();
        return lastFree;
    }

    /** Closes the stream, then gives the staging buffers back (reusable once their copies have finished). */
    private void closeStream() {
        try {
            stream.close();
        } finally {
            List<HostBuffer> out;
            synchronized (this) {
                out = new ArrayList<>(staging.size());
                for (HostBuffer h : staging) {
                    if (h != null) {
                        out.add(h);
                    }
                }
                staging.clear();
            }
            for (HostBuffer h : out) {
                pool.give(h);
                counters.stagingGiven();
            }
        }
    }

    @Override
    public String toString() {
        return "DeviceLane[" + index + ", " + stream + "]";
    }
}
