package dev.sluice.reactive;

import dev.sluice.HostBuffer;
import dev.sluice.SluiceProperties;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ForkJoinPool;

/**
 * Where a pipeline's host copies to and from pinned staging run: those of at least
 * {@code sluice.pipeline.parallelCopyBytes} bytes (default 1 MiB) on the common fork-join pool, several at once,
 * the others inline on the drain loop; and the prefixes of staging buffers that a chunk shorter than a full one uses.
 */
final class HostCopies {

    /** Chunks of at least this many bytes are copied to and from staging off the drain loop ({@link #run}). */
    private final long parallelCopyBytes;

    private HostCopies(long parallelCopyBytes) {
        this.parallelCopyBytes = parallelCopyBytes;
    }

    /** The threshold of {@link SluiceProperties#PIPELINE_PARALLEL_COPY_BYTES} as set now. */
    static HostCopies fromProperties() {
        return new HostCopies(Long.getLong(SluiceProperties.PIPELINE_PARALLEL_COPY_BYTES, 1L << 20));
    }

    /** Whether a host copy of {@code bytes} to or from staging runs off the drain loop, in parallel with others. */
    boolean inParallel(long bytes) {
        return bytes >= parallelCopyBytes;
    }

    /**
     * Runs a large host copy (a chunk into staging, a result out of it) on the common fork-join pool: one drain loop
     * copying every chunk would cap the pipeline at one core's memcpy, whatever the lanes and devices. Not on the host
     * scheduler: a copy must run whatever that scheduler does (a dropped copy would hold its lane's stream for ever).
     */
    static void run(Runnable copy) {
        ForkJoinPool.commonPool().execute(copy);
    }

    /** The first {@code bytes} of {@code whole} (itself when that is all of it: no slice object). */
    static MemorySegment prefix(MemorySegment whole, long bytes) {
        return bytes == whole.byteSize() ? whole : whole.asSlice(0, bytes);
    }

    /** The first {@code count} elements of {@code whole} (itself when that is all of it). */
    static HostBuffer prefix(HostBuffer whole, long count) {
        return count == whole.count() ? whole : whole.slice(0, count);
    }
}
