package dev.sluice.hip;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.conformance.AbstractFaultTest;
import dev.sluice.conformance.ConformanceSuite;
import dev.sluice.conformance.DeviceMemoryCheck;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The whole conformance suite on HIP device 0. Where no HIP device is present (CI, or any machine without an
 * AMD GPU) every test is skipped with the probe's reason: the library found, and what hipGetDeviceCount
 * answered. On the GPU machine it runs against the HIP-over-CUDA test library (check 2, docs/hip.md).
 *
 * <p>Tests that need what HIP lacks by design are skipped with the reason, below. With a device, each test's
 * start and outcome is printed (without one, the reason of the skips once), and a test still running after 40 s prints every thread's stack, so that a run
 * cut short by its time limit still says where it stood.
 *
 * <p>Device-fault tests run one per JVM ({@code -D}{@value #FAULT_TEST}{@code =NAME},
 * {@code impl-hip/gpu-fault-tests.sh}): on AMD a GPU memory fault ends the process by default, and through the
 * HIP-over-CUDA test library the driver keeps the fault for the rest of the process, so one fault test would
 * fail every test after it. Without the property they skip; with it, only that test runs.
 */
@ExtendWith(HipConformanceTest.Outcomes.class)
class HipConformanceTest extends ConformanceSuite {

    static final String FAULT_TEST = "sluice.hip.faultTest";

    /** Test method name → why HIP cannot pass it. */
    private static final Map<String, String> WHAT_HIP_LACKS = Map.of(
            "anotherContextStaysUsable",
            "HIP has one context per device and process (no non-primary contexts): a fault faults every context of the"
                    + " device, so no 'bystander' context on it can stay usable");

    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "hip-test-watchdog");
        t.setDaemon(true);
        return t;
    });

    private ScheduledFuture<?> watchdog;
    private long started;

    @Override
    public Api api() {
        return Api.HIP;
    }

    /** HIP sets scheduling and other device flags once per process and device (hipSetDeviceFlags), not per context. */
    @Override
    public boolean takesContextFlags() {
        return false;
    }

    /** No device memory leaked across the whole suite run. */
    @RegisterExtension
    static final DeviceMemoryCheck MEMORY = new DeviceMemoryCheck(Api.HIP, FAULT_TEST);

    /** Runs before each nested test's own set-up (which opens a context), so a missing device skips instead of failing. */
    @BeforeEach
    void requireHipDevice(TestInfo info) {
        Assumptions.assumeTrue(DeviceContext.deviceCount(Api.HIP) > 0,
                () -> "no HIP device here; " + DeviceContext.detect().strip().replace('\n', ' '));
        info.getTestMethod().ifPresent(m -> {
            String why = WHAT_HIP_LACKS.get(m.getName());
            Assumptions.assumeTrue(why == null, () -> "not applicable to hip: " + why);
        });
        String method = info.getTestMethod().map(java.lang.reflect.Method::getName).orElse("");
        String selected = System.getProperty(FAULT_TEST);
        if (info.getTestClass().map(AbstractFaultTest.class::isAssignableFrom).orElse(false)) {
            Assumptions.assumeTrue(method.equals(selected), () -> "device-fault test: a fault ends or poisons the HIP process"
                    + " (AMD: the runtime aborts on a GPU memory fault; the HIP-over-CUDA test library: CUDA keeps the sticky"
                    + " error for the process), so fault tests run one per JVM (-D" + FAULT_TEST + "=" + method
                    + ", impl-hip/gpu-fault-tests.sh)");
        } else {
            Assumptions.assumeTrue(selected == null || selected.isBlank(), () -> "this JVM runs only the device-fault test " + selected);
        }
        String name = name(info);
        started = System.nanoTime();
        System.err.println("[hip-test] start " + name);
        watchdog = WATCHDOG.scheduleAtFixedRate(() -> dumpThreads(name), 40, 40, TimeUnit.SECONDS);
    }

    @AfterEach
    void reportEnd(TestInfo info) {
        if (watchdog != null) {
            watchdog.cancel(false);
            System.err.println("[hip-test] end " + name(info) + " (" + (System.nanoTime() - started) / 1_000_000 + " ms)");
        }
    }

    /**
     * Prints each test's outcome, with the failure's message, as it happens, where a HIP device runs them. Without one
     * every test skips for the same reason: that reason is printed once, since hundreds of identical lines would only
     * bury the build's real news (Surefire's summary counts the skips; its reports keep each one's reason).
     */
    static final class Outcomes implements TestWatcher {
        /** Whether this machine has a HIP device; asked once, at the first outcome. */
        private static final class Device {
            static final boolean PRESENT = DeviceContext.deviceCount(Api.HIP) > 0;
        }

        /** Set by the first skip without a device, which prints the reason for all. */
        private static final AtomicBoolean SKIP_REASON_PRINTED = new AtomicBoolean();

        @Override
        public void testSuccessful(ExtensionContext c) {
            print(c, "PASSED", null);
        }

        @Override
        public void testFailed(ExtensionContext c, Throwable cause) {
            print(c, "FAILED", cause);
        }

        @Override
        public void testAborted(ExtensionContext c, Throwable cause) {
            print(c, "SKIPPED", cause);
        }

        @Override
        public void testDisabled(ExtensionContext c, Optional<String> reason) {
            if (Device.PRESENT) {
                System.err.println("[hip-test] DISABLED " + c.getDisplayName());
            }
        }

        private static void print(ExtensionContext c, String outcome, Throwable cause) {
            if (!Device.PRESENT && cause != null && "SKIPPED".equals(outcome)) {
                if (SKIP_REASON_PRINTED.compareAndSet(false, true)) {
                    System.err.println("[hip-test] no HIP device: the HIP suite skips (each test's reason is in its"
                            + " Surefire report): " + String.valueOf(cause.getMessage()).replace('\n', ' '));
                }
                return;
            }
            String where = c.getTestClass().map(Class::getSimpleName).orElse("?") + "." + c.getDisplayName();
            String why = cause == null ? "" : ": " + String.valueOf(cause).replace('\n', ' ');
            System.err.println("[hip-test] " + outcome + " " + where + (why.length() > 400 ? why.substring(0, 400) + "..." : why));
        }
    }

    private static String name(TestInfo info) {
        return info.getTestClass().map(Class::getSimpleName).orElse("?") + "." + info.getDisplayName();
    }

    private static void dumpThreads(String test) {
        StringBuilder sb = new StringBuilder("[hip-test] " + test + " still running; threads:\n");
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (stack.length == 0 || t.getName().startsWith("hip-test-watchdog")) {
                return;
            }
            sb.append("  \"").append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (int i = 0; i < Math.min(stack.length, 18); i++) {
                sb.append("      at ").append(stack[i]).append('\n');
            }
        });
        System.err.print(sb);
    }
}
