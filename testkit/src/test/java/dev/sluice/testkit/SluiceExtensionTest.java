package dev.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedSuccessfully;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectedWarnings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;
import org.opentest4j.AssertionFailedError;

/**
 * The extension's promises, each checked by running a small test class through the JUnit Platform (EngineTestKit) and
 * reading its outcome: a test that closes what it opens passes, one that leaves a buffer, a host buffer or a stream
 * open fails naming it, one whose context faults fails with the fault, and a backend without a device skips.
 * The classes run only here ({@link OnlyThroughTheKit}).
 */
class SluiceExtensionTest {

    /** The configuration parameter that enables the test classes below: set by {@link #run} alone. */
    static final String THROUGH_THE_KIT = "dev.sluice.testkit.throughTheKit";

    private static Events run(Class<?> testClass) {
        return EngineTestKit.engine("junit-jupiter").configurationParameter(THROUGH_THE_KIT, "true")
                .selectors(selectClass(testClass)).execute().testEvents();
    }

    /**
     * Keeps the classes below, some of which fail on purpose, to runs through {@link #run}: a selection that names them
     * directly ({@code -Dtest=SluiceExtensionTest*}) would otherwise run them as tests of their own.
     */
    static final class OnlyThroughTheKit implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(THROUGH_THE_KIT).isPresent()
                    ? ConditionEvaluationResult.enabled("run by SluiceExtensionTest")
                    : ConditionEvaluationResult.disabled("runs only through SluiceExtensionTest's EngineTestKit");
        }
    }

    // ---------------------------------------------------------------- the test classes run through the kit

    /** Closes everything it opens; the parameter, the field and the @BeforeEach parameter are one context. */
    @SluiceTest
    @ExtendWith(OnlyThroughTheKit.class)
    static class ClosesWhatItOpens {
        static final List<DeviceContext> SEEN = new ArrayList<>();

        @TestContext
        DeviceContext field;

        private DeviceContext fromBeforeEach;

        @BeforeEach
        void before(DeviceContext ctx) {
            fromBeforeEach = ctx;
        }

        @Test
        void copiesAndCloses(DeviceContext ctx) {
            assertSame(ctx, field);
            assertSame(ctx, fromBeforeEach);
            SEEN.add(ctx);
            try (DeviceStream s = ctx.createStream(); DeviceBuffer b = ctx.allocate(DType.F32, 16);
                 HostBuffer h = ctx.allocateHost(DType.F32, 16)) {
                s.enqueueCopy(h, b);
                s.enqueueCopy(b, h).join();
            }
        }

        @Test
        void aSecondTestGetsAContextOfItsOwn(DeviceContext ctx) {
            SEEN.add(ctx);
        }
    }

    @SluiceTest
    @ExtendWith(OnlyThroughTheKit.class)
    static class LeavesABufferOpen {
        @Test
        void allocatesAndForgets(DeviceContext ctx) {
            DeviceBuffer b = ctx.allocate(DType.F32, 1024);
            ctx.stream().enqueueFill(b, 1f).join();
        }
    }

    @SluiceTest
    @ExtendWith(OnlyThroughTheKit.class)
    static class LeavesAHostBufferOpen {
        @TestContext
        DeviceContext ctx;

        @Test
        void allocatesAndForgets() {
            ctx.allocateHost(DType.I32, 8);
        }
    }

    @SluiceTest
    @ExtendWith(OnlyThroughTheKit.class)
    static class LeavesAStreamOpen {
        static DeviceStream stream;

        @Test
        void createsAndForgets(DeviceContext ctx) {
            stream = ctx.createStream();
            stream.enqueueMarker().join();
        }
    }

    /** Leaves a buffer open for its @AfterEach, which closes it: the check comes after the test's own clean-up. */
    @SluiceTest
    @ExtendWith(OnlyThroughTheKit.class)
    static class ClosesInAfterEach {
        DeviceBuffer buffer;

        @Test
        void allocates(DeviceContext ctx) {
            buffer = ctx.allocate(DType.F32, 4);
        }

        @AfterEach
        void closeIt() {
            buffer.close();
        }
    }

    static final Kernel THROWS = Kernel.named("throws_in_kernel").param(KernelParam.scalar("code", DType.I32))
            .java(t -> {
                throw new IllegalStateException("sluice-test: deliberate kernel fault, code " + t.intArg(0));
            })
            .build();

    @SluiceTest
    @ExtendWith(OnlyThroughTheKit.class)
    static class FaultsItsContext {
        @Test
        void launchesAKernelThatFaults(DeviceContext ctx) {
            try {
                ctx.stream().enqueueLaunch(ctx.compile(THROWS), LaunchConfig.of(1, 1), 7).join();
            } catch (CompletionException | dev.sluice.DeviceException expected) {
                // the test itself does not look at the fault: the extension must
            }
        }
    }

    @SluiceTest
    @ExtendWith(OnlyThroughTheKit.class)
    static class NeedsADevice {
        @Test
        void runs(DeviceContext ctx) {
            assertNotNull(ctx);
        }
    }

    // ---------------------------------------------------------------- the promises

    @Test
    void aTestThatClosesWhatItOpensPassesAndEachTestHasItsOwnContext() {
        ClosesWhatItOpens.SEEN.clear();
        run(ClosesWhatItOpens.class).assertStatistics(s -> s.started(2).succeeded(2).failed(0));
        assertEquals(2, ClosesWhatItOpens.SEEN.size());
        assertFalse(ClosesWhatItOpens.SEEN.get(0) == ClosesWhatItOpens.SEEN.get(1), "a context per test");
        assertTrue(ClosesWhatItOpens.SEEN.stream().allMatch(DeviceContext::isClosed), "closed after each test");
        assertEquals(SluiceExtension.DEFAULT_API, ClosesWhatItOpens.SEEN.get(0).backendName(), "the CPU simulator by default");
    }

    @Test
    void aTestThatLeavesADeviceBufferOpenFailsNamingIt() {
        run(LeavesABufferOpen.class).assertThatEvents().haveExactly(1, event(test("allocatesAndForgets"),
                finishedWithFailure(instanceOf(AssertionFailedError.class),
                        message(m -> m.contains("left 1 resource(s)") && m.contains("device memory of 4096 bytes")))));
    }

    @Test
    void aTestThatLeavesAHostBufferOpenFailsNamingIt() {
        run(LeavesAHostBufferOpen.class).assertThatEvents().haveExactly(1, event(test("allocatesAndForgets"),
                finishedWithFailure(message(m -> m.contains("host memory of 32 bytes")))));
    }

    @Test
    void aTestThatLeavesAStreamOpenFailsNamingItAndTheExtensionClosesIt() {
        run(LeavesAStreamOpen.class).assertThatEvents().haveExactly(1, event(test("createsAndForgets"),
                finishedWithFailure(message(m -> m.contains(LeavesAStreamOpen.stream.toString())))));
        assertTrue(LeavesAStreamOpen.stream.isClosed(), "released with the context");
    }

    @Test
    void whatTheTestsAfterEachClosesIsNotALeak() {
        run(ClosesInAfterEach.class).assertStatistics(s -> s.succeeded(1).failed(0));
    }

    @Test
    void aTestWhoseContextFaultsFailsWithTheFault() {
        ExpectedWarnings.expect(List.of(ExpectedWarnings.warning("dev.sluice.DeviceContext", " faulted: ")),
                () -> run(FaultsItsContext.class).assertThatEvents().haveExactly(1, event(test("launchesAKernelThatFaults"),
                        finishedWithFailure(message(m -> m.contains("faulted"))))));
    }

    @Test
    void aBackendWithoutADeviceSkipsTheTestWithItsReason() {
        Assumptions.assumeTrue(DeviceContext.deviceCount("hip") == 0, "this machine has a HIP device");
        String before = System.getProperty(SluiceExtension.API_PROPERTY);
        System.setProperty(SluiceExtension.API_PROPERTY, "hip");
        try {
            Events events = run(NeedsADevice.class);
            events.assertStatistics(s -> s.aborted(1).failed(0).succeeded(0));
            String reason = events.aborted().stream().findFirst().orElseThrow().getRequiredPayload(
                    org.junit.platform.engine.TestExecutionResult.class).getThrowable().orElseThrow().getMessage();
            assertTrue(reason.contains("hip"), reason);
        } finally {
            if (before == null) {
                System.clearProperty(SluiceExtension.API_PROPERTY);
            } else {
                System.setProperty(SluiceExtension.API_PROPERTY, before);
            }
        }
    }

    @Test
    void passesWhereNothingLeaks() {
        run(NeedsADevice.class).assertThatEvents().haveExactly(1, event(test("runs"), finishedSuccessfully()));
    }
}
