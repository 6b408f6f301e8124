package dev.sluice.arrow;

/** The Reactive Streams TCK against {@link ArrowPipeline#processUnordered} (see {@link ArrowPipelineTck}). */
public class ArrowPipelineUnorderedTckTest extends ArrowPipelineTck {

    /** TestNG makes the instance. */
    public ArrowPipelineUnorderedTckTest() {
        super(false);
    }
}
