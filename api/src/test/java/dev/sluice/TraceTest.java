package dev.sluice;

import static dev.sluice.testing.Attacks.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.sluice.observe.ChromeTraceEvents;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A snapshot's own API, over spans given to it: what it hands the SVG and JSON writers. */
class TraceTest {

    /** An allocation of 21 ms, then a 10 µs upload and a 3 µs kernel, in a context whose name needs escaping. */
    private static Trace trace() {
        List<TraceSpan> spans = List.of(
                new TraceSpan("stream 1", "alloc", null, 0, 21_000_000),
                new TraceSpan("stream 1", "upload", "chunk 0", 21_000_000, 21_010_000),
                new TraceSpan("stream 1", "kernel scale", "chunk 0", 21_010_000, 21_013_000));
        return new Trace("ctx \"a\"", new ChromeTraceEvents("ctx \"a\"", "cpu:0", 1, 0), spans, List.of("stream 1"), 0,
                null, () -> {
                    throw new AssertionError("nothing pending");
                });
    }

    @Test
    void toSvgDrawsOnlyTheWindowOfItsOptions() {
        String svg = trace().toSvg(Trace.SvgOptions.defaults().withWindow(21_000_000, 21_013_000));
        assertEquals(2, svg.split("class=\"span\"", -1).length - 1, "the upload and the kernel, not the allocation: " + svg);
        assertTrue(svg.contains("time (µs) from 21 ms after the context opened"), "says where the axis starts: " + svg);
        assertTrue(svg.contains("ctx &quot;a&quot;"), "the context's name is the default title: " + svg);
    }

    @Test
    void toSvgWithoutAWindowCountsFromTheFirstSpanAndNamesAReplayByWhatItRuns() {
        List<TraceSpan> spans = List.of(new TraceSpan("stream 1", TraceSpan.REPLAY, null, 5_000_000, 6_000_000));
        Trace t = new Trace("ctx", new ChromeTraceEvents("ctx", "cpu:0", 1, 0), spans, List.of("stream 1"), 0, null,
                () -> {
                    throw new AssertionError("nothing pending");
                });
        String svg = t.toSvg(Trace.SvgOptions.defaults());
        assertTrue(svg.contains("time (ms) from the first span drawn"), svg);
        assertTrue(svg.contains(">replay (kernels and copies as one graph)</text>"), "the legend: " + svg);
    }

    @Test
    void toChromeJsonIsJsonWithTheContextNamed() {
        JsonObject json = JsonParser.parseString(trace().toChromeJson()).getAsJsonObject();
        assertEquals("ctx \"a\"", json.getAsJsonObject("otherData").get("context").getAsString());
        assertEquals(1 + 2 + 3, json.getAsJsonArray("traceEvents").size(), "process, stream's name and sort, three spans");
    }

    @Test
    void aWindowThatEndsBeforeItStartsIsRefusedNamingIt() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Trace.SvgOptions.defaults().withWindow(5, 5));
        assertTrue(e.getMessage().contains("toNanos") && e.getMessage().contains("5 ns"), e.getMessage());
    }

    @Test
    void nullDestinationsAndCategoriesAreRefusedNamingThem() {
        // These threw a NullPointerException from inside the writer or List.of.
        assertRefused("path", () -> trace().writeChromeJson((java.nio.file.Path) null), "null");
        assertRefused("out", () -> trace().writeChromeJson((Appendable) null), "null");
        assertRefused("categories", () -> Trace.SvgOptions.defaults().withCategories("kernel", null), "element 1 of 2");
        assertRefused("stream", () -> trace().spans(null), "null"); // an empty list, as for a stream without spans

    }
}
