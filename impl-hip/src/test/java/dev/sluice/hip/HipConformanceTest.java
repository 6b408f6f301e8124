package dev.sluice.hip;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.conformance.ConformanceSuite;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * The whole conformance suite on HIP device 0. Where no HIP device is present (CI, or any machine without an
 * AMD GPU) every test is skipped with the probe's reason: the library found, and what hipGetDeviceCount
 * answered. On the GPU machine it runs against the HIP-over-CUDA test library (check 2, docs/hip.md).
 *
 * <p>Tests that need what HIP lacks by design are skipped with the reason, below. With a device, each test's
 * start and end is printed, and a test still running after 40 s prints every thread's stack, so that a run
 * cut short by its time limit still says where it stood.
 */
class HipConformanceTest extends ConformanceSuite {

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

    /** Runs before each nested test's own set-up (which opens a context), so a missing device skips instead of failing. */
    @BeforeEach
    void requireHipDevice(TestInfo info) {
        Assumptions.assumeTrue(DeviceContext.deviceCount(Api.HIP) > 0,
                () -> "no HIP device here; " + DeviceContext.detect().strip().replace('\n', ' '));
        info.getTestMethod().ifPresent(m -> {
            String why = WHAT_HIP_LACKS.get(m.getName());
            Assumptions.assumeTrue(why == null, () -> "not applicable to hip: " + why);
        });
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
