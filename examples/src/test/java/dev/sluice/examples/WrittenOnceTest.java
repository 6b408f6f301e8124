package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class WrittenOnceTest {

    @Test
    void theGeneratedKernelsComputeAxpbAndItsNorm() {
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = Stdout.lines(() -> WrittenOnce.run(ctx));
        }
        // 2^18 elements of 7: the norm is 7 * 2^9 = 3584
        assertEquals(List.of("y[3] = 7.0", "|y| = 3584.0"), lines.subList(lines.size() - 2, lines.size()));
    }
}
