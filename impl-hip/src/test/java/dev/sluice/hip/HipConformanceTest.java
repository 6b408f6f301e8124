package dev.sluice.hip;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.conformance.ConformanceSuite;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * The whole conformance suite on HIP device 0. Where no HIP device is present (CI, or any machine without an
 * AMD GPU) every test is skipped with the probe's reason: the library found, and what hipGetDeviceCount
 * answered. On the GPU machine it runs against the HIP-over-CUDA test library (check 2, docs/hip.md).
 *
 * <p>Tests that need what HIP lacks by design are skipped with the reason, below.
 */
class HipConformanceTest extends ConformanceSuite {

    /** Test method name → why HIP cannot pass it. */
    private static final Map<String, String> WHAT_HIP_LACKS = Map.of(
            "anotherContextStaysUsable",
            "HIP has one context per device and process (no non-primary contexts): a fault faults every context of the"
                    + " device, so no 'bystander' context on it can stay usable");

    @Override
    public Api api() {
        return Api.HIP;
    }

    /** Runs before each nested test's own set-up (which opens a context), so a missing device skips instead of failing. */
    @BeforeEach
    void requireHipDevice(TestInfo info) {
        Assumptions.assumeTrue(DeviceContext.deviceCount(Api.HIP) > 0,
                () -> "no HIP device here; " + DeviceContext.detect().strip().replace('\n', ' '));
        info.getTestMethod().ifPresent(m -> {
            String why = WHAT_HIP_LACKS.get(m.getName());
            Assumptions.assumeTrue(why == null, () -> "not applicable to hip: " + why);
        });
    }
}
