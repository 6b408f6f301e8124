package dev.sluice.hip;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.Kernel;
import dev.sluice.conformance.AbstractFaultTest;
import dev.sluice.conformance.ConformanceSuite;
import dev.sluice.conformance.TestKernels;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The whole conformance suite on HIP device 0. Where no HIP device is present (CI, or any machine without an
 * AMD GPU) every test is skipped with the probe's reason: the library found, and what hipGetDeviceCount
 * answered. On the GPU machine it runs against the HIP-over-CUDA test library (check 2, docs/hip.md).
 *
 * <p>Tests that need what HIP lacks by design are skipped with the reason, below. With a device, each test's
 * start and outcome is printed, and a test still running after 40 s prints every thread's stack, so that a run
 * cut short by its time limit still says where it stood.
 *
 * <p>Device-fault tests run one per JVM ({@code -D}{@value #FAULT_TEST}{@code =NAME},
 * {@code impl-hip/gpu-fault-tests.sh}): on AMD a GPU memory fault ends the process by default, and through the
 * HIP-over-CUDA test library the driver keeps the fault for the rest of the process, so one fault test would
 * fail every test after it. Without the property they skip; with it, only that test runs.
 *
 * <p>Before each test every kernel of the suite is loaded once on the device (the backend keeps modules
 * loaded per device): on the HIP-over-CUDA test library a module load synchronises the device, which would
 * deadlock a test that compiles a kernel while one of its streams waits on host work (seen on the GPU
 * machine, docs/gpu-runs.md). HIP on AMD is not known to need this.
 */
@ExtendWith(HipConformanceTest.Outcomes.class)
class HipConformanceTest extends ConformanceSuite {

    static final String FAULT_TEST = "sluice.hip.faultTest";

    /** Test method name → why HIP cannot pass it. */
    private static final Map<String, String> WHAT_HIP_LACKS = Map.of(
            "anotherContextStaysUsable",
            "HIP has one context per device and process (no non-primary contexts): a fault faults every context of the"
                    + " device, so no 'bystander' context on it can stay usable");

    /**
     * Test method name → why it cannot run on the HIP-over-CUDA test library (a limit of CUDA's driver, not of
     * HIP); these still run against a real HIP runtime.
     */
    private static final Map<String, String> OVER_CUDA_ONLY = Map.of(
            "waitForStageBlocksNoHostThread",
            "64 streams held at once by cuStreamWaitValue32 blocked cuStreamCreate inside the CUDA driver, and the device"
                    + " did not recover when the gates opened (GPU run of 2026-11-22 02:56 UTC, docs/gpu-runs.md)");

    /** Whether the backend runs on impl-hip's HIP-over-CUDA test library rather than a HIP runtime. */
    static boolean overCuda() {
        return String.valueOf(System.getProperty("sluice.hip.library")).contains("hip_over_cuda");
    }

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
        String why = OVER_CUDA_ONLY.get(method);
        Assumptions.assumeTrue(why == null || !overCuda(), () -> "not run on the HIP-over-CUDA test library: " + why);
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
        warmModules();
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

    /** Loads every kernel of the suite, and the internal 64-bit fill, on device 0; failures are left to the tests. */
    private static void warmModules() {
        try (DeviceContext c = DeviceContext.open(Api.HIP, 0)) {
            for (Field f : TestKernels.class.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == Kernel.class) {
                    c.compile((Kernel) f.get(null)).close();
                }
            }
            try (DeviceBuffer b = c.allocate(DType.I64, 4)) {
                c.sync().fill(b, 0x1234_5678_9ABC_DEF0L);
            }
        } catch (Exception | AssertionError e) {
            System.err.println("[hip-test] warming the kernels failed: " + e);
        }
    }

    /** Prints each test's outcome, with the failure's message, as it happens. */
    static final class Outcomes implements TestWatcher {
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
            System.err.println("[hip-test] DISABLED " + c.getDisplayName());
        }

        private static void print(ExtensionContext c, String outcome, Throwable cause) {
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
