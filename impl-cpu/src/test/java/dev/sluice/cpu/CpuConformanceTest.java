package dev.sluice.cpu;

import dev.sluice.Api;
import dev.sluice.conformance.ConformanceSuite;

/** The whole conformance suite on the CPU backend (device 0), which must run all of it with nothing skipped. */
class CpuConformanceTest extends ConformanceSuite {

    @Override
    public Api api() {
        return Api.CPU;
    }
}
