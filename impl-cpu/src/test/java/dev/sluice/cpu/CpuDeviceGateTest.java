package dev.sluice.cpu;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DeviceContext;
import dev.sluice.HostWaits;
import dev.sluice.conformance.AbstractAutoOrderingTest;
import dev.sluice.conformance.AbstractHostFunctionTest;
import dev.sluice.conformance.AbstractOrderingTest;
import dev.sluice.conformance.AbstractWaitTest;
import dev.sluice.conformance.ConformanceTarget;
import org.junit.jupiter.api.Nested;

/**
 * The waits of the conformance suite with {@link HostWaits#GATE_ON_DEVICE}: the CPU backend's own gates, which the
 * default ({@link HostWaits#HOLD_ON_HOST}, in {@link CpuConformanceTest}) bypasses.
 */
class CpuDeviceGateTest implements ConformanceTarget {

    @Override
    public Api api() {
        return Api.CPU;
    }

    @Override
    public DeviceContext open(int deviceId, ContextOptions options) {
        return DeviceContext.open(api(), deviceId, options.withHostWaits(HostWaits.GATE_ON_DEVICE));
    }

    @Nested
    class Waits extends AbstractWaitTest {
        @Override
        protected ConformanceTarget target() {
            return CpuDeviceGateTest.this;
        }
    }

    @Nested
    class HostFunctions extends AbstractHostFunctionTest {
        @Override
        protected ConformanceTarget target() {
            return CpuDeviceGateTest.this;
        }
    }

    @Nested
    class Ordering extends AbstractOrderingTest {
        @Override
        protected ConformanceTarget target() {
            return CpuDeviceGateTest.this;
        }
    }

    @Nested
    class AutoOrdering extends AbstractAutoOrderingTest {
        @Override
        protected ConformanceTarget target() {
            return CpuDeviceGateTest.this;
        }
    }
}
