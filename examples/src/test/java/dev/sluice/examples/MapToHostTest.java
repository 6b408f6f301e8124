package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class MapToHostTest {

    @Test
    void valuesWrittenThroughTheMappingsAreOnTheDevice() {
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = Stdout.lines(() -> MapToHost.run(ctx));
        }
        assertEquals(3, lines.size(), lines::toString);
        assertTrue(lines.get(0).startsWith("Running on cpu device 0: "), lines.get(0));
        assertEquals("in_dev:  [0.0, 1.0, 2.0, 3.0, ..., 1023.0]", lines.get(1));
        assertEquals("out_dev: [255.0, 255.0, 255.0, 255.0, ..., 255.0]", lines.get(2));
    }
}
