package dev.sluice.benchmarks;

import dev.sluice.Api;
import dev.sluice.conformance.AbstractTracingTest;
import dev.sluice.conformance.ConformanceTarget;

/** The tracing promises of the conformance suite, on the CPU simulator. */
class CpuTracingTest extends AbstractTracingTest {

    @Override
    protected ConformanceTarget target() {
        return () -> Api.CPU;
    }
}
