package dev.sluice.spark;

import dev.sluice.arrow.ArrowPipeline;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ArrowPipeline}s of one executor device kept between the tasks of one GPU stage: a task takes an idle
 * pipeline of its stage, with its lanes (streams, device and pinned buffers), their built graphs and the stage's loaded
 * kernels, or builds one; a task that ended cleanly gives it back for the stage's next task on the device.
 *
 * <p>Why: a pipeline per task opened its lanes, loaded its kernels and built each lane's graph again in every task, on
 * the device's completion thread, which every task of the executor enqueues through. SparkBench's compute-bound stage
 * (2,048 launches a batch, 16 tasks of 4 batches) built 25 graphs in each run of 64 batches.
 *
 * <p><b>Bounds.</b> Only the stage that took a pipeline last keeps idle ones: the first task of another stage on the
 * device closes them (their lanes are released once their device work has ended). So the memory kept idle is at most
 * what the stage's tasks held at once while they ran, and only until another stage runs on the device or the device
 * closes. A task that failed, was killed or stopped reading its results early closes its pipeline instead of giving it
 * back: its lanes may still have device work of that task.
 *
 * <p>Thread-safe: tasks take and give from their own threads.
 */
final class StagePipelines {

    private static final System.Logger LOG = System.getLogger(StagePipelines.class.getName());

    private final Object lock = new Object();
    /** The stage whose idle pipelines are kept ({@link StageSpec#id}); null before the first. Guarded by lock. */
    private @Nullable String stage;
    /** Idle pipelines of that stage, the last given back first. Guarded by lock. */
    private final ArrayDeque<ArrowPipeline> idle = new ArrayDeque<>();
    /** Pipelines closed by this pool whose lanes may not be released yet. Guarded by lock. */
    private final List<ArrowPipeline> closing = new ArrayList<>();
    private boolean closed;

    /** An idle pipeline of {@code stageId}, or a new one of {@code build}; idle pipelines of another stage are closed. */
    ArrowPipeline take(String stageId, Supplier<ArrowPipeline> build) {
        List<ArrowPipeline> stale = List.of();
        synchronized (lock) {
            if (!stageId.equals(stage)) {
                stale = new ArrayList<>(idle);
                idle.clear();
                stage = stageId;
            } else {
                ArrowPipeline p = idle.pollFirst();
                if (p != null) {
                    return p;
                }
            }
        }
        stale.forEach(this::closeLater);
        return build.get();
    }

    /** Keeps {@code pipeline}, whose task ended cleanly, for the next task of {@code stageId}, or closes it. */
    void give(String stageId, ArrowPipeline pipeline) {
        synchronized (lock) {
            if (!closed && stageId.equals(stage) && !pipeline.isClosed()) {
                idle.addFirst(pipeline);
                return;
            }
        }
        closeLater(pipeline);
    }

    /** Idle pipelines kept now (for tests). */
    int idleCount() {
        synchronized (lock) {
            return idle.size();
        }
    }

    /** Closes {@code pipeline}; its lanes are released in the background, and {@link #close} waits for that. */
    private void closeLater(ArrowPipeline pipeline) {
        pipeline.close();
        synchronized (lock) {
            closing.removeIf(p -> p.released().isDone());
            if (!pipeline.released().isDone()) {
                closing.add(pipeline);
            }
        }
    }

    /**
     * Closes every idle pipeline and waits, at most {@code seconds} in all, until the lanes of every pipeline this pool
     * closed are released (before the device's context closes). Idempotent; pipelines given back afterwards are closed.
     */
    void close(long seconds) {
        synchronized (lock) {
            closed = true;
        }
        releaseIdle(seconds);
    }

    /**
     * Closes every idle pipeline and waits, at most {@code seconds} in all, until the lanes of every pipeline this pool
     * closed are released; the pool goes on keeping pipelines given back later (for tests: nothing of a task left).
     */
    void releaseIdle(long seconds) {
        List<ArrowPipeline> toClose;
        synchronized (lock) {
            toClose = new ArrayList<>(idle);
            idle.clear();
        }
        toClose.forEach(this::closeLater);
        List<CompletableFuture<Void>> releases;
        synchronized (lock) {
            releases = closing.stream().map(ArrowPipeline::released).toList();
            closing.clear();
        }
        awaitReleased(CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)), seconds,
                "lanes kept between tasks");
    }

    /**
     * Waits at most {@code seconds} for {@code released} (a pipeline's {@link ArrowPipeline#released()}, or several
     * together), and logs a warning naming {@code lanes} if they are not released by then.
     */
    static void awaitReleased(CompletableFuture<Void> released, long seconds, String lanes) {
        try {
            released.get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, "sluice-spark: " + lanes + " were not released within " + seconds
                    + " s; their device work is still running");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            LOG.log(System.Logger.Level.DEBUG, "sluice-spark: releasing " + lanes + " failed", e.getCause());
        }
    }
}
