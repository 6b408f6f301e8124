package dev.sluice.cuda;

import dev.sluice.spi.support.PinnedMemory;
import dev.sluice.spi.support.StagingPool;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Copies whose host side is not pinned (Java arrays, pageable native memory) go through pinned chunks of
 * {@link #CHUNK} bytes, in stream order, with no stream waiting on the device for the host:
 *
 * <ul>
 * <li>host → device: the caller copies into chunks and enqueues their DMAs on the stream; a chunk is reused once
 * an event recorded after its DMA has completed;
 * <li>device → host: the DMAs into chunks are enqueued on the stream, and a staging thread copies each chunk to
 * its destination once its DMA has finished; the stream's later markers wait for that ({@link CudaStagedMarker}), so
 * the operation's future completes only once the Java array holds the data.
 * </ul>
 *
 * The caller waits only when all {@link #MAX_CHUNKS} chunks are in flight. (An earlier version gated the stream on
 * the device until a staging thread had copied: on the H100 that deadlocked once eight streams were gated, since
 * the staging copies' own stream then waited behind them; docs/gpu-runs.md.)
 *
 * Pageable copies through the driver ({@code cuMemcpyHtoDAsync} from unpinned memory) would instead wait for
 * the stream to drain inside the call, blocking the caller. At most {@link #MAX_CHUNKS} chunks are kept. The chunks
 * themselves come from the backend kit's {@link StagingPool} (one size class, {@link #CHUNK}); what is CUDA's own here
 * is the event per chunk that says when it may be reused, and the staging threads.
 */
final class Staging {

    private static final Logger LOG = System.getLogger(Staging.class.getName());

    static final long CHUNK = 4L << 20;
    static final int MAX_CHUNKS = 32;

    /** A pinned chunk and the event that tells when its last DMA finished; one per buffer of the pool, kept. */
    static final class Chunk {
        final StagingPool.Buffer buffer;
        final long host;
        final MemorySegment segment;
        final long event;

        Chunk(StagingPool.Buffer buffer, long event) {
            this.buffer = buffer;
            this.host = buffer.address();
            this.segment = buffer.segment();
            this.event = event;
        }
    }

    private final DriverContext cu;
    private final StagingPool pool;
    private final Map<StagingPool.Buffer, Chunk> chunks = new IdentityHashMap<>();
    private final ArrayDeque<Chunk> busy = new ArrayDeque<>();
    private final AtomicInteger threadIds = new AtomicInteger();
    private @Nullable ExecutorService workers;
    private volatile boolean closed;

    Staging(DriverContext cu, PinnedMemory pinned) {
        this.cu = cu;
        this.pool = new StagingPool(pinned, CHUNK, CHUNK, MAX_CHUNKS);
    }

    /** A free chunk without waiting, or null if all {@link #MAX_CHUNKS} are in flight. The context is bound. */
    private synchronized @Nullable Chunk tryTake() {
        reclaim();
        StagingPool.Buffer b = pool.tryAcquire(CHUNK);
        if (b == null) {
            return null;
        }
        Chunk c = chunks.get(b);
        if (c == null) {
            long event;
            try {
                event = Cu.eventCreate(2); // DISABLE_TIMING
            } catch (RuntimeException e) {
                pool.release(b);
                throw e;
            }
            c = new Chunk(b, event);
            chunks.put(b, c);
        }
        return c;
    }

    /** A free chunk, waiting for an in-flight one if all {@link #MAX_CHUNKS} are taken. */
    Chunk take() {
        while (true) {
            Chunk waitFor;
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("staging closed");
                }
                Chunk c = tryTake();
                if (c != null) {
                    return c;
                }
                waitFor = busy.peekFirst();
            }
            if (waitFor != null) {
                awaitEvent(waitFor.event);
            } else {
                LockSupport.parkNanos(20_000); // held by downloads still copying to the host
            }
        }
    }

    /** Marks {@code c} in use until the work enqueued on {@code stream} so far has finished. */
    synchronized void releaseAfter(Chunk c, long stream) {
        Cu.check(Cu.eventRecord(c.event, stream), "cuEventRecord (staging)");
        busy.addLast(c);
    }

    /** Returns a chunk whose DMA is known to be finished. */
    synchronized void give(Chunk c) {
        pool.release(c.buffer);
    }

    private void reclaim() {
        Chunk c;
        while ((c = busy.peekFirst()) != null) {
            int r = Cu.eventQuery(c.event);
            if (r == Cu.ERROR_NOT_READY) {
                return;
            }
            busy.pollFirst();
            pool.release(c.buffer);
        }
    }

    /**
     * Waits for {@code event} on a helper thread by polling with short pauses rather than in
     * {@code cuEventSynchronize}, and gives up once the context is known to have faulted or staging has closed.
     *
     * @return the last {@code cuEventQuery} result (SUCCESS, or the error)
     */
    int awaitEvent(long event) {
        long pause = 1_000;
        while (true) {
            int r = Cu.eventQuery(event);
            if (r != Cu.ERROR_NOT_READY) {
                return r;
            }
            if (cu.isFaulted() || closed) {
                return 700;
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 100_000);
        }
    }

    /** Runs tasks on staging threads, with the context bound. */
    Executor executor() {
        ExecutorService w;
        synchronized (this) {
            if (workers == null) {
                workers = Executors.newCachedThreadPool(r -> Thread.ofPlatform().daemon()
                        .name("sluice-cuda-staging-" + cu.ordinal + "-" + threadIds.incrementAndGet()).unstarted(r));
            }
            w = workers;
        }
        return task -> w.execute(() -> {
            try {
                cu.bind();
                task.run();
            } catch (Throwable t) {
                LOG.log(Level.WARNING, "staged copy failed", t);
            }
        });
    }

    /** Stops the staging threads and frees the chunks. The context is bound; its work is finished. */
    void close() {
        ExecutorService w;
        synchronized (this) {
            closed = true;
            w = workers;
        }
        if (w != null) {
            w.shutdown();
            try {
                w.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            for (Chunk c : chunks.values()) {
                Cu.eventDestroy(c.event);
            }
            chunks.clear();
            busy.clear();
            pool.destroy();
        }
    }
}
