package dev.sluice.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.spi.support.LayerRule;
import dev.sluice.spi.support.LayerRule.Layer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The package's naming rule shows each class's layer, and no layer names a higher one (see package-info). */
class LayerNamingTest {

    /** The rule of package-info: {@code Cu…}, {@code Jc…}, {@code Nvrtc…} bind; {@code Cuda…} implement the SPI. */
    static Layer layerOf(String name) {
        if (name.matches("(Cu|Jc|Nvrtc)([A-Z]\\w*)?")) {
            return Layer.BINDINGS;
        }
        return name.matches("Cuda[A-Z]\\w*") ? Layer.SPI : Layer.HANDLES;
    }

    @Test
    void noLayerNamesAHigherOne() throws Exception {
        assertEquals(List.of(), LayerRule.violations(LayerRule.references(CudaBackend.class), LayerNamingTest::layerOf));
    }

    @Test
    void everyClassHasTheLayerItsJobSays() throws Exception {
        Map<Layer, Set<String>> byLayer = LayerRule.classesByLayer(CudaBackend.class, LayerNamingTest::layerOf);
        assertEquals(Set.of("Cu", "CuCallTimes", "CuLibrary", "Jc", "JcNatives", "Nvrtc"), byLayer.get(Layer.BINDINGS));
        assertEquals(Set.of("CudaBackend", "CudaContext", "CudaFunction", "CudaMarkers", "CudaReplayGraph", "CudaStagedMarker",
                "CudaStream"),
                byLayer.get(Layer.SPI));
    }
}
