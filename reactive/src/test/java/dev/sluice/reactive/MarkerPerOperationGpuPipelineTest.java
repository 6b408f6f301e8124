package dev.sluice.reactive;

import dev.sluice.ContextOptions;
import dev.sluice.DeviceContext;
import org.junit.jupiter.api.BeforeAll;

/**
 * Every pipeline test again on a context whose streams record a completion marker per operation
 * ({@link ContextOptions#withMarkerBatch} of 1), BlockHound included, where {@link GpuPipelineTest} runs them with the
 * default marker groups: futures must complete in order and carry their values under both policies.
 */
class MarkerPerOperationGpuPipelineTest extends GpuPipelineTest {

    @BeforeAll
    static void open() { // JUnit may run GpuPipelineTest.open before it: useContext closes that context
        useContext(DeviceContext.open(ContextOptions.defaults().withMarkerBatch(1)));
    }
}
