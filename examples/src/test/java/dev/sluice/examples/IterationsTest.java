package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class IterationsTest {

    @Test
    void theThreeWaysGiveTheSameResultAndRepeatedWorkReplaysAndFuses() {
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = Stdout.lines(() -> Iterations.run(ctx));
        }
        assertEquals(Iterations.CPU_NOTE, lines.get(lines.size() - 1), "the simulator says it cannot gain from graphs");
        int last = lines.size() - 1;
        String plain = lines.get(last - 5);
        String work = lines.get(last - 4);
        String plan = lines.get(last - 3);
        assertTrue(plain.startsWith("plain enqueues:   x[0, n/2, n-1] = "), plain);
        assertTrue(plain.endsWith(", 400 launches"), plain);
        String values = plain.substring("plain enqueues:   ".length(), plain.indexOf(", 400"));
        assertEquals("repeated work:    " + values + ", 200 graph launches (1 built), 400 launches fused", work);
        assertEquals("repeated plan:    " + values + ", 200 graph launches, 400 launches fused", plan);
        assertEquals("equal bit for bit: true", lines.get(last - 2));
        assertTrue(lines.get(last - 1).startsWith("times of iterations 2 to 200 (this machine): plain "), lines.get(last - 1));
    }
}
