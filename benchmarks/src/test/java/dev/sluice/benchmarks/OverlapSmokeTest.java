package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The overlap benchmark's short mode on the CPU simulator: every mode and a traced run drawn as SVG. */
class OverlapSmokeTest {

    @Test
    void quickRunPrintsTheTableAndDrawsTheTimeline(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("timeline.svg");
        Path json = dir.resolve("trace.json");
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (PrintStream p = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(p);
            OverlapBenchmark.run(OverlapBenchmark.Options.parse(new String[] {"--quick", "--api", "cpu", "--chunks", "4,8",
                "--streams", "1,2", "--svg", svg.toString(), "--trace-json", json.toString(), "--trace-config", "plain:2:8"}));
        } finally {
            System.setOut(stdout);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        assertTrue(out.contains("| plain    | 2 | 8 |"), out);
        assertTrue(out.contains("| reactive | 2 | 8 |"), out);
        assertTrue(out.contains("bw_both_GBps="), out);
        String picture = Files.readString(svg);
        assertTrue(picture.startsWith("<svg") && picture.contains("data-stream=\"stream 2\""), "a lane per stream: " + picture);
        assertTrue(picture.split("class=\"span\"", -1).length - 1 >= 8 * 3, "a bar per upload, kernel and download");
        assertTrue(Files.readString(json).contains("\"traceEvents\""));
    }
}
