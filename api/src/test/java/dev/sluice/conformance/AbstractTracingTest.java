package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import dev.sluice.Trace;
import dev.sluice.TraceSpan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tracing ({@link ContextOptions#withTracing(boolean)}): every operation's device start and end, with its
 * stream, kind and label; Chrome trace-event JSON; JDK Flight Recorder events.
 */
public abstract class AbstractTracingTest extends ConformanceBase {

    /** GPU timers resolve about 0.5 µs and spans are read as float milliseconds: allow this much slack. */
    private static final long SLACK_NANOS = 2_000;
    /** How long the second of two traced contexts opens after the first, in the test of their shared clock. */
    private static final long LATER_MILLIS = 50;
    /** How far two contexts' traces may disagree on the host's clock: well under {@link #LATER_MILLIS}. */
    private static final double ALIGNMENT_MICROS = 10_000;

    private DeviceContext traced() {
        return open(ContextOptions.defaults().withTracing(true));
    }

    @Test
    void everyOperationLeavesASpanWithItsStreamAndKind() {
        DeviceContext c = traced();
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.F32, 1024);
        HostBuffer h = c.allocateHost(DType.F32, 1024);
        DeviceEvent e = c.createEvent();
        s.enqueueCopy(h, b);
        s.enqueueLaunch(fn(c, TestKernels.SCALAR_ADD), LaunchConfig.forElements(1024), b, 1024L, 1f);
        s.enqueueMemset(b, 0);
        s.enqueueCopy(b, h);
        s.enqueueRecord(e);
        c.stream().waitFor(e);
        s.enqueueHostFunction(() -> { });
        await(s.enqueueMarker());
        c.synchronize();

        Trace t = c.trace();
        assertTrue(t.isComplete(), "after synchronize every span has resolved: " + t);
        List<String> kinds = t.spans("stream 1").stream().map(TraceSpan::kind).toList();
        assertEquals(List.of("upload", "kernel scalar_add", "memset", "download", "record", "host", "marker"), kinds,
                "spans of stream 1, in stream order");
        assertEquals(List.of("wait"), t.spans("default").stream().map(TraceSpan::kind).toList());
        assertEquals(List.of("default", "stream 1"), t.streams());
        TraceSpan kernel = t.spans("stream 1").get(1);
        assertEquals("kernel", kernel.category());
        assertEquals("scalar_add", kernel.kernelName());
    }

    @Test
    void spansOfAStreamFollowEachOtherAndNeverEndBeforeTheyStart() {
        DeviceContext c = traced();
        List<DeviceStream> streams = List.of(c.createStream(), c.createStream());
        List<DeviceBuffer> buffers = new ArrayList<>();
        for (DeviceStream s : streams) {
            DeviceBuffer b = c.allocate(DType.F32, 4096);
            buffers.add(b);
            for (int i = 0; i < 20; i++) {
                s.enqueueFill(b, i);
                s.enqueueLaunch(fn(c, TestKernels.SCALAR_ADD), LaunchConfig.forElements(4096), b, 4096L, 1f);
            }
        }
        c.synchronize();
        Trace t = c.trace();
        for (DeviceStream s : streams) {
            String name = t.streams().get(streams.indexOf(s));
            List<TraceSpan> spans = t.spans(name);
            assertEquals(40, spans.size(), "one span per operation on " + name);
            for (int i = 0; i < spans.size(); i++) {
                TraceSpan sp = spans.get(i);
                assertTrue(sp.endNanos() >= sp.startNanos(), "span ends before it starts: " + sp);
                assertEquals(i % 2 == 0 ? "memset" : "kernel scalar_add", sp.kind(), "span " + i + " of " + name);
                if (i > 0) {
                    TraceSpan prev = spans.get(i - 1);
                    assertTrue(sp.startNanos() + SLACK_NANOS >= prev.endNanos(),
                            "operations of one stream do not overlap: " + prev + " then " + sp);
                }
            }
        }
    }

    @Test
    void aKernelSpanCoversItsDeviceTimeAndAWaitSpanCoversTheWait() {
        DeviceContext c = traced();
        DeviceStream a = c.createStream();
        DeviceStream b = c.createStream();
        DeviceBuffer out = c.allocate(DType.I32, 16);
        slowFill(a, out, 7, Duration.ofMillis(60));
        b.waitFor(a);
        await(b.enqueueMarker());
        Trace t = c.trace().completed().join();
        TraceSpan kernel = t.spans("stream 1").get(0);
        assertEquals("kernel slow_fill", kernel.kind());
        assertTrue(kernel.durationNanos() >= 50_000_000L, "a 60 ms kernel spans " + kernel.durationNanos() + " ns");
        TraceSpan wait = t.spans("stream 2").get(0);
        assertEquals("wait", wait.kind());
        assertTrue(wait.endNanos() + SLACK_NANOS >= kernel.endNanos(), "the wait ends after the kernel: " + wait + ", " + kernel);
    }

    @Test
    void labelsGoWithTheOperationsEnqueuedInTheirScope() {
        DeviceContext c = traced();
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 64);
        s.enqueueMemset(b, 1);
        try (var outer = s.label("chunk 3")) {
            s.enqueueMemset(b, 2);
            try (var inner = s.label("inner")) {
                s.enqueueMemset(b, 3);
            }
            assertEquals("chunk 3", s.currentLabel());
            s.enqueueMemset(b, 4);
        }
        assertNull(s.currentLabel());
        await(s.enqueueMemset(b, 5));
        c.synchronize();
        List<String> labels = new ArrayList<>();
        for (TraceSpan sp : c.trace().spans("stream 1")) {
            labels.add(sp.label());
        }
        assertEquals(java.util.Arrays.asList(null, "chunk 3", "inner", "chunk 3", null), labels);
    }

    @Test
    void aSnapshotHoldsWhatHasFinishedAndCompletesWithWhatWasPending() throws Exception {
        DeviceContext c = traced();
        DeviceStream s = c.createStream();
        DeviceBuffer out = c.allocate(DType.I32, 16);
        await(s.enqueueMemset(out, 0));
        slowFill(s, out, 1, Duration.ofMillis(200));
        Trace early = c.trace();
        assertFalse(early.isComplete(), "a 200 ms kernel is still running");
        assertTrue(early.spans().stream().noneMatch(sp -> sp.kind().equals("kernel slow_fill")),
                "an unfinished operation has no span yet");
        Trace later = early.completed().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(later.spans().stream().anyMatch(sp -> sp.kind().equals("kernel slow_fill")),
                "the completed snapshot holds the kernel: " + later.spans());
    }

    @Test
    void theTraceStaysReadableAfterTheContextCloses() {
        DeviceContext c = traced();
        DeviceBuffer b = c.allocate(DType.I32, 16);
        await(c.stream().enqueueMemset(b, 1));
        c.close();
        Trace t = c.trace();
        assertEquals(1, t.spans().size(), t.spans().toString());
    }

    @Test
    void chromeJsonParsesAndHasOneThreadPerStream(@TempDir Path dir) throws Exception {
        DeviceContext c = traced();
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.F32, 256);
        try (var l = s.label("quote \" backslash \\ newline \n")) {
            s.enqueueFill(b, 1f);
        }
        c.stream().enqueueFill(b, 2f);
        c.synchronize();
        Path file = dir.resolve("trace.json");
        c.trace().writeChromeJson(file);

        JsonArray events = JsonParser.parseString(Files.readString(file)).getAsJsonObject().getAsJsonArray("traceEvents");
        Map<Long, String> threads = new LinkedHashMap<>();
        List<JsonObject> spans = new ArrayList<>();
        for (JsonElement e : events) {
            JsonObject ev = e.getAsJsonObject();
            if (ev.has("name") && ev.get("name").getAsString().equals("thread_name")) {
                threads.put(ev.get("tid").getAsLong(), ev.getAsJsonObject("args").get("name").getAsString());
            } else if (ev.has("ph") && ev.get("ph").getAsString().equals("X")) {
                spans.add(ev);
            }
        }
        String device = c.backendName() + ":" + c.id();
        assertEquals(2, threads.size(), "a thread per stream: " + threads);
        List<String> names = List.copyOf(threads.values());
        assertTrue(names.get(0).startsWith("default [" + device + " #") && names.get(1).startsWith("stream 1 [" + device + " #"),
                "each thread named after its stream, device and context: " + names);
        assertEquals(2, spans.size());
        for (JsonObject sp : spans) {
            assertEquals("memset", sp.get("name").getAsString());
            assertTrue(sp.get("dur").getAsDouble() >= 0);
            assertTrue(threads.containsKey(sp.get("tid").getAsLong()), "span on a named thread: " + sp);
        }
        JsonObject args = spans.stream().filter(sp -> sp.has("args")).findFirst().orElseThrow().getAsJsonObject("args");
        assertEquals("quote \" backslash \\ newline \n", args.get("label").getAsString());
    }

    @Test
    void chromeJsonOfTwoContextsMergesWithTheRealProcessIdDistinctThreadsAndOneClock() throws Exception {
        DeviceContext first = traced();
        Thread.sleep(LATER_MILLIS); // each trace counts from its own base: only a shared clock puts the second's span later
        DeviceContext second = traced();
        DeviceBuffer a = first.allocate(DType.I32, 64);
        DeviceBuffer b = second.allocate(DType.I32, 64);
        await(first.stream().enqueueMemset(a, 1));
        await(second.stream().enqueueMemset(b, 2)); // after the first's memset has finished, on the host's clock
        first.synchronize();
        second.synchronize();

        Map<Long, String> threads = new LinkedHashMap<>();
        List<List<JsonObject>> memsets = new ArrayList<>();
        for (DeviceContext c : List.of(first, second)) {
            List<JsonObject> mine = new ArrayList<>();
            JsonArray events = JsonParser.parseString(c.trace().toChromeJson()).getAsJsonObject().getAsJsonArray("traceEvents");
            for (JsonElement e : events) {
                JsonObject ev = e.getAsJsonObject();
                assertEquals(ProcessHandle.current().pid(), ev.get("pid").getAsLong(), "the real process id: " + ev);
                if (ev.get("name").getAsString().equals("thread_name")) {
                    String before = threads.put(ev.get("tid").getAsLong(), ev.getAsJsonObject("args").get("name").getAsString());
                    assertNull(before, "no thread id in both contexts' traces: " + ev);
                } else if (ev.get("name").getAsString().equals("memset")) {
                    mine.add(ev);
                }
            }
            memsets.add(mine);
        }
        assertEquals(threads.size(), new java.util.HashSet<>(threads.values()).size(), "thread names differ: " + threads);
        JsonObject one = memsets.get(0).getLast();
        JsonObject two = memsets.get(1).getLast();
        // Each context reads its base against the host's clock; on a loaded host that reading is late by up to a few
        // hundred microseconds, well under the time between the two contexts' bases that a shared clock must bridge.
        assertTrue(two.get("ts").getAsDouble() + ALIGNMENT_MICROS >= one.get("ts").getAsDouble() + one.get("dur").getAsDouble(),
                "the second context's memset, enqueued after the first's had finished, starts after it on the shared clock: "
                        + one + " then " + two);
    }

    @Test
    void flightRecorderGetsOneEventPerSpanWhileRecording(@TempDir Path dir) throws Exception {
        DeviceContext c = traced();
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 64);
        Path file = dir.resolve("sluice.jfr");
        try (Recording r = new Recording()) {
            r.enable("dev.sluice.DeviceOperation");
            r.start();
            try (var l = s.label("jfr")) {
                for (int i = 0; i < 5; i++) {
                    s.enqueueMemset(b, i);
                }
            }
            c.synchronize();
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.sluice.DeviceOperation"))
                .filter(e -> "jfr".equals(e.getString("label")))
                .toList();
        assertEquals(5, events.size(), "one event per memset: " + events);
        RecordedEvent e = events.get(0);
        assertEquals("memset", e.getString("kind"));
        assertEquals("stream 1", e.getString("stream"));
        assertNotNull(e.getString("context"));
        assertTrue(e.getLong("deviceEnd") >= e.getLong("deviceStart"));
    }

    @Test
    void aTraceCapacityKeepsOnlyTheLatestSpansAndCountsTheRest() {
        DeviceContext c = open(ContextOptions.defaults().withTraceCapacity(8));
        assertTrue(c.isTracing(), "a capacity switches tracing on");
        DeviceBuffer b = c.allocate(DType.I32, 64);
        for (int i = 0; i < 30; i++) {
            try (var l = c.stream().label("op " + i)) {
                c.stream().enqueueMemset(b, i);
            }
        }
        c.synchronize();
        Trace t = c.trace();
        assertEquals(8, t.spans().size(), t.spans().toString());
        assertTrue(t.dropped() >= 22, "the allocation and 22 memsets let go: " + t.dropped());
        assertEquals("op 29", t.spans().get(7).label(), "the newest span is kept");
        assertEquals(List.of("op 22", "op 23", "op 24", "op 25", "op 26", "op 27", "op 28", "op 29"),
                t.spans().stream().map(TraceSpan::label).toList(), "the latest eight, oldest first");
    }

    @Test
    void aTraceFileHoldsEverySpanAsJsonWhileTheRingKeepsItsBound(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("trace.json");
        DeviceContext c = open(ContextOptions.defaults().withTraceCapacity(8).withTraceFile(file));
        DeviceStream s2 = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 64);
        for (int i = 0; i < 30; i++) {
            DeviceStream s = i % 2 == 0 ? c.stream() : s2;
            try (var l = s.label("op " + i)) {
                s.enqueueMemset(b, i);
            }
        }
        c.synchronize();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(file).contains("\"op 29\"") && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(Files.readString(file).contains("\"op 29\""), "spans reach the file while the context is open");
        assertEquals(8, c.trace().spans().size(), "the ring keeps its bound");
        c.close();

        JsonArray events = JsonParser.parseString(Files.readString(file)).getAsJsonArray();
        List<String> labels = new ArrayList<>();
        Map<Integer, String> threads = new LinkedHashMap<>();
        for (JsonElement el : events) {
            JsonObject e = el.getAsJsonObject();
            if (e.get("ph").getAsString().equals("X") && e.has("args")) {
                labels.add(e.getAsJsonObject("args").get("label").getAsString());
                assertTrue(e.get("dur").getAsDouble() >= 0);
            } else if (e.get("name").getAsString().equals("thread_name")) {
                threads.put(e.get("tid").getAsInt(), e.getAsJsonObject("args").get("name").getAsString());
            }
            assertFalse(e.get("name").getAsString().equals("sluice_unwritten_spans"), "nothing left out: " + e);
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            expected.add("op " + i);
        }
        assertEquals(expected, labels.stream().sorted(java.util.Comparator.comparingInt(l -> Integer.parseInt(l.substring(3)))).toList(),
                "every labelled span, once");
        assertTrue(threads.values().stream().anyMatch(n -> n.startsWith(s2.name() + " [")) && threads.size() >= 2,
                "a thread per stream: " + threads);
    }

    @Test
    void aTraceFileThatCannotBeOpenedIsRefusedNamingIt(@TempDir Path dir) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> ContextOptions.defaults().withTraceFile(null));
        assertMentions(e, "traceFile", "null");
        Path missing = dir.resolve("no such folder").resolve("trace.json");
        e = assertThrows(InvalidArgumentException.class, () -> open(ContextOptions.defaults().withTraceFile(missing)));
        assertMentions(e, "traceFile", missing.toString());
    }

    @Test
    void svgParsesWithOneLanePerStreamAndEverySpanDrawn(@TempDir Path dir) throws Exception {
        DeviceContext c = traced();
        DeviceStream s = c.createStream();
        DeviceStream s2 = c.createStream();
        DeviceBuffer b = c.allocate(DType.F32, 1024);
        HostBuffer h = c.allocateHost(DType.F32, 1024);
        DeviceEvent e = c.createEvent();
        try (var l = s.label("<chunk & \"0\">")) {
            s.enqueueCopy(h, b);
            s.enqueueLaunch(fn(c, TestKernels.SCALAR_ADD), LaunchConfig.forElements(1024), b, 1024L, 1f);
            s.enqueueRecord(e);
        }
        s2.waitFor(e);
        s2.enqueueCopy(b, h);
        c.synchronize();
        Trace t = c.trace();
        Path file = dir.resolve("trace.svg");
        t.writeSvg(file);

        javax.xml.parsers.DocumentBuilderFactory f = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        org.w3c.dom.Document doc = f.newDocumentBuilder().parse(file.toFile());
        assertEquals("svg", doc.getDocumentElement().getLocalName());
        org.w3c.dom.NodeList groups = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
        List<String> lanes = new ArrayList<>();
        int bars = 0;
        List<String> tips = new ArrayList<>();
        for (int i = 0; i < groups.getLength(); i++) {
            org.w3c.dom.Element g = (org.w3c.dom.Element) groups.item(i);
            if (!"lane".equals(g.getAttribute("class"))) {
                continue;
            }
            lanes.add(g.getAttribute("data-stream"));
            org.w3c.dom.NodeList rects = g.getElementsByTagNameNS("http://www.w3.org/2000/svg", "rect");
            for (int j = 0; j < rects.getLength(); j++) {
                org.w3c.dom.Element r = (org.w3c.dom.Element) rects.item(j);
                if ("span".equals(r.getAttribute("class"))) {
                    bars++;
                    assertTrue(Double.parseDouble(r.getAttribute("width")) > 0, "a bar has a width: " + r.getTextContent());
                    tips.add(r.getTextContent());
                }
            }
        }
        assertEquals(t.streams(), lanes, "one lane per stream, in trace order");
        assertEquals(t.spans().size(), bars, "every span drawn: " + tips);
        assertTrue(tips.stream().anyMatch(x -> x.startsWith("kernel ") && x.contains("[<chunk & \"0\">]")),
                "the label survives escaping: " + tips);
        assertTrue(tips.stream().anyMatch(x -> x.startsWith("wait")), "waits are drawn: " + tips);

        Trace kernels = t.select(sp -> sp.category().equals(TraceSpan.KERNEL));
        assertEquals(List.of("stream 1"), kernels.streams(), "a selection keeps the streams it draws");
        String only = kernels.toSvg(Trace.SvgOptions.defaults().withTitle("kernels", "").withMark("deadline", 1.0));
        assertEquals(1, only.split("class=\"span\"", -1).length - 1, only);
        assertTrue(only.contains(">deadline<") && only.contains(">kernels<"), only);
    }

    @Test
    void badTraceCapacityAndSvgOptionsAreRefusedNamingTheArgument() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> ContextOptions.defaults().withTraceCapacity(0));
        assertMentions(e, "traceCapacity", "0", "1.." + ContextOptions.MAX_TRACE_CAPACITY);
        e = assertThrows(InvalidArgumentException.class, () -> Trace.SvgOptions.defaults().withMark("late", Double.NaN));
        assertMentions(e, "marks", "late", "NaN");
    }

    @Test
    void withTracingOffThereIsNoTrace() {
        assertFalse(ctx.isTracing());
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        await(ctx.stream().enqueueMemset(b, 1));
        IllegalStateException e = assertThrows(IllegalStateException.class, ctx::trace);
        assertMentions(e, "tracing is off", "withTracing(true)");
        try (var l = ctx.stream().label("ignored")) {
            assertEquals("ignored", ctx.stream().currentLabel(), "labels work, and cost nothing, with tracing off");
            await(ctx.stream().enqueueMemset(b, 2));
        }
    }
}
