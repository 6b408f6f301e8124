package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.junit.jupiter.api.Test;

/** On two simulated CPU devices (this module's tests run with {@code sluice.cpu.devices=2}). */
class PeerCopyTest {

    @Test
    void bothCopiesArriveWhole() {
        List<String> lines;
        boolean[] ok = new boolean[1];
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0); DeviceContext peer = DeviceContext.open(Api.CPU, 1)) {
            lines = Stdout.lines(() -> ok[0] = PeerCopy.run(ctx, peer));
        }
        assertTrue(ok[0], lines::toString);
        assertEquals(4, lines.size(), lines::toString);
        assertTrue(lines.get(0).startsWith("Running on cpu device 0: "), lines.get(0));
        assertTrue(lines.get(1).startsWith("and on cpu device 1: "), lines.get(1));
        assertTrue(lines.get(2).matches("device 1 -> device 0, 64 MiB, peer access off: [0-9.]+ GB/s, every element OK"), lines.get(2));
        assertTrue(lines.get(3).matches("device 1 -> device 0, 64 MiB, peer access on:  [0-9.]+ GB/s, every element OK"), lines.get(3));
    }
}
