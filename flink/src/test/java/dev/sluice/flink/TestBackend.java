package dev.sluice.flink;

import dev.sluice.DeviceContext;
import dev.sluice.SluiceProperties;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * The backend the module's tests run on: {@code -Dsluice.api}, the CPU simulator by default (the module's Surefire
 * configuration gives it two simulated devices); on a GPU host {@code -Dsluice.api=cuda} or {@code hip}, over the
 * devices the host has. Tests that fault a context through the simulator's own hooks skip elsewhere: a GPU's sticky
 * fault would poison every context of the test JVM.
 */
final class TestBackend {

    /** The backend's name; also the system property the functions read, set here when it was not given. */
    static final String API = resolve();

    private TestBackend() {
    }

    private static String resolve() {
        String named = System.getProperty(SluiceProperties.API);
        if (named == null || named.isBlank()) {
            // Without it, a function would take the first backend with a device, which need not be the one asserted.
            System.setProperty(SluiceProperties.API, "cpu");
            return "cpu";
        }
        return named.trim();
    }

    /**
     * The backend, made the one of every function that names none (through its system property, when absent): called
     * before a job is built.
     */
    static String select() {
        return API;
    }

    /** Whether the tests run on the CPU simulator. */
    static boolean isCpuSimulator() {
        return "cpu".equalsIgnoreCase(API);
    }

    /** Skips the calling test, saying why, unless it runs on the CPU simulator. */
    static void assumeCpuSimulator(String why) {
        Assumptions.assumeTrue(isCpuSimulator(), () -> "on the CPU simulator only (backend here: " + API + "): " + why);
    }

    /** The name a subtask on device {@code device} reports ({@code cuda:0}). */
    static String device(int device) {
        return API + ":" + device;
    }

    /** The backend's device count. */
    static int deviceCount() {
        return DeviceContext.deviceCount(API);
    }

    /** The devices {@code parallelism} subtasks take round robin: the first {@code min(parallelism, devices)}. */
    static List<String> devicesOf(int parallelism) {
        List<String> names = new ArrayList<>();
        for (int d = 0; d < Math.min(parallelism, deviceCount()); d++) {
            names.add(device(d));
        }
        return names;
    }
}
