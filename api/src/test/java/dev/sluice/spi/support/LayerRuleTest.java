package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.support.LayerRule.Layer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checker behind each backend's layer test finds what it must. */
class LayerRuleTest {

    private static Layer byName(String n) {
        return n.startsWith("Raw") ? Layer.BINDINGS : n.startsWith("Spi") ? Layer.SPI : Layer.HANDLES;
    }

    @Test
    void aLowerLayerNamingAHigherOneIsReportedAndDownwardReferencesAreNot() {
        Map<String, Set<String>> refs = Map.of(
                "RawCalls", Set.of("Pool"),
                "Pool", Set.of("RawCalls", "SpiStream"),
                "SpiStream", Set.of("Pool", "RawCalls"));
        List<String> v = LayerRule.violations(refs, LayerRuleTest::byName);
        assertEquals(2, v.size(), v.toString());
        assertTrue(v.contains("RawCalls (BINDINGS) names Pool (HANDLES)"), v.toString());
        assertTrue(v.contains("Pool (HANDLES) names SpiStream (SPI)"), v.toString());
    }

    @Test
    void referencesAreReadFromClassFilesWithNestedClassesFoldedIntoTheirTopLevelClass() throws Exception {
        Path classes = Path.of(LayerRule.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Map<String, Set<String>> refs = LayerRule.references(classes, "dev.sluice.spi.support");
        assertTrue(refs.get("LayerRuleTest").contains("LayerRule"), refs.toString());
        assertTrue(refs.containsKey("LayerRule") && !refs.containsKey("LayerRule$Layer"), refs.keySet().toString());
        assertTrue(refs.get("EventPoolTest").contains("NativeEvents") || refs.get("EventPoolTest").contains("EventPool"),
                refs.get("EventPoolTest").toString());
    }
}
