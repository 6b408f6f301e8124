package dev.sluice.reactive;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.Exceptions;

/**
 * Tells a pipeline's progress listener ({@link GpuPipeline#onProgress}) of each result emitted, with the chunks and
 * bytes done so far over every subscription.
 */
final class ProgressReporter {

    private static final System.Logger LOG = System.getLogger(GpuPipeline.class.getName());

    private final PipelineMetrics metrics;
    private final long outputElementBytes;
    /** Bytes of the results emitted. */
    private final LongAdder bytesDone = new LongAdder();
    private volatile @Nullable Consumer<? super PipelineProgress> listener;

    ProgressReporter(PipelineMetrics metrics, long outputElementBytes) {
        this.metrics = metrics;
        this.outputElementBytes = outputElementBytes;
    }

    void listen(@Nullable Consumer<? super PipelineProgress> listener) {
        this.listener = listener;
    }

    /** Counts a result of {@code elements} output elements as done and tells the listener, if any. */
    void progressed(long elements) {
        Consumer<? super PipelineProgress> l = listener;
        bytesDone.add(elements * outputElementBytes);
        if (l != null) {
            try {
                l.accept(new PipelineProgress(metrics.chunksEmitted(), bytesDone.sum()));
            } catch (Throwable e) {
                // Any exception, as GpuPipeline.onProgress promises: an Error (a failed assertion) thrown out of here
                // ended the subscription and lost the result it was reported for.
                Exceptions.throwIfJvmFatal(e);
                LOG.log(System.Logger.Level.WARNING, "progress listener " + l + " threw; ignored", e);
            }
        }
    }
}
