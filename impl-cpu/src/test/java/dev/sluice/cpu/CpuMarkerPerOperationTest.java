package dev.sluice.cpu;

import dev.sluice.Api;
import dev.sluice.SluiceProperties;
import dev.sluice.conformance.ConformanceSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance suite on the CPU backend with a completion marker per operation ({@code sluice.markers.batch=1},
 * the policy of {@code ContextOptions.withMarkerBatch(1)}), where {@link CpuConformanceTest} runs it with the default
 * marker groups: every promise the suite checks must hold under both policies.
 */
class CpuMarkerPerOperationTest extends ConformanceSuite {

    @BeforeAll
    static void markerPerOperation() {
        System.setProperty(SluiceProperties.MARKER_BATCH, "1"); // read by ContextOptions.defaults()
    }

    @AfterAll
    static void defaultPolicyAgain() {
        System.clearProperty(SluiceProperties.MARKER_BATCH);
    }

    @Override
    public Api api() {
        return Api.CPU;
    }
}
