package dev.sluice.conformance;

import org.junit.jupiter.api.Nested;

/**
 * The whole conformance suite for one backend. A backend module runs all of it with one class:
 *
 * <pre>{@code
 * class CpuConformanceTest extends ConformanceSuite {
 *     @Override public Api api() { return Api.CPU; }
 * }
 * }</pre>
 *
 * Each area of the API is a {@link Nested} class here, which JUnit discovers for every subclass; the areas are
 * also public abstract classes ({@code AbstractOrderingTest}...) that a backend may subclass one by one. Tests
 * that need what a backend lacks skip with a reason naming the attribute they checked; on the CPU backend
 * nothing may skip except GPU-only features (run-time compilation of CUDA C++).
 */
public abstract class ConformanceSuite implements ConformanceTarget {

    @Nested
    public class Ordering extends AbstractOrderingTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Waits extends AbstractWaitTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Events extends AbstractEventTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Futures extends AbstractFutureTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Copies extends AbstractCopyTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Memsets extends AbstractMemsetTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class MapToHost extends AbstractMapToHostTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Launches extends AbstractLaunchTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class SyncFacade extends AbstractSyncFacadeTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Concurrency extends AbstractConcurrencyTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Faults extends AbstractFaultTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class HostFunctions extends AbstractHostFunctionTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Graphs extends AbstractGraphTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class Memory extends AbstractMemoryTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class DeviceInfo extends AbstractDeviceInfoTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    public class BadInput extends AbstractBadInputTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }
}
