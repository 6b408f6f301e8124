package dev.sluice.hip;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.spi.support.LayerRule;
import dev.sluice.spi.support.LayerRule.Layer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The package's naming rule shows each class's layer, and no layer names a higher one (see package-info). */
class LayerNamingTest {

    /** The rule of package-info: {@code HipApi…} bind; other {@code Hip…} classes implement the SPI. */
    static Layer layerOf(String name) {
        if (name.matches("HipApi([A-Z]\\w*)?")) {
            return Layer.BINDINGS;
        }
        return name.matches("Hip[A-Z]\\w*") ? Layer.SPI : Layer.HANDLES;
    }

    @Test
    void noLayerNamesAHigherOne() throws Exception {
        assertEquals(List.of(), LayerRule.violations(LayerRule.references(HipBackend.class), LayerNamingTest::layerOf));
    }

    @Test
    void everyClassHasTheLayerItsJobSays() throws Exception {
        Map<Layer, Set<String>> byLayer = LayerRule.classesByLayer(HipBackend.class, LayerNamingTest::layerOf);
        assertEquals(Set.of("HipApi", "HipApiConstants", "HipApiErrors", "HipApiLibrary", "HipApiNodeParams", "HipApiSymbol"), byLayer.get(Layer.BINDINGS));
        assertEquals(Set.of("HipBackend", "HipContext", "HipModule", "HipReplayGraph", "HipStream"), byLayer.get(Layer.SPI));
    }
}
