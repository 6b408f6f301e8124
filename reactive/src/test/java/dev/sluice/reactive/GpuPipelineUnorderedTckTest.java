package dev.sluice.reactive;

/** The Reactive Streams TCK against {@link GpuPipeline#processUnordered} (see {@link GpuPipelineTck}). */
public class GpuPipelineUnorderedTckTest extends GpuPipelineTck {

    /** TestNG makes the instance. */
    public GpuPipelineUnorderedTckTest() {
        super(false, null);
    }
}
