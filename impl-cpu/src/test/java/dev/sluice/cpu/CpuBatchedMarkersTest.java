package dev.sluice.cpu;

import dev.sluice.Api;
import dev.sluice.conformance.ConformanceSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance suite on the CPU backend with completion markers in batches of 8
 * ({@code sluice.markers.batch}, an experiment off by default; {@code DeviceStream}): every promise the suite checks
 * must hold when operations share markers, the last ones of a burst sealed by the completion thread.
 */
class CpuBatchedMarkersTest extends ConformanceSuite {

    @BeforeAll
    static void batchMarkers() {
        System.setProperty("sluice.markers.batch", "8"); // read when a stream is created
    }

    @AfterAll
    static void markerPerOperationAgain() {
        System.clearProperty("sluice.markers.batch");
    }

    @Override
    public Api api() {
        return Api.CPU;
    }
}
