package dev.sluice.echo;

import dev.sluice.Api;
import dev.sluice.conformance.ConformanceSuite;

/**
 * The whole conformance suite on {@link EchoBackend}, the way a backend from another jar proves itself: opened by its
 * name, with the CPU simulator's capabilities since it delegates to it.
 */
class EchoConformanceTest extends ConformanceSuite {

    @Override
    public String backendName() {
        return "echo";
    }

    @Override
    public Api api() {
        return Api.CPU;
    }
}
