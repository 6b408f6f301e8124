package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectWarning;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/** A shared context's gauges ({@link ContextMetrics}) read against what was done on the context. */
class ContextMetricsTest {

    /** A metric group that keeps the gauges registered in it, by name. */
    static final class Gauges extends UnregisteredMetricsGroup {
        final Map<String, Gauge<?>> byName = new HashMap<>();

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            byName.put(name, gauge);
            return gauge;
        }

        double value(String name) {
            return ((Number) byName.get(name).getValue()).doubleValue();
        }
    }

    @Test
    void theGaugesFollowTheContextsOperationsAndMemory() {
        Gauges g = new Gauges();
        try (SharedContexts.Reference ref = SharedContexts.acquire(TestBackend.select(), 0, getClass().getClassLoader())) {
            ref.metrics().register(g);
            DeviceContext context = ref.context();
            assertEquals(0, g.value(ContextMetrics.MEMORY_ALLOCATED));
            double used = g.value(ContextMetrics.MEMORY_DEVICE_USED);
            double free = g.value(ContextMetrics.MEMORY_DEVICE_FREE);
            assertTrue(used >= 0 && free > 0, "the device's memory: used " + used + ", free " + free);

            DeviceBuffer buffer = context.allocate(DType.F32, 1024);
            assertEquals(4096, g.value(ContextMetrics.MEMORY_ALLOCATED), "the context's allocation");
            context.stream().enqueueCopy(HostData.of(new float[1024]), buffer).join();
            context.stream().enqueueCopy(buffer, HostData.of(new float[1024])).join();
            assertEquals(2, g.value(ContextMetrics.OPERATIONS_COMPLETED));
            assertEquals(0, g.value(ContextMetrics.OPERATIONS_FAILED));
            assertEquals(0, g.value(ContextMetrics.OPERATIONS_IN_FLIGHT));
            buffer.close();
            context.synchronize();
            assertEquals(0, g.value(ContextMetrics.MEMORY_ALLOCATED), "freed");
            assertEquals(0, g.value(ContextMetrics.FAULTS));
        }
        assertTrue(Double.isNaN(g.value(ContextMetrics.MEMORY_DEVICE_USED)), "NaN once the context is closed");
        assertTrue(Double.isNaN(g.value(ContextMetrics.MEMORY_DEVICE_FREE)));
        assertEquals(0, SharedContexts.openCount());
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void aFaultCountsOnceAndItsOperationFailed() {
        TestBackend.assumeCpuSimulator("the fault is a kernel that throws on the simulator");
        Gauges g = new Gauges();
        Kernel boom = Kernel.named("boom").java(t -> {
            throw new IllegalStateException("device fault");
        }).build();
        try (SharedContexts.Reference ref = SharedContexts.acquire("cpu", 0, getClass().getClassLoader());
             DeviceFunction f = ref.context().compile(boom)) {
            ref.metrics().register(g);
            assertThrows(Exception.class, () -> ref.context().stream().enqueueLaunch(f, LaunchConfig.of(1, 1)).join());
            assertTrue(ref.context().isFaulted());
            assertEquals(1, g.value(ContextMetrics.FAULTS));
            assertEquals(1, g.value(ContextMetrics.OPERATIONS_FAILED), "the launch");
            assertEquals(1, g.value(ContextMetrics.OPERATIONS_COMPLETED), "completed, normally or not");
            assertTrue(Double.isNaN(g.value(ContextMetrics.MEMORY_DEVICE_USED)), "NaN once the context faulted");
        }
    }

    @Test
    void subtasksOfOneDeviceShareTheContextsFigures() {
        ClassLoader job = getClass().getClassLoader();
        try (SharedContexts.Reference a = SharedContexts.acquire(TestBackend.select(), 0, job);
             SharedContexts.Reference b = SharedContexts.acquire(TestBackend.select(), 0, job)) {
            assertTrue(a.metrics() == b.metrics(), "one context, one set of figures");
        }
    }
}
