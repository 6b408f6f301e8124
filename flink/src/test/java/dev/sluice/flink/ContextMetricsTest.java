package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFigure;
import dev.sluice.DeviceFunction;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectWarning;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/** A shared context's gauges ({@link ContextMetrics}) read against what was done on the context. */
class ContextMetricsTest {

    /**
     * A metric group that keeps the gauges and histograms registered in it and in its subgroups, by their name relative
     * to it ({@code direction.upload.copyBytes}).
     */
    static final class Gauges extends UnregisteredMetricsGroup {
        final Map<String, Metric> byName;
        private final String prefix;

        Gauges() {
            this(new TreeMap<>(), "");
        }

        private Gauges(Map<String, Metric> byName, String prefix) {
            this.byName = byName;
            this.prefix = prefix;
        }

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            byName.put(prefix + name, gauge);
            return gauge;
        }

        @Override
        public <H extends Histogram> H histogram(String name, H histogram) {
            byName.put(prefix + name, histogram);
            return histogram;
        }

        @Override
        public MetricGroup addGroup(String key, String value) {
            return new Gauges(byName, prefix + key + "." + value + ".");
        }

        double value(String name) {
            return ((Number) ((Gauge<?>) byName.get(name)).getValue()).doubleValue();
        }

        long count(String name) {
            return ((Histogram) byName.get(name)).getCount();
        }
    }

    @Test
    void theGaugesAreTheFiguresOfTheTableInCamelCase() {
        Gauges g = new Gauges();
        try (SharedContexts.Reference ref = SharedContexts.acquire(TestBackend.select(), 0, getClass().getClassLoader())) {
            ref.metrics().register(g);
        }
        Set<String> expected = new TreeSet<>();
        for (DeviceFigure f : DeviceFigure.values()) {
            if (f == DeviceFigure.COPY_BYTES) {
                for (String d : ContextMetrics.DIRECTIONS) {
                    expected.add("direction." + d + ".copyBytes");
                }
            } else {
                expected.add(f.groupName());
            }
        }
        assertEquals(expected, g.byName.keySet());
        assertTrue(g.byName.containsKey("operationsFailed"), "Flink's camelCase: " + g.byName.keySet());
        assertTrue(g.byName.get("operationLatency") instanceof Histogram, "a timer is a histogram");
    }

    @Test
    void theGaugesFollowTheContextsOperationsAndMemory() {
        Gauges g = new Gauges();
        try (SharedContexts.Reference ref = SharedContexts.acquire(TestBackend.select(), 0, getClass().getClassLoader())) {
            ref.metrics().register(g);
            DeviceContext context = ref.context();
            assertEquals(0, g.value(DeviceFigure.MEMORY_ALLOCATED.groupName()));
            double used = g.value(DeviceFigure.MEMORY_DEVICE_USED.groupName());
            double free = g.value(DeviceFigure.MEMORY_DEVICE_FREE.groupName());
            assertTrue(used >= 0 && free > 0, "the device's memory: used " + used + ", free " + free);

            DeviceBuffer buffer = context.allocate(DType.F32, 1024);
            assertEquals(4096, g.value(DeviceFigure.MEMORY_ALLOCATED.groupName()), "the context's allocation");
            context.stream().enqueueCopy(HostData.of(new float[1024]), buffer).join();
            context.stream().enqueueCopy(buffer, HostData.of(new float[1024])).join();
            assertEquals(2, g.value(DeviceFigure.OPERATIONS_COMPLETED.groupName()));
            assertEquals(2, g.value(DeviceFigure.OPERATIONS_ENQUEUED.groupName()));
            assertEquals(2, g.count(DeviceFigure.OPERATION_LATENCY.groupName()), "each operation's latency");
            assertEquals(4096, g.value("direction.upload.copyBytes"));
            assertEquals(4096, g.value("direction.download.copyBytes"));
            assertEquals(0, g.value("direction.d2d.copyBytes"));
            assertEquals(1, g.value(DeviceFigure.MEMORY_ALLOCATIONS.groupName()));
            assertEquals(0, g.value(DeviceFigure.OPERATIONS_FAILED.groupName()));
            assertEquals(0, g.value(DeviceFigure.OPERATIONS_IN_FLIGHT.groupName()));
            buffer.close();
            context.synchronize();
            assertEquals(0, g.value(DeviceFigure.MEMORY_ALLOCATED.groupName()), "freed");
            assertEquals(1, g.value(DeviceFigure.MEMORY_FREES.groupName()));
            context.compile(Kernel.named("noop").java(t -> { }).build()).close();
            assertEquals(1, g.count(DeviceFigure.KERNEL_COMPILATIONS.groupName()));
            assertEquals(0, g.value(DeviceFigure.FAULTS.groupName()));
        }
        assertTrue(Double.isNaN(g.value(DeviceFigure.MEMORY_DEVICE_USED.groupName())), "NaN once the context is closed");
        assertTrue(Double.isNaN(g.value(DeviceFigure.MEMORY_DEVICE_FREE.groupName())));
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
            assertEquals(1, g.value(DeviceFigure.FAULTS.groupName()));
            assertEquals(1, g.value(DeviceFigure.OPERATIONS_FAILED.groupName()), "the launch");
            assertEquals(1, g.value(DeviceFigure.OPERATIONS_COMPLETED.groupName()), "completed, normally or not");
            assertTrue(Double.isNaN(g.value(DeviceFigure.MEMORY_DEVICE_USED.groupName())), "NaN once the context faulted");
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
