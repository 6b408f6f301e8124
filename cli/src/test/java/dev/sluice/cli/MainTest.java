package dev.sluice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each command of the tool, on the CPU backend. */
class MainTest {

    private record Result(int status, String out, String err) {
    }

    private static Result run(boolean terminal, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                terminal);
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void detectListsEveryBackendAndWhyOneIsUnavailable() {
        Result r = run(false, "detect");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("cpu: "), r.out());
        assertTrue(r.out().contains("cuda: "), r.out());
        assertTrue(r.out().contains("hip: "), r.out());
        assertTrue(r.out().contains("default: "), r.out());
    }

    @Test
    void checkPassesOnTheCpuBackend() {
        Result r = run(false, "check", "--api", "cpu");
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("ok    verify 65536 elements"), r.out());
        assertTrue(r.out().endsWith("check passed\n") || r.out().endsWith("check passed" + System.lineSeparator()), r.out());
    }

    @Test
    void benchPrintsATableAndDrawsTheTimeline(@TempDir Path dir) throws Exception {
        Result r = run(true, "bench", "--api", "cpu", "--mib", "4", "--chunks", "8", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        for (String row : new String[] {"upload (pinned)", "download (pinned)", "launch, enqueue", "pipeline, 4 streams"}) {
            assertTrue(r.out().contains(row), row + " in " + r.out());
        }
        assertTrue(r.err().contains("\r") && r.err().contains("8/8"), "a progress line on a terminal: " + r.err());
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(dir.resolve("bench.svg").toFile());
    }

    @Test
    void traceWritesJsonAndSvgAndShowsNoProgressWithoutATerminal(@TempDir Path dir) throws Exception {
        Result r = run(false, "trace", "--api", "cpu", "--chunks", "6", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(Files.readString(dir.resolve("trace.json")).contains("\"traceEvents\""));
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(dir.resolve("trace.svg").toFile());
        assertEquals("", r.err(), "no progress line when not on a terminal");
    }

    @Test
    void traceShowsThePipelinesProgressOnATerminal(@TempDir Path dir) {
        Result r = run(true, "trace", "--api", "cpu", "--chunks", "5", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.err().contains("chunks (") && r.err().contains("5/5"), "the pipeline's progress: " + r.err());
    }

    @Test
    void badUsageExitsWith2AndNamesTheProblem() {
        Result r = run(false, "bench", "--mib", "lots");
        assertEquals(2, r.status());
        assertTrue(r.err().contains("--mib") && r.err().contains("lots"), r.err());
        assertEquals(2, run(false, "frobnicate").status());
        assertEquals(2, run(false).status());
        Result api = run(false, "check", "--api", "opencl");
        assertEquals(2, api.status());
        assertTrue(api.err().contains("opencl"), api.err());
    }
}
