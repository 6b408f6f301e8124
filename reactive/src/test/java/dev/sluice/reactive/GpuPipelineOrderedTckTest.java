package dev.sluice.reactive;

/** The Reactive Streams TCK against {@link GpuPipeline#process} (see {@link GpuPipelineTck}). */
public class GpuPipelineOrderedTckTest extends GpuPipelineTck {

    /** TestNG makes the instance. */
    public GpuPipelineOrderedTckTest() {
        super(true, null);
    }
}
