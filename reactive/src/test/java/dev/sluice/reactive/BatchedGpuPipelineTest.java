package dev.sluice.reactive;

import dev.sluice.ContextOptions;
import dev.sluice.DeviceContext;
import org.junit.jupiter.api.BeforeAll;

/**
 * Every pipeline test again on a context whose streams share completion markers in batches of 16
 * ({@link ContextOptions#withMarkerBatch}), BlockHound included: a batch's marker recorded by the completion thread
 * must not make an enqueue on a Reactor thread park for the stream's lock, and futures of a batch must still complete
 * in order and carry their values.
 */
class BatchedGpuPipelineTest extends GpuPipelineTest {

    @BeforeAll
    static void open() { // hides GpuPipelineTest.open: JUnit runs this one for this class
        ctx = DeviceContext.open(ContextOptions.defaults().withMarkerBatch(16));
        compileKernels();
    }
}
