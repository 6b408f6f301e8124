package dev.sluice.reactive;

import reactor.core.scheduler.Schedulers;

/**
 * The Reactive Streams TCK against {@link GpuPipeline#process} of a pipeline built with
 * {@link GpuPipeline.Builder#hostScheduler}: the drain loop, and so every signal downstream, on a worker of
 * {@code Schedulers.parallel()} (see {@link GpuPipelineTck}).
 */
public class GpuPipelineHostSchedulerTckTest extends GpuPipelineTck {

    /** TestNG makes the instance. */
    public GpuPipelineHostSchedulerTckTest() {
        super(true, Schedulers.parallel());
    }
}
