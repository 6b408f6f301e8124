package dev.sluice.cuda;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.conformance.AbstractFaultTest;
import dev.sluice.conformance.ConformanceSuite;
import dev.sluice.conformance.DeviceMemoryCheck;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

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

    /**
     * And in every context of every other device too: a raw driver-API context of device 1 fails after a fault on
     * device 0 (CudaFaultIsolationTest, on two H200s).
     */
    @Override
    public boolean faultPoisonsProcess() {
        return true;
    }

    /** No device memory leaked across the whole suite run. */
    @RegisterExtension
    static final DeviceMemoryCheck MEMORY = new DeviceMemoryCheck(Api.CUDA, FaultTests.PROPERTY);

    /** Runs before each nested test's own set-up (which opens a context), so a missing device skips instead of failing. */
    @BeforeEach
    void requireCudaDevice(TestInfo info) {
        Assumptions.assumeTrue(DeviceContext.deviceCount(Api.CUDA) > 0,
                () -> "no CUDA device here; " + DeviceContext.detect().strip().replace('\n', ' '));
        boolean fault = info.getTestClass().map(AbstractFaultTest.class::isAssignableFrom).orElse(false);
        FaultTests.gate(fault, info.getTestMethod().map(java.lang.reflect.Method::getName).orElse(""));
    }
}
