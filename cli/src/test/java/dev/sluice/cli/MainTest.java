package dev.sluice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

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
        assertTrue(r.err().contains("\r") && r.err().contains("pipeline [") && r.err().contains("12/12"),
                "a progress line on a terminal, to the last of the warm-up and timed rounds: " + r.err());
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(dir.resolve("bench.svg").toFile());
    }

    @Test
    void benchOnTheCpuSimulatorSaysItsTimesAreSimulated(@TempDir Path dir) {
        Result r = run(false, "bench", "--api", "cpu", "--mib", "4", "--chunks", "8", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("note: on the CPU simulator these times simulate the streams' ordering, not a GPU's speed"),
                "the demo's caveat: " + r.out());
    }

    @Test
    void benchSaysHowEachFigureWasMeasured(@TempDir Path dir) {
        Result r = run(false, "bench", "--api", "cpu", "--mib", "4", "--chunks", "8", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("median of 9 copies after 3 warm-up copies, 4 MiB pinned, reused; timed by device events"),
                "bandwidth: " + r.out());
        assertTrue(r.out().contains("median of 9 rounds of 5000 launches of an empty kernel after 3 warm-up rounds"),
                "launch: " + r.out());
        assertTrue(r.out().contains("median of 9 runs after 3 warm-up runs"), "pipeline: " + r.out());
    }

    @Test
    void benchTimelineHasARowPerPipelineStreamNamedStream1To4(@TempDir Path dir) throws Exception {
        Result r = run(false, "bench", "--api", "cpu", "--mib", "4", "--chunks", "8", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        Svg svg = Svg.read(dir.resolve("bench.svg"));
        assertEquals(List.of("stream 1", "stream 2", "stream 3", "stream 4"), svg.lanes(), "the user's streams, counted from 1");
        assertEquals(List.of("stream 1", "stream 2", "stream 3", "stream 4"), svg.laneLabels(), "as labelled");
        for (String kind : List.of("upload", "kernel sluice_cli_scale_add", "download")) {
            assertTrue(svg.tips().stream().anyMatch(t -> t.startsWith(kind + " [chunk ")), kind + " of a chunk drawn: " + svg.tips());
        }
    }

    @Test
    void traceSvgDrawsTheRunAfterTheWarmUpWithoutItsAllocations(@TempDir Path dir) throws Exception {
        Result r = run(false, "trace", "--api", "cpu", "--chunks", "6", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        String json = Files.readString(dir.resolve("trace.json"));
        int allocations = json.split("\"name\":\"alloc\"", -1).length - 1;
        assertEquals(12, json.split("\"name\":\"upload\"", -1).length - 1, "the JSON holds both runs' uploads");
        assertTrue(allocations >= 2, "the JSON keeps the allocations of the lanes the warm-up opened: " + allocations);
        Svg svg = Svg.read(dir.resolve("trace.svg"));
        long uploads = svg.tips().stream().filter(t -> t.startsWith("upload")).count();
        assertTrue(uploads >= 1 && uploads <= 6, "the second run alone, or its start if long: " + svg.tips());
        assertTrue(svg.tips().stream().filter(t -> t.startsWith("alloc")).count() < allocations,
                "the warm-up's allocations are not drawn: " + svg.tips());
        for (String kind : List.of("upload", "kernel sluice_cli_scale_add", "download")) {
            // The pipeline's lanes replay their stage as a graph: the kernel is drawn as what a replay span ran.
            assertTrue(svg.tips().stream().anyMatch(t -> t.startsWith(kind) || t.startsWith("replay") && t.contains(kind)),
                    kind + " drawn: " + svg.tips());
        }
        assertTrue(svg.text().contains("the run after a warm-up run"), "the subtitle says what is drawn");
        assertTrue(r.out().contains("note: on the CPU simulator"), r.out());
    }

    @Test
    void traceJsonCarriesTheRealProcessId(@TempDir Path dir) throws Exception {
        Result r = run(false, "trace", "--api", "cpu", "--chunks", "3", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        JsonArray events = JsonParser.parseString(Files.readString(dir.resolve("trace.json"))).getAsJsonObject()
                .getAsJsonArray("traceEvents");
        assertFalse(events.isEmpty());
        for (JsonElement e : events) {
            assertEquals(ProcessHandle.current().pid(), e.getAsJsonObject().get("pid").getAsLong(), e.toString());
        }
    }

    /** The lanes, their labels and the bars' tooltips of a timeline. */
    private record Svg(List<String> lanes, List<String> laneLabels, List<String> tips, String text) {

        static Svg read(Path file) throws Exception {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            Document doc = f.newDocumentBuilder().parse(file.toFile());
            List<String> lanes = new ArrayList<>();
            List<String> labels = new ArrayList<>();
            List<String> tips = new ArrayList<>();
            NodeList groups = doc.getElementsByTagName("g");
            for (int i = 0; i < groups.getLength(); i++) {
                Element g = (Element) groups.item(i);
                if (!"lane".equals(g.getAttribute("class"))) {
                    continue;
                }
                lanes.add(g.getAttribute("data-stream"));
                labels.add(g.getElementsByTagName("text").item(0).getTextContent());
                NodeList rects = g.getElementsByTagName("rect");
                for (int j = 0; j < rects.getLength(); j++) {
                    Element rect = (Element) rects.item(j);
                    if ("span".equals(rect.getAttribute("class"))) {
                        tips.add(rect.getTextContent());
                    }
                }
            }
            return new Svg(lanes, labels, tips, doc.getDocumentElement().getTextContent());
        }
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

    @Test
    void anUnknownOptionIsNamedWithTheNearestKnownOneNotAskedForAValue() {
        Result r = run(false, "bench", "--mbi", "4");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("sluice: bench: unknown option --mbi (did you mean --mib?)"), r.err());
        Result last = run(false, "check", "--fast");
        assertEquals(2, last.status());
        assertTrue(last.err().contains("unknown option --fast") && !last.err().contains("needs a value"), last.err());
        Result notHis = run(false, "check", "--mib", "4");
        assertTrue(notHis.err().contains("unknown option --mib; its options: --api, --device"), notHis.err());
    }

    @Test
    void aMisspeltCommandOrBackendGetsTheNearestName() {
        Result command = run(false, "bnech");
        assertEquals(2, command.status());
        assertTrue(command.err().startsWith("sluice: no command 'bnech' (did you mean bench?)"), command.err());
        Result api = run(false, "check", "--api", "cdua");
        assertEquals(2, api.status());
        assertTrue(api.err().contains("unknown backend 'cdua' (did you mean cuda?); known: cuda, hip, cpu"), api.err());
        assertFalse(run(false, "check", "--api", "opencl").err().contains("did you mean"), "no name is near opencl");
    }

    @Test
    void versionPrintsTheBuildsVersion() {
        Result r = run(false, "--version");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().matches("sluice \\d+\\.\\d+\\.\\d+\\S*\\R"), "the project's version, filtered in: " + r.out());
    }

    @Test
    void helpOfACommandListsOnlyItsOptionsAsDoesItsHelpOption() {
        Result help = run(false, "help", "bench");
        assertEquals(0, help.status(), help.err());
        assertTrue(help.out().startsWith("usage: sluice bench [--api A]"), help.out());
        assertTrue(help.out().contains("--mib N") && !help.out().contains("detect"), help.out());
        Result option = run(false, "bench", "--help");
        assertEquals(0, option.status());
        assertEquals(help.out(), option.out());
        assertFalse(run(false, "help", "check").out().contains("--mib"), "check takes no --mib");
        Result all = run(false, "--help");
        assertEquals(0, all.status());
        assertTrue(all.out().contains("jfc") && all.out().contains("sluice help COMMAND"), all.out());
    }

    @Test
    void aFailureIsSaidInWordsWithoutExceptionClassNames(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("taken"), "not a folder");
        Result r = run(false, "jfc", "--out", file.toString());
        assertEquals(1, r.status());
        assertEquals("sluice jfc: " + file + ": exists, and is not a directory", r.err().strip());
        assertEquals("plain words", Main.message(new java.util.concurrent.CompletionException(
                new java.io.UncheckedIOException(new java.io.IOException("plain words")))));
    }

    @Test
    void jfcWritesTheFlightRecorderSettingsItsCommentPromises(@TempDir Path dir) throws Exception {
        Result r = run(false, "jfc", "--out", dir.toString());
        assertEquals(0, r.status(), r.err());
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(dir.resolve("sluice.jfc").toFile());
        assertEquals("configuration", doc.getDocumentElement().getTagName());
        assertTrue(Files.readString(dir.resolve("sluice.jfc")).contains("`sluice jfc`"), "the file names this command");
        assertTrue(r.out().contains("jcmd <pid> JFR.start"), r.out());
    }

    @Test
    void traceOnTheCpuSimulatorCaveatsItsTimelineNotFiguresItDoesNotPrint(@TempDir Path dir) {
        Result r = run(false, "trace", "--api", "cpu", "--chunks", "4", "--out", dir.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains(Main.TRACE_CPU_NOTE), r.out());
        assertFalse(r.out().contains("bandwidth") || r.out().contains("launch cost"), r.out());
    }
}
