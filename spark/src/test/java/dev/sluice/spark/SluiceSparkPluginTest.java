package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.sluice.InvalidArgumentException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.SparkConf;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.resource.ResourceInformation;
import org.junit.jupiter.api.Test;

/** The executor plugin alone, with a plugin context of the test's making: devices, metrics, shutdown. */
class SluiceSparkPluginTest {

    /** A plugin context with {@code conf}, {@code resources} and a registry of its own. */
    record Context(SparkConf conf, Map<String, ResourceInformation> resources, MetricRegistry metricRegistry)
            implements PluginContext {
        @Override
        public String executorID() {
            return "7";
        }

        @Override
        public String hostname() {
            return "localhost";
        }

        @Override
        public void send(Object message) {
            throw new UnsupportedOperationException("no driver plugin");
        }

        @Override
        public Object ask(Object message) {
            throw new UnsupportedOperationException("no driver plugin");
        }
    }

    private static ExecutorPlugin plugin() {
        return new SluiceSparkPlugin().executorPlugin();
    }

    @Test
    void opensTheGpuResourcesDevicesRegistersTheirFiguresAndShutdownClosesThem() {
        Context ctx = new Context(new SparkConf(false).set(SluiceSparkPlugin.API, "cpu"),
                Map.of("gpu", new ResourceInformation("gpu", new String[] {"1"})), new MetricRegistry());
        ExecutorPlugin p = plugin();
        p.init(ctx, Map.of());
        try {
            assertEquals(1, ExecutorDevices.openCount());
            ExecutorDevices.Device d = ExecutorDevices.open(new ExecutorDevices.Key("cpu", 1));
            assertTrue(d != null && !d.context.isClosed(), "cpu:1 open");
            Set<String> names = new TreeSet<>(ctx.metricRegistry().getNames());
            Set<String> expected = new TreeSet<>();
            for (dev.sluice.DeviceFigure f : dev.sluice.DeviceFigure.values()) {
                if (f == dev.sluice.DeviceFigure.COPY_BYTES) {
                    DeviceFigures.DIRECTIONS.forEach(dir -> expected.add("device.cpu-1." + f.metricName() + "." + dir));
                } else {
                    expected.add("device.cpu-1." + f.metricName());
                }
            }
            DeviceFigures.STAGE_NAMES.forEach(n -> expected.add("device.cpu-1." + n));
            assertEquals(expected, names, "the figures of DeviceFigure and the stages' own, no other");
            assertTrue(ctx.metricRegistry().getHistograms().containsKey("device.cpu-1.sluice.operation.latency"),
                    "a timer is a histogram");
            Gauge<?> faults = ctx.metricRegistry().getGauges().get("device.cpu-1.sluice.faults");
            assertEquals(0L, faults.getValue());
            assertEquals("cpu", ExecutorDevices.backend(null), "tasks use the plugin's backend");
            assertEquals(java.util.List.of(1), ExecutorDevices.ordinals("cpu"), "and its devices");
        } finally {
            p.shutdown();
        }
        assertEquals(0, ExecutorDevices.openCount(), "shutdown closed every context");
        assertTrue(ctx.metricRegistry().getNames().isEmpty(), "and removed the metrics");
        p.shutdown(); // idempotent
    }

    @Test
    void withoutAGpuResourceOpensTheDevicesSettingOrEveryDevice() {
        ExecutorPlugin every = plugin();
        every.init(new Context(new SparkConf(false), Map.of(), new MetricRegistry()), Map.of());
        assertEquals(2, ExecutorDevices.openCount(), "both simulated devices of the default backend (sluice.api=cpu)");
        every.shutdown();
        ExecutorPlugin listed = plugin();
        listed.init(new Context(new SparkConf(false).set(SluiceSparkPlugin.DEVICES, "0"), Map.of(), new MetricRegistry()),
                Map.of());
        assertEquals(1, ExecutorDevices.openCount());
        listed.shutdown();
        assertEquals(0, ExecutorDevices.openCount());
    }

    @Test
    void anAddressThatIsNoDeviceOrdinalIsRefusedNamingIt() {
        ExecutorPlugin p = plugin();
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> p.init(new Context(
                new SparkConf(false), Map.of("gpu", new ResourceInformation("gpu", new String[] {"GPU-5a1c"})),
                new MetricRegistry()), Map.of()));
        assertTrue(e.getMessage().contains("resource gpu") && e.getMessage().contains("\"GPU-5a1c\""), e.getMessage());
        assertEquals(0, ExecutorDevices.openCount());
    }

    @Test
    void aDeviceThatIsNotThereFailsInitAndLeavesNothingOpen() {
        ExecutorPlugin p = plugin();
        assertThrows(InvalidArgumentException.class, () -> p.init(new Context(new SparkConf(false),
                Map.of("gpu", new ResourceInformation("gpu", new String[] {"0", "5"})), new MetricRegistry()), Map.of()));
        assertEquals(0, ExecutorDevices.openCount(), "device 0, opened before 5 failed, was closed");
    }
}
