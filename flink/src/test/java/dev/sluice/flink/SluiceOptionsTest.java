package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.InvalidArgumentException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SluiceOptions}: the job's parameters over the cluster's configuration, and refusals naming the option. */
class SluiceOptionsTest {

    private static Configuration cluster(String... keyValues) {
        Configuration c = new Configuration();
        for (int i = 0; i < keyValues.length; i += 2) {
            c.setString(keyValues[i], keyValues[i + 1]);
        }
        return c;
    }

    @Test
    void theDefaultsWhereNothingIsSet() {
        Configuration s = SluiceOptions.merged(Map.of(), new Configuration());
        assertEquals(Optional.empty(), SluiceOptions.backend(s));
        assertEquals(4, SluiceOptions.lanes(s));
        assertEquals(3, SluiceOptions.assignment(s).device(7, 4), "round robin: 7 % 4");
        assertNull(SluiceOptions.fatalOnStickyFault(s));
        assertEquals(Duration.ofSeconds(10), SluiceOptions.arrowCloseTimeout(s));
    }

    @Test
    void theJobsParametersWinOverTheClustersConfiguration() {
        Configuration cluster = cluster("sluice.backend", "cuda", "sluice.lanes", "3", "sluice.device-assignment", "fixed:1",
                "sluice.fatal-on-sticky-fault", "false");
        cluster.setString("sluice.arrow.close-timeout", "30 s");
        Configuration s = SluiceOptions.merged(Map.of("sluice.lanes", "2", "sluice.backend", "cpu",
                "sluice.arrow.close-timeout", "250 ms"), cluster);
        assertEquals(Duration.ofMillis(250), SluiceOptions.arrowCloseTimeout(s));
        assertEquals(Optional.of("cpu"), SluiceOptions.backend(s));
        assertEquals(2, SluiceOptions.lanes(s));
        assertEquals(1, SluiceOptions.assignment(s).device(0, 2), "the cluster's, which the job did not set");
        assertEquals(Boolean.FALSE, SluiceOptions.fatalOnStickyFault(s));
    }

    @Test
    void theClustersSettingsComeFromConfigYamlAsATaskManagerHasIt(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("config.yaml"), """
                taskmanager.numberOfTaskSlots: 2
                sluice:
                  backend: hip
                  lanes: 3
                  device-assignment: fixed:0
                  arrow:
                    close-timeout: 2 min
                """);
        Configuration s = SluiceOptions.merged(Map.of("sluice.lanes", "5"), SluiceOptions.load(dir.toString()));
        assertEquals(Optional.of("hip"), SluiceOptions.backend(s), "nested YAML keys, as Flink reads them");
        assertEquals(5, SluiceOptions.lanes(s), "the job's parameter over the file's");
        assertEquals(0, SluiceOptions.assignment(s).device(3, 2));
        assertEquals(Duration.ofMinutes(2), SluiceOptions.arrowCloseTimeout(s));
        assertEquals(Optional.empty(), SluiceOptions.backend(SluiceOptions.load(null)), "no directory: nothing set");
    }

    @Test
    void badValuesAreRefusedNamingTheOptionAndTheValue() {
        InvalidArgumentException lanes = assertThrows(InvalidArgumentException.class,
                () -> SluiceOptions.lanes(SluiceOptions.merged(Map.of("sluice.lanes", "0"), new Configuration())));
        assertTrue(lanes.getMessage().contains("sluice.lanes") && lanes.getMessage().contains("0"), lanes.getMessage());
        for (String bad : new String[] {"fixed:-1", "fixed:x", "spread"}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> SluiceOptions.assignment(
                    SluiceOptions.merged(Map.of("sluice.device-assignment", bad), new Configuration())));
            assertTrue(e.getMessage().contains("sluice.device-assignment") && e.getMessage().contains(bad),
                    e.getMessage());
        }
    }

    @Test
    void lanesOrAStickyFaultSettingThatDoNotParseAreRefusedNamingTheOptionTheValueAndTheForms() {
        for (String bad : new String[] {"abc", "4.5", "99999999999", ""}) {
            dev.sluice.testing.Attacks.assertRefused("sluice.lanes", () -> SluiceOptions.lanes(SluiceOptions.merged(
                    Map.of("sluice.lanes", bad), new Configuration())), "'" + bad + "'", "whole number from 1 to 64");
        }
        for (String bad : new String[] {"maybe", "1", ""}) {
            dev.sluice.testing.Attacks.assertRefused("sluice.fatal-on-sticky-fault", () -> SluiceOptions
                    .fatalOnStickyFault(SluiceOptions.merged(Map.of("sluice.fatal-on-sticky-fault", bad),
                            new Configuration())), "'" + bad + "'", "neither true nor false");
        }
        // Spaces around a value are ignored, as for the device assignment.
        assertEquals(4, SluiceOptions.lanes(SluiceOptions.merged(Map.of("sluice.lanes", " 4 "), new Configuration())));
        assertEquals(Boolean.FALSE, SluiceOptions.fatalOnStickyFault(SluiceOptions.merged(
                Map.of("sluice.fatal-on-sticky-fault", " false "), new Configuration())));
    }

    @Test
    void aCloseTimeoutOutOfBoundsIsRefusedNamingTheOptionTheValueAndTheLimit() {
        assertEquals("sluice.arrow.close-timeout: value 61 min must be from 0 to 1 h", assertThrows(
                InvalidArgumentException.class, () -> SluiceOptions.arrowCloseTimeout(SluiceOptions.merged(
                        Map.of("sluice.arrow.close-timeout", "61 min"), new Configuration()))).getMessage());
        for (String bad : new String[] {"-1 s", "soon", "10 parsecs"}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> SluiceOptions
                    .arrowCloseTimeout(SluiceOptions.merged(Map.of("sluice.arrow.close-timeout", bad),
                            new Configuration())));
            assertEquals("sluice.arrow.close-timeout: value '" + bad + "' is not a duration from 0 to 1 h (as '10 s' or"
                    + " '500 ms')", e.getMessage());
        }
        Configuration negative = new Configuration();
        negative.set(SluiceOptions.ARROW_CLOSE_TIMEOUT, Duration.ofMillis(-5)); // set in code, not parsed
        assertEquals("sluice.arrow.close-timeout: value -5 ms must be from 0 to 1 h", assertThrows(
                InvalidArgumentException.class, () -> SluiceOptions.arrowCloseTimeout(negative)).getMessage());
        assertEquals(Duration.ZERO, SluiceOptions.arrowCloseTimeout(SluiceOptions.merged(
                Map.of("sluice.arrow.close-timeout", "0 ms"), new Configuration())), "0: no wait");
        assertEquals(Duration.ofHours(1), SluiceOptions.arrowCloseTimeout(SluiceOptions.merged(
                Map.of("sluice.arrow.close-timeout", "1 h"), new Configuration())), "the limit itself");
    }

    @Test
    void theBuilderWinsWhereItSetsAValue() {
        SluiceAsyncFunction<float[], float[]> unset = SluiceAsyncFunction.of((lane, in) -> null);
        assertEquals(4, unset.lanes(), "the default, on the client");
        assertEquals(3, SluiceAsyncFunction.of((lane, in) -> null, 3).lanes());
    }
}
