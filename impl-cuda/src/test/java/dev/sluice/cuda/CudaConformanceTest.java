package dev.sluice.cuda;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.conformance.AbstractFaultTest;
import dev.sluice.conformance.ConformanceSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * The whole conformance suite on CUDA device 0. Where no CUDA device is present (CI), every test is skipped
 * with the probe's reason: what was tried, and why it failed. Device-fault tests run one per JVM (see
 * {@link FaultTests}).
 */
class CudaConformanceTest extends ConformanceSuite {

    @Override
    public Api api() {
        return Api.CUDA;
    }

    /** CUDA keeps a fault's sticky error in every context of the device, the primary one included (docs/gpu-runs.md). */
    @Override
    public boolean faultPoisonsDevice() {
        return true;
    }

    /** Free device memory before the first test, with the primary context retained; -1 where not measured. */
    private static long freeAtStart = -1;

    /** Not in the device-fault JVMs: their fault leaves the device unusable for the check after. */
    @BeforeAll
    static void noteFreeDeviceMemory() {
        if (DeviceContext.deviceCount(Api.CUDA) == 0 || System.getProperty(FaultTests.PROPERTY) != null) {
            return;
        }
        try (DeviceContext c = DeviceContext.open(Api.CUDA, 0)) {
            c.synchronize();
            freeAtStart = c.memoryInfo().free();
        }
    }

    /** Issue 3's "no leaked device memory across the whole conformance suite run", checked. */
    @AfterAll
    static void theSuiteLeftNoDeviceMemoryBehind() {
        if (freeAtStart < 0) {
            return;
        }
        try (DeviceContext c = DeviceContext.open(Api.CUDA, 0)) {
            c.synchronize(); // the memory pool gives freed memory back at a synchronize
            long lost = freeAtStart - c.memoryInfo().free();
            Assertions.assertTrue(lost < (64L << 20), "free device memory fell by " + (lost >> 20) + " MiB over the suite");
        }
    }

    /** Runs before each nested test's own set-up (which opens a context), so a missing device skips instead of failing. */
    @BeforeEach
    void requireCudaDevice(TestInfo info) {
        Assumptions.assumeTrue(DeviceContext.deviceCount(Api.CUDA) > 0,
                () -> "no CUDA device here; " + DeviceContext.detect().strip().replace('\n', ' '));
        boolean fault = info.getTestClass().map(AbstractFaultTest.class::isAssignableFrom).orElse(false);
        FaultTests.gate(fault, info.getTestMethod().map(java.lang.reflect.Method::getName).orElse(""));
    }
}
