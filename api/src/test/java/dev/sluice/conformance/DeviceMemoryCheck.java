package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * "No leaked device memory across the whole suite run", checked: free device memory (device 0, after a synchronize,
 * since a memory pool gives freed memory back then) before the first test of a class and after its last may differ
 * by less than 64 MiB. A GPU suite registers it as {@code @RegisterExtension static}; it does nothing without a
 * device, or in a JVM that runs a device-fault test (the fault leaves the device unusable for the second reading).
 */
public final class DeviceMemoryCheck implements BeforeAllCallback, AfterAllCallback {

    private static final long TOLERANCE = 64L << 20;

    private final Api api;
    private final String faultTestProperty;
    private long freeAtStart = -1;

    /** @param faultTestProperty the system property that selects a device-fault test to run in this JVM */
    public DeviceMemoryCheck(Api api, String faultTestProperty) {
        this.api = api;
        this.faultTestProperty = faultTestProperty;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (DeviceContext.deviceCount(api) > 0 && System.getProperty(faultTestProperty) == null) {
            freeAtStart = freeMemory();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (freeAtStart >= 0) {
            long lost = freeAtStart - freeMemory();
            assertTrue(lost < TOLERANCE, "free device memory fell by " + (lost >> 20) + " MiB over the suite");
        }
    }

    private long freeMemory() {
        try (DeviceContext c = DeviceContext.open(api, 0)) {
            c.synchronize();
            return c.memoryInfo().free();
        }
    }
}
