package dev.sluice.reactive;

import dev.sluice.HostBuffer;
import dev.sluice.SluiceProperties;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Where lanes' host copies to and from pinned staging run, and where a large result's object is made. A copy of at least {@code sluice.pipeline.parallelCopyBytes}
 * bytes (default 1 MiB) runs off the calling thread on a small pool of copy threads ({@link #THREADS}), split into up to
 * one piece per thread of at least {@link #PIECE_BYTES} each, so that one large element is copied by several cores at
 * once; smaller ones run inline, where a hand-off would cost more than the copy. One thread's memcpy would otherwise
 * bound a pipeline or a Flink subtask well below what the pinned link moves.
 *
 * <p>The copy threads are their own, not the common fork-join pool's (which user code may fill) nor a Reactor scheduler's
 * (a copy must run whatever that scheduler does: a dropped copy would hold its lane's stream for ever). Handing work to
 * them never blocks the caller, so Reactor's non-blocking threads may do it.
 *
 * <p>A sink's object for a large result ({@link ChunkSink#allocate}) is made on result threads of their own ({@link
 * #RESULT_THREADS}), beside the copy threads: zeroing a 4 MiB array takes a core about as long as copying it, and made
 * on the copy threads it waited behind the chunks' pieces and took a copy thread from them while it ran. A sink's own
 * code then never holds a copy thread either.
 */
final class HostCopies {

    /**
     * The least bytes one copy thread takes of a split copy: below it, the hand-off costs more than it saves. 1 MiB
     * unless {@link SluiceProperties.Measurement#PIPELINE_COPY_PIECE_BYTES} says otherwise.
     */
    static final long PIECE_BYTES = Math.max(64, Long.getLong(SluiceProperties.Measurement.PIPELINE_COPY_PIECE_BYTES,
            1L << 20));

    /**
     * Copy threads: half the cores, at least one, at most eight. One core's memcpy moves 10 to 20 GB/s
     * ({@code StagingCopyBench}), so a pinned link of 84 GB/s in and out needs several copying at once; more would
     * contend for memory bandwidth, and the other half of the cores is left to the task, drain and completion threads.
     * {@link SluiceProperties.Measurement#PIPELINE_COPY_THREADS} sets another count, held to 1 to 256 (a value out of
     * range must not leave this class unable to load, which would fail every pipeline).
     */
    static final int THREADS = Math.clamp(Integer.getInteger(SluiceProperties.Measurement.PIPELINE_COPY_THREADS,
            Math.clamp(Runtime.getRuntime().availableProcessors() / 2, 1, 8)), 1, 256);

    /** The copy threads, in FIFO mode: pieces run in the order handed in. */
    private static final ForkJoinPool POOL = pool(THREADS, "sluice-host-copy-");

    /**
     * Result threads: half the copy threads, at least one. A transfer-bound pipeline makes one result object per chunk
     * downloaded, so they zero at most half the bytes the copy threads copy (in and out).
     */
    static final int RESULT_THREADS = Math.max(1, THREADS / 2);

    /** The result threads, in FIFO mode: results are made in the order their chunks were enqueued. */
    private static final ForkJoinPool RESULTS = pool(RESULT_THREADS, "sluice-host-result-");

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** A fork-join pool of {@code threads} daemon workers (the pool's kind) named {@code prefix} and a number, FIFO. */
    private static ForkJoinPool pool(int threads, String prefix) {
        AtomicInteger ids = new AtomicInteger();
        return new ForkJoinPool(threads, pool -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setName(prefix + ids.incrementAndGet());
            return t;
        }, null, true);
    }

    /** Copies of at least this many bytes run off the calling thread ({@link #copy}, {@link #run}). */
    private final long parallelCopyBytes;

    private HostCopies(long parallelCopyBytes) {
        this.parallelCopyBytes = parallelCopyBytes;
    }

    /** The threshold of {@link SluiceProperties#PIPELINE_PARALLEL_COPY_BYTES} as set now. */
    static HostCopies fromProperties() {
        return new HostCopies(Long.getLong(SluiceProperties.PIPELINE_PARALLEL_COPY_BYTES, 1L << 20));
    }

    /** Whether a host copy of {@code bytes} to or from staging runs off the calling thread. */
    boolean inParallel(long bytes) {
        return bytes >= parallelCopyBytes;
    }

    /**
     * Copies all of {@code from} into the start of {@code to}: inline if small, else on the copy threads, in pieces.
     *
     * @return completes once every byte is copied, exceptionally with the first piece's failure (the other pieces
     *         still run); completed already for an inline copy, which throws instead of failing the future
     */
    CompletableFuture<Void> copy(MemorySegment from, MemorySegment to) {
        long bytes = from.byteSize();
        if (!inParallel(bytes)) {
            MemorySegment.copy(from, 0, to, 0, bytes);
            return DONE;
        }
        int pieces = Math.clamp(bytes / PIECE_BYTES, 1, THREADS);
        // Pieces of whole cache lines, so that no two threads write the same line.
        long piece = ((bytes + pieces - 1) / pieces + 63) & -64;
        Pieces done = new Pieces((int) ((bytes + piece - 1) / piece));
        for (long offset = 0; offset < bytes; offset += piece) {
            long at = offset;
            long length = Math.min(piece, bytes - offset);
            POOL.execute(() -> {
                try {
                    MemorySegment.copy(from, at, to, at, length);
                    done.finished(null);
                } catch (Throwable t) {
                    done.finished(t);
                }
            });
        }
        return done.future;
    }

    /** Runs short host work of a lane (a source copying a chunk into staging itself) on the copy threads. */
    static void run(Runnable work) {
        POOL.execute(work);
    }

    /** Runs the making of a large result's object ({@link ChunkSink#allocate}) on the result threads. */
    static void makeResult(Runnable work) {
        RESULTS.execute(work);
    }

    /** The copy threads, for work that must follow a copy without running on a completion thread. */
    static ForkJoinPool executor() {
        return POOL;
    }

    /** The first {@code bytes} of {@code whole} (itself when that is all of it: no slice object). */
    static MemorySegment prefix(MemorySegment whole, long bytes) {
        return bytes == whole.byteSize() ? whole : whole.asSlice(0, bytes);
    }

    /** The first {@code count} elements of {@code whole} (itself when that is all of it). */
    static HostBuffer prefix(HostBuffer whole, long count) {
        return count == whole.count() ? whole : whole.slice(0, count);
    }

    /** Counts the pieces of one copy down; completes its future when the last one ends. */
    private static final class Pieces {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        private final AtomicInteger left;
        private volatile @Nullable Throwable failure;

        Pieces(int pieces) {
            this.left = new AtomicInteger(pieces);
        }

        void finished(@Nullable Throwable t) {
            if (t != null && failure == null) {
                failure = t; // a benign race: any one piece's failure fails the copy
            }
            if (left.decrementAndGet() == 0) {
                Throwable f = failure;
                if (f == null) {
                    future.complete(null);
                } else {
                    future.completeExceptionally(f);
                }
            }
        }
    }
}
