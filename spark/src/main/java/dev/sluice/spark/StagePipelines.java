package dev.sluice.spark;

import dev.sluice.arrow.ArrowPipeline;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * <p><b>Bounds.</b> Only the {@link #stagesKept} stages that took a pipeline last keep idle ones (the last stage alone
 * by default, {@value SluiceSparkPlugin#STAGES_KEPT}): the first task of a stage beyond them on the device closes the
 * idle pipelines of the stage whose tasks used the device least recently (their lanes are released once their device work has
 * ended). So the memory kept idle is at most what those stages' tasks held at once while they ran, and only until
 * other stages run on the device or the device closes. A task that failed, was killed or stopped reading its results
 * early closes its pipeline instead of giving it back: its lanes may still have device work of that task.
 *
 * <p>Thread-safe: tasks take and give from their own threads.
 */
final class StagePipelines {

    private static final System.Logger LOG = System.getLogger(StagePipelines.class.getName());

    private final Object lock = new Object();
    /**
     * The stages whose idle pipelines are kept ({@link StageSpec#id}), in access order (the one whose tasks took or
     * gave back a pipeline least recently first), each with its idle pipelines, the last given back first. Guarded by
     * lock.
     */
    private final LinkedHashMap<String, ArrayDeque<ArrowPipeline>> idle = new LinkedHashMap<>(4, 0.75f, true);
    /** How many stages keep idle pipelines; 0: none, every pipeline given back is closed. Guarded by lock. */
    private int stagesKept = 1;
    /** Pipelines closed by this pool whose lanes may not be released yet. Guarded by lock. */
    private final List<ArrowPipeline> closing = new ArrayList<>();
    private boolean closed;

    /**
     * Sets how many stages keep idle pipelines (the plugin's {@value SluiceSparkPlugin#STAGES_KEPT}, 1 where it does not
     * run); those of stages beyond the new count, the least recently used first, are closed.
     */
    void stagesKept(int stages) {
        List<ArrowPipeline> stale;
        synchronized (lock) {
            stagesKept = stages;
            stale = evictLocked();
        }
        stale.forEach(this::closeLater);
    }

    /** How many stages keep idle pipelines now. */
    int stagesKept() {
        synchronized (lock) {
            return stagesKept;
        }
    }

    /** An idle pipeline of {@code stageId}, or a new one of {@code build}; see the class's bounds for what is closed. */
    ArrowPipeline take(String stageId, Supplier<ArrowPipeline> build) {
        List<ArrowPipeline> stale = List.of();
        synchronized (lock) {
            @Nullable ArrayDeque<ArrowPipeline> kept = idle.get(stageId); // used last now
            if (kept != null) {
                ArrowPipeline p = kept.pollFirst();
                if (p != null) {
                    return p;
                }
            } else if (stagesKept > 0) {
                idle.put(stageId, new ArrayDeque<>());
                stale = evictLocked();
            }
        }
        stale.forEach(this::closeLater);
        return build.get();
    }

    /** The idle pipelines of the stages beyond {@link #stagesKept}, least recently used first, out of the pool. */
    private List<ArrowPipeline> evictLocked() {
        List<ArrowPipeline> stale = new ArrayList<>();
        var stages = idle.entrySet().iterator();
        for (int extra = idle.size() - stagesKept; extra > 0; extra--) {
            stale.addAll(stages.next().getValue());
            stages.remove();
        }
        return stale;
    }

    /** Keeps {@code pipeline}, whose task ended cleanly, for the next task of {@code stageId}, or closes it. */
    void give(String stageId, ArrowPipeline pipeline) {
        synchronized (lock) {
            @Nullable ArrayDeque<ArrowPipeline> kept = closed ? null : idle.get(stageId);
            if (kept != null && !pipeline.isClosed()) {
                kept.addFirst(pipeline);
                return;
            }
        }
        closeLater(pipeline);
    }

    /** Idle pipelines kept now, of every stage (for tests). */
    int idleCount() {
        synchronized (lock) {
            return idle.values().stream().mapToInt(ArrayDeque::size).sum();
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
            toClose = new ArrayList<>();
            for (ArrayDeque<ArrowPipeline> kept : idle.values()) { // the stages stay: their next pipelines are kept
                toClose.addAll(kept);
                kept.clear();
            }
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
