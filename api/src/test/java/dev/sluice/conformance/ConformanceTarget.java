package dev.sluice.conformance;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DeviceContext;

/**
 * What a backend tells the conformance suite: its name, which built-in {@link Api} its expectations follow, and (rarely
 * needed) how to open one of its devices. Implemented by {@link ConformanceSuite} subclasses; a single abstract test
 * class can also be run alone with {@code protected ConformanceTarget target() { return () -> Api.CPU; }}.
 */
@FunctionalInterface
public interface ConformanceTarget {

    /**
     * The built-in backend under test, or, for a backend that is not built in, the built-in one whose capabilities it
     * shares: the suite's few capability checks (what the CPU simulator does not model, what HIP refuses) follow it.
     */
    Api api();

    /**
     * The name of the backend under test, as {@link DeviceContext#open(String, int)} takes it; {@code api().id()} by
     * default. A backend that is not built in returns its {@link dev.sluice.spi.Backend#name()}.
     */
    default String backendName() {
        return api().id();
    }

    /**
     * Opens device {@code deviceId} of the backend. Tests open a fresh context for every test, and tests
     * that fault a device open a context of their own with {@code options.primaryContext() == false}, so that
     * on CUDA the fault does not poison the device's primary context for the tests that follow.
     */
    default DeviceContext open(int deviceId, ContextOptions options) {
        return DeviceContext.open(backendName(), deviceId, options);
    }

    /**
     * Whether a device fault leaves every context of the faulted device unusable for the rest of the process (CUDA
     * keeps the sticky error for the whole device). Then the fault tests' bystander context is opened on a second
     * device, and is skipped, saying so, where there is none.
     */
    default boolean faultPoisonsDevice() {
        return false;
    }

    /**
     * Whether a device fault leaves every context of every device unusable for the rest of the process: the CUDA
     * driver keeps an illegal address's sticky error process-wide ("the process must be terminated and relaunched").
     * Then the fault tests' bystander on another device must fail cleanly (a sticky {@link dev.sluice.DeviceException}
     * at its next operation, no hang, a clean close) instead of staying usable.
     */
    default boolean faultPoisonsProcess() {
        return false;
    }

    /**
     * Whether the backend opens a context with {@link dev.sluice.ContextFlag}s of its own choosing; HIP sets such
     * flags once per process and device, and refuses them (saying so).
     */
    default boolean takesContextFlags() {
        return true;
    }
}
