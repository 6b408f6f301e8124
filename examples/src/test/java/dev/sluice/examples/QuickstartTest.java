package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuickstartTest {

    @Test
    void theReadmeSampleScalesTheArray() {
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = Stdout.lines(() -> Quickstart.run(ctx));
        }
        assertEquals("y[0] = 2.0", lines.getLast());
    }
}
