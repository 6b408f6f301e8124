package dev.sluice.cuda;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * Copies whose host side is not pinned (Java arrays, pageable native memory) go through pinned chunks of
 * {@link #CHUNK} bytes, in stream order, with no stream waiting on the device for the host:
 *
 * <ul>
 * <li>host → device: the caller copies into chunks and enqueues their DMAs on the stream; a chunk is reused once
 * an event recorded after its DMA has completed;
 * <li>device → host: the DMAs into chunks are enqueued on the stream, and a staging thread copies each chunk to
 * its destination once its DMA has finished; the stream's later markers wait for that ({@link StagedMarker}), so
 * the operation's future completes only once the Java array holds the data.
 * </ul>
 *
 * The caller waits only when all {@link #MAX_CHUNKS} chunks are in flight. (An earlier version gated the stream on
 * the device until a staging thread had copied: on the H100 that deadlocked once eight streams were gated, since
 * the staging copies' own stream then waited behind them; docs/gpu-runs.md.)
 *
 * Pageable copies through the driver ({@code cuMemcpyHtoDAsync} from unpinned memory) would instead wait for
 * the stream to drain inside the call, blocking the caller. At most {@link #MAX_CHUNKS} chunks are kept.
 */
final class Staging {

    private static final Logger LOG = System.getLogger(Staging.class.getName());

    static final long CHUNK = 4L << 20;
    static final int MAX_CHUNKS = 32;

    /** A pinned chunk and the event that tells when its last DMA finished. */
    static final class Chunk {
        final long host;
        final MemorySegment segment;
        final long event;

        Chunk(long host, long event) {
            this.host = host;
            this.segment = MemorySegment.ofAddress(host).reinterpret(CHUNK);
            this.event = event;
        }
    }

    private final CudaContext context;
    private final ArrayDeque<Chunk> free = new ArrayDeque<>();
    private final ArrayDeque<Chunk> busy = new ArrayDeque<>();
    private final List<Chunk> all = new ArrayList<>();
    private final AtomicInteger threadIds = new AtomicInteger();
    private @Nullable ExecutorService workers;
    private boolean closed;

    Staging(CudaContext context) {
        this.context = context;
    }

    /** A free chunk without waiting, or null if all {@link #MAX_CHUNKS} are in flight. The context is bound. */
    private synchronized @Nullable Chunk tryTake() {
        reclaim();
        Chunk c = free.pollFirst();
        if (c == null && all.size() < MAX_CHUNKS && !closed) {
            c = new Chunk(Cu.memHostAlloc(CHUNK, 1), Cu.eventCreate(2)); // PORTABLE; DISABLE_TIMING
            all.add(c);
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
                context.awaitEvent(waitFor.event);
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000); // held by downloads still copying to the host
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
        free.addFirst(c);
    }

    private void reclaim() {
        Chunk c;
        while ((c = busy.peekFirst()) != null) {
            int r = Cu.eventQuery(c.event);
            if (r == Cu.ERROR_NOT_READY) {
                return;
            }
            busy.pollFirst();
            free.addFirst(c);
        }
    }

    /** Runs tasks on staging threads, with the context bound. */
    java.util.concurrent.Executor executor() {
        ExecutorService w;
        synchronized (this) {
            if (workers == null) {
                workers = Executors.newCachedThreadPool(r -> Thread.ofPlatform().daemon()
                        .name("sluice-cuda-staging-" + context.cu.ordinal + "-" + threadIds.incrementAndGet()).unstarted(r));
            }
            w = workers;
        }
        return task -> w.execute(() -> {
            try {
                context.cu.bind();
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
            for (Chunk c : all) {
                Cu.eventDestroy(c.event);
                Cu.memFreeHost(c.host);
            }
            all.clear();
            free.clear();
            busy.clear();
        }
    }
}
