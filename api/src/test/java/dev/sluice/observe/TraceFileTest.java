package dev.sluice.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.sluice.TraceSpan;
import dev.sluice.testing.ExpectWarning;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trace file's writer alone, fed faster than it writes; the ids that let files merge. */
class TraceFileTest {

    private static ChromeTraceEvents events(int context) {
        return new ChromeTraceEvents("ctx " + context, "cpu:0", context, 5_000_000_000L);
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.observe.TraceFile", containing = "spans were not written to the trace file")
    void everySpanIsWrittenOrCountedAndTheFileStaysJson(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("trace.json");
        TraceFile file = new TraceFile(path, "ctx \"quoted\"", events(1));
        int spans = 4 * TraceFile.QUEUE_CAPACITY; // added far faster than formatted: the writer falls behind
        for (int i = 0; i < spans; i++) {
            file.add(new TraceSpan(i % 2 == 0 ? "default" : "stream 1", "marker", "op " + i, i * 10L, i * 10L + 5));
        }
        file.close();

        JsonArray events = JsonParser.parseString(Files.readString(path)).getAsJsonArray();
        long written = 0;
        long unwritten = 0;
        int threads = 0;
        for (JsonElement el : events) {
            JsonObject e = el.getAsJsonObject();
            String name = e.get("name").getAsString();
            if (e.get("ph").getAsString().equals("X")) {
                written++;
            } else if (name.equals("sluice_unwritten_spans")) {
                unwritten = e.getAsJsonObject("args").get("count").getAsLong();
            } else if (name.equals("thread_name")) {
                threads++;
            }
        }
        assertEquals(spans, written + unwritten, written + " written, " + unwritten + " counted as not written");
        assertTrue(written >= TraceFile.QUEUE_CAPACITY, "at least a queue's worth is written: " + written);
        assertEquals(2, threads, "one thread name per stream");
    }

    @Test
    void closingTwiceWritesTheEndOnce(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("trace.json");
        TraceFile file = new TraceFile(path, "ctx", events(1));
        file.add(new TraceSpan("default", "kernel saxpy", null, 0, 1000));
        file.close();
        file.close();
        JsonArray events = JsonParser.parseString(Files.readString(path)).getAsJsonArray();
        assertEquals(4, events.size(), "the process's name, the stream's name and sort index, the span: " + events);
        assertEquals(1.0, events.get(3).getAsJsonObject().get("dur").getAsDouble());
    }

    @Test
    void filesOfTwoContextsMergeWithTheProcessIdAndThreadIdsOfTheirOwn(@TempDir Path dir) throws Exception {
        List<JsonObject> merged = new ArrayList<>();
        for (int context = 1; context <= 2; context++) {
            Path path = dir.resolve("trace" + context + ".json");
            TraceFile file = new TraceFile(path, "ctx " + context, events(context));
            file.add(new TraceSpan("default", "memset", null, 1_000, 2_500));
            file.add(new TraceSpan("stream 1", "upload", null, 3_000, 4_000));
            file.close();
            for (JsonElement e : JsonParser.parseString(Files.readString(path)).getAsJsonArray()) {
                merged.add(e.getAsJsonObject());
            }
        }
        Map<Long, String> threads = new HashMap<>();
        Set<Long> spanTids = new HashSet<>();
        for (JsonObject e : merged) {
            assertEquals(ProcessHandle.current().pid(), e.get("pid").getAsLong(), "the real process id: " + e);
            if (e.get("name").getAsString().equals("thread_name")) {
                String before = threads.put(e.get("tid").getAsLong(), e.getAsJsonObject("args").get("name").getAsString());
                assertNull(before, "a thread id named once over both files: " + e);
            } else if (e.get("ph").getAsString().equals("X")) {
                assertTrue(spanTids.add(e.get("tid").getAsLong()), "one span per stream and context: " + e);
            }
        }
        assertEquals(4, spanTids.size(), "two streams in each of two contexts, four threads: " + merged);
        assertEquals(threads.keySet(), spanTids, "every span on a named thread");
        assertEquals(4, new HashSet<>(threads.values()).size(), "four distinct thread names: " + threads);
        assertTrue(threads.containsValue("stream 1 [cpu:0 #2]"), "stream, device, context: " + threads);
        JsonObject first = merged.stream().filter(e -> e.get("ph").getAsString().equals("X")).findFirst().orElseThrow();
        assertEquals("5000001.000", first.get("ts").getAsBigDecimal().toPlainString(),
                "microseconds on the host clock: the trace base (5 s) plus the span's start (1 µs)");
    }
}
