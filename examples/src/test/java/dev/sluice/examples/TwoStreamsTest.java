package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class TwoStreamsTest {

    @Test
    void theNewStreamReadsWhatTheDefaultStreamWrote() {
        List<String> lines;
        boolean[] ok = new boolean[1];
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = Stdout.lines(() -> ok[0] = TwoStreams.run(ctx));
        }
        assertTrue(ok[0], lines::toString);
        assertEquals(List.of(
                "record_event / enqueue_wait_for: [20.0, 21.0, 22.0, 23.0, ..., 1048595.0] OK",
                "waitFor(future):                 [20.0, 21.0, 22.0, 23.0, ..., 1048595.0] OK"), lines.subList(1, lines.size()));
        assertTrue(lines.get(0).startsWith("Running on cpu device 0: "), lines.get(0));
    }
}
