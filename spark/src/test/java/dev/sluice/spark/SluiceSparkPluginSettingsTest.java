package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.codahale.metrics.MetricRegistry;
import dev.sluice.InvalidArgumentException;
import dev.sluice.testing.Attacks;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.resource.ResourceInformation;
import org.junit.jupiter.api.Test;

/**
 * The plugin's settings ({@value SluiceSparkPlugin#API}, {@value SluiceSparkPlugin#DEVICES},
 * {@value SluiceSparkPlugin#STAGES_KEPT}, the {@code gpu} resource)
 * with bad values: refused by the executor's init with an {@link InvalidArgumentException} naming the setting and the
 * value, leaving no context open; and its shutdown, idempotent and safe from two threads at once.
 */
class SluiceSparkPluginSettingsTest {

    private static SluiceSparkPluginTest.Context context(SparkConf conf, Map<String, ResourceInformation> resources) {
        return new SluiceSparkPluginTest.Context(conf, resources, new MetricRegistry());
    }

    private static InvalidArgumentException assertRefused(String setting, SparkConf conf,
            Map<String, ResourceInformation> resources, String... words) {
        ExecutorPlugin p = new SluiceSparkPlugin().executorPlugin();
        try {
            InvalidArgumentException e = Attacks.assertRefused(setting, () -> p.init(context(conf, resources), Map.of()),
                    words);
            assertEquals(0, ExecutorDevices.openCount(), "init refused, leaving no context open");
            return e;
        } finally {
            p.shutdown(); // after a failed init: nothing to close, no exception; after one that passed, what it opened
        }
    }

    @Test
    void devicesThatAreNoOrdinalsAreRefusedNamingTheSettingAndTheValue() {
        for (String bad : new String[] {"-1", "one", "0,,1", "99999999999", "0;1"}) {
            assertRefused(SluiceSparkPlugin.DEVICES, new SparkConf(false).set(SluiceSparkPlugin.DEVICES, bad), Map.of(),
                    "is not a device ordinal");
        }
    }

    @Test
    void aDeviceListedTwiceIsRefusedNamingTheSetting() {
        assertRefused(SluiceSparkPlugin.DEVICES, new SparkConf(false).set(SluiceSparkPlugin.DEVICES, "0, 1,0"), Map.of(),
                "lists device 0 twice");
        assertRefused("resource gpu", new SparkConf(false), Map.of("gpu", new ResourceInformation("gpu",
                new String[] {"1", "1"})), "lists device 1 twice");
    }

    @Test
    void aDevicePastTheBackendsDevicesIsRefusedNamingTheSettingNotADeviceId() {
        int count = dev.sluice.DeviceContext.deviceCount("cpu");
        String past = Integer.toString(count);
        assertRefused(SluiceSparkPlugin.DEVICES, new SparkConf(false).set(SluiceSparkPlugin.API, "cpu")
                .set(SluiceSparkPlugin.DEVICES, "0," + past), Map.of(), "lists device " + past,
                "has " + count + " device(s)");
        assertRefused("resource gpu", new SparkConf(false).set(SluiceSparkPlugin.API, "cpu"), Map.of("gpu",
                new ResourceInformation("gpu", new String[] {past})), "lists device " + past);
    }

    @Test
    void initAfterShutdownOrASecondTimeIsRefusedLeavingNothingOpen() {
        SparkConf conf = new SparkConf(false).set(SluiceSparkPlugin.API, "cpu").set(SluiceSparkPlugin.DEVICES, "0");
        ExecutorPlugin shutFirst = new SluiceSparkPlugin().executorPlugin();
        shutFirst.shutdown();
        assertThrows(IllegalStateException.class, () -> shutFirst.init(context(conf, Map.of()), Map.of()));
        assertEquals(0, ExecutorDevices.openCount(), "a shut-down plugin opened nothing");

        ExecutorPlugin twice = new SluiceSparkPlugin().executorPlugin();
        try {
            twice.init(context(conf, Map.of()), Map.of());
            assertThrows(IllegalStateException.class, () -> twice.init(context(conf, Map.of()), Map.of()));
        } finally {
            twice.shutdown();
        }
        assertEquals(0, ExecutorDevices.openCount(), "one shutdown closed what the one init opened");
        Attacks.assertRefused("ctx", () -> new SluiceSparkPlugin().executorPlugin().init(null, Map.of()),
                "must not be null");
    }

    @Test
    void aBackendThatIsNotThereIsRefusedNamingTheSetting() {
        assertRefused(SluiceSparkPlugin.API, new SparkConf(false).set(SluiceSparkPlugin.API, "nonsense"), Map.of(),
                "nonsense");
        assertRefused(SluiceSparkPlugin.API, new SparkConf(false).set(SluiceSparkPlugin.API, "nonsense")
                .set(SluiceSparkPlugin.DEVICES, "0"), Map.of(), "nonsense");
    }

    @Test
    void aCountOfStagesKeptOutsideItsRangeIsRefusedNamingTheSettingAndTheValue() {
        for (String bad : new String[] {"-1", "17", "two", "1.5", "99999999999"}) {
            assertRefused(SluiceSparkPlugin.STAGES_KEPT, new SparkConf(false).set(SluiceSparkPlugin.API, "cpu")
                    .set(SluiceSparkPlugin.STAGES_KEPT, bad), Map.of(), "\"" + bad + "\"", "0 to 16");
        }
        assertEquals(1, SluiceSparkPlugin.stagesKept(null));
        assertEquals(1, SluiceSparkPlugin.stagesKept(" "));
        assertEquals(0, SluiceSparkPlugin.stagesKept("0"));
        assertEquals(16, SluiceSparkPlugin.stagesKept(" 16 "));

        ExecutorPlugin p = new SluiceSparkPlugin().executorPlugin();
        try {
            p.init(context(new SparkConf(false).set(SluiceSparkPlugin.API, "cpu").set(SluiceSparkPlugin.DEVICES, "0")
                    .set(SluiceSparkPlugin.STAGES_KEPT, "3"), Map.of()), Map.of());
            ExecutorDevices.Device d = ExecutorDevices.open(new ExecutorDevices.Key("cpu", 0));
            assertEquals(3, java.util.Objects.requireNonNull(d).pipelines.stagesKept(), "the executor's device keeps 3");
        } finally {
            p.shutdown();
        }
    }

    @Test
    void shutdownIsIdempotentAndSafeFromTwoThreadsAtOnce() throws Exception {
        ExecutorPlugin p = new SluiceSparkPlugin().executorPlugin();
        p.init(context(new SparkConf(false).set(SluiceSparkPlugin.API, "cpu").set(SluiceSparkPlugin.DEVICES, "0"),
                Map.of()), Map.of());
        assertEquals(1, ExecutorDevices.openCount());
        Attacks.atOnceFromTwoThreads(p::shutdown, 30);
        assertEquals(0, ExecutorDevices.openCount());
        p.shutdown();
    }
}
