package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The table of figures: names unique in both forms, each figure described, and the camelCase form derived. */
class DeviceFigureTest {

    @Test
    void namesAreUniqueInBothForms() {
        Set<String> names = new HashSet<>();
        Set<String> groupNames = new HashSet<>();
        for (DeviceFigure f : DeviceFigure.values()) {
            assertTrue(f.metricName().matches("sluice(\\.[a-z]+)+"), f.metricName());
            assertTrue(names.add(f.metricName()), "twice: " + f.metricName());
            assertTrue(groupNames.add(f.groupName()), "twice: " + f.groupName());
            assertTrue(f.groupName().matches("[a-z]+([A-Z][a-z]+)*"), f.groupName());
            assertFalse(f.description().isBlank(), f + " has a description");
            assertFalse(f.unit().isBlank(), f + " has a unit");
            assertFalse(f.source().isBlank(), f + " names its source");
        }
    }

    @Test
    void theGroupNameIsTheCanonicalNameInCamelCase() {
        assertEquals("operationsFailed", DeviceFigure.OPERATIONS_FAILED.groupName());
        assertEquals("operationsInFlight", DeviceFigure.OPERATIONS_IN_FLIGHT.groupName());
        assertEquals("memoryDeviceFree", DeviceFigure.MEMORY_DEVICE_FREE.groupName());
        assertEquals("faults", DeviceFigure.FAULTS.groupName());
        assertEquals(DeviceFigure.Kind.TIMER, DeviceFigure.OPERATION_LATENCY.kind());
    }
}
