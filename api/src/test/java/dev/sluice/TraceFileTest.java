package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.sluice.testing.ExpectWarning;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trace file's writer alone, fed faster than it writes. */
class TraceFileTest {

    @Test
    @ExpectWarning(logger = "dev.sluice.TraceFile", containing = "spans were not written to the trace file")
    void everySpanIsWrittenOrCountedAndTheFileStaysJson(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("trace.json");
        TraceFile file = new TraceFile(path, "ctx \"quoted\"");
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
        TraceFile file = new TraceFile(path, "ctx");
        file.add(new TraceSpan("default", "kernel saxpy", null, 0, 1000));
        file.close();
        file.close();
        JsonArray events = JsonParser.parseString(Files.readString(path)).getAsJsonArray();
        assertEquals(4, events.size(), "the process's name, the stream's name and sort index, the span: " + events);
        assertEquals(1.0, events.get(3).getAsJsonObject().get("dur").getAsDouble());
    }
}
