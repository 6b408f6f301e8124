package dev.sluice.conformance;

import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestClassOrder;

/**
 * The whole conformance suite for one backend. A backend module runs all of it with one class:
 *
 * <pre>{@code
 * class CpuConformanceTest extends ConformanceSuite {
 *     @Override public Api api() { return Api.CPU; }
 * }
 * }</pre>
 *
 * A backend that is not built in also returns its name from {@link #backendName()}, and from {@link #api()} the
 * built-in backend whose capabilities it shares.
 *
 * Each area of the API is a {@link Nested} class here, which JUnit discovers for every subclass; the areas are
 * also public abstract classes ({@code AbstractOrderingTest}...) that a backend may subclass one by one. Tests
 * that need what a backend lacks skip with a reason naming the attribute they checked; on the CPU backend
 * nothing skips.
 *
 * <p>The areas run in the order below, {@link Faults} last: a device fault on a GPU may leave more broken than
 * the one context it happened in, and must not take the other areas down with it.
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
public abstract class ConformanceSuite implements ConformanceTarget {

    @Nested
    @Order(1)
    public class Ordering extends AbstractOrderingTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(2)
    public class Waits extends AbstractWaitTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(3)
    public class Events extends AbstractEventTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(4)
    public class Futures extends AbstractFutureTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(5)
    public class Copies extends AbstractCopyTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(6)
    public class Memsets extends AbstractMemsetTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(7)
    public class MapToHost extends AbstractMapToHostTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(8)
    public class Launches extends AbstractLaunchTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(9)
    public class SyncFacade extends AbstractSyncFacadeTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(10)
    public class Concurrency extends AbstractConcurrencyTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(18)
    public class CloseRaces extends AbstractCloseRaceTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(19)
    public class BlockingCalls extends AbstractBlockingCallTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(Integer.MAX_VALUE)
    public class Faults extends AbstractFaultTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(11)
    public class HostFunctions extends AbstractHostFunctionTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(12)
    public class Graphs extends AbstractGraphTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(12)
    public class RepeatedWorks extends AbstractRepeatedWorkTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(13)
    public class Memory extends AbstractMemoryTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(14)
    public class DeviceInfo extends AbstractDeviceInfoTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(15)
    public class BadInput extends AbstractBadInputTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(16)
    public class Tracing extends AbstractTracingTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(16)
    public class Observation extends AbstractObservationTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(16)
    public class Cancellation extends AbstractCancellationTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(17)
    public class Peers extends AbstractPeerTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(18)
    public class ValueTypes extends AbstractValueTypeTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(19)
    public class LargeGrids extends AbstractLargeGridTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(20)
    public class ClosedHostMemory extends AbstractClosedHostMemoryTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(21)
    public class GeneratedKernels extends AbstractGeneratedKernelTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(22)
    public class AutoOrdering extends AbstractAutoOrderingTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(23)
    public class SharedPinnedMemory extends AbstractSharedPinnedMemoryTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(24)
    public class FusedKernels extends AbstractFusedKernelTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(25)
    public class RepeatedWorkFusion extends AbstractRepeatedWorkFusionTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(26)
    public class RepeatedWorkMisuse extends AbstractRepeatedWorkMisuseTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(27)
    public class RepeatedWorkMemory extends AbstractRepeatedWorkMemoryTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(28)
    public class ChangingArguments extends AbstractChangingArgumentTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }

    @Nested
    @Order(29)
    public class OperationWays extends AbstractOperationWaysTest {
        @Override
        protected ConformanceTarget target() {
            return ConformanceSuite.this;
        }
    }
}
