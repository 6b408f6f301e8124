package dev.sluice.cuda;

import org.junit.jupiter.api.Assumptions;

/**
 * Device-fault tests on CUDA run one per JVM: a fault (an illegal address, say) leaves the CUDA driver's sticky
 * error in every context of every device for the rest of the process, so one fault test would fail every test
 * after it. Without {@code -Dsluice.cuda.faultTest=NAME} fault tests skip; with it, only the fault test whose
 * method is NAME runs and everything else skips. {@code impl-cuda/gpu-tests.sh} runs each in a JVM of its own.
 */
final class FaultTests {

    static final String PROPERTY = "sluice.cuda.faultTest";

    private FaultTests() {
    }

    /** Skips a test unless it is the one fault test this JVM runs (fault tests) or no fault test is selected (others). */
    static void gate(boolean isFaultTest, String method) {
        String selected = System.getProperty(PROPERTY);
        if (isFaultTest) {
            Assumptions.assumeTrue(method.equals(selected), () -> "device-fault test: a CUDA device fault poisons every context of"
                    + " the device for the rest of the process, so fault tests run one per JVM (-D" + PROPERTY + "=" + method
                    + ", see impl-cuda/gpu-tests.sh)");
        } else {
            Assumptions.assumeTrue(selected == null || selected.isBlank(),
                    () -> "this JVM runs only the device-fault test " + selected);
        }
    }
}
