package dev.sluice.arrow;

/** The Reactive Streams TCK against {@link ArrowPipeline#process} (see {@link ArrowPipelineTck}). */
public class ArrowPipelineOrderedTckTest extends ArrowPipelineTck {

    /** TestNG makes the instance. */
    public ArrowPipelineOrderedTckTest() {
        super(true);
    }
}
