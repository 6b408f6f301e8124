package dev.sluice.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.TraceSpan;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The SVG timeline's scale: a window of the trace, and bars too short to see. */
class TraceSvgTest {

    /** A 21 ms allocation, then three chunks of upload, kernel and download of a few microseconds each. */
    private static List<TraceSpan> pipeline() {
        List<TraceSpan> spans = new ArrayList<>();
        spans.add(new TraceSpan("stream 1", "alloc", null, 0, 21_000_000));
        long t = 21_000_000;
        for (int k = 0; k < 3; k++) {
            spans.add(new TraceSpan("stream 1", "upload", "chunk " + k, t, t + 10_000));
            spans.add(new TraceSpan("stream 1", "kernel scale", "chunk " + k, t + 10_000, t + 13_000));
            spans.add(new TraceSpan("stream 1", "download", "chunk " + k, t + 13_000, t + 23_000));
            t += 23_000;
        }
        return spans;
    }

    /** The pipeline drawn over the window from {@code fromNanos} to {@code toNanos}. */
    private static String svg(long fromNanos, long toNanos) {
        return svg(new TraceSvg.Options("", "", List.of(), Map.of(), true, fromNanos, toNanos));
    }

    /** The pipeline drawn whole. */
    private static String svg() {
        return svg(new TraceSvg.Options("", "", List.of(), Map.of(), false, 0, 0));
    }

    private static String svg(TraceSvg.Options options) {
        return TraceSvg.render("ctx", pipeline(), List.of("stream 1"), 0, options);
    }

    /** Each bar: its tooltip, width, and whether it is marked widened. */
    private record Bar(String tip, double width, boolean widened) {
    }

    private static List<Bar> bars(String svg) throws Exception {
        NodeList rects = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8))).getElementsByTagName("rect");
        List<Bar> bars = new ArrayList<>();
        for (int i = 0; i < rects.getLength(); i++) {
            Element r = (Element) rects.item(i);
            if ("span".equals(r.getAttribute("class"))) {
                bars.add(new Bar(r.getTextContent(), Double.parseDouble(r.getAttribute("width")),
                        "true".equals(r.getAttribute("data-widened"))));
            }
        }
        return bars;
    }

    @Test
    void aWindowDrawsOnlyItsSpansAcrossTheWholeAxis() throws Exception {
        String svg = svg(21_000_000, 21_069_000);
        List<Bar> bars = bars(svg);
        assertEquals(9, bars.size(), "the three chunks' nine operations, not the allocation: " + bars);
        assertTrue(bars.stream().noneMatch(b -> b.tip().startsWith("alloc")), bars.toString());
        Bar kernel = bars.stream().filter(b -> b.tip().startsWith("kernel")).findFirst().orElseThrow();
        assertTrue(kernel.width() > 20, "a 3 µs kernel in a 69 µs window is wide enough to read: " + kernel);
        assertFalse(kernel.widened());
        assertTrue(svg.contains("time (µs)"), "a window under a millisecond counts microseconds");
    }

    @Test
    void aSpanReachingIntoTheWindowIsCutAtItsEdgeAndKeepsItsTrueTimes() throws Exception {
        List<Bar> bars = bars(svg(20_000_000, 21_010_000));
        Bar alloc = bars.getFirst();
        assertTrue(alloc.tip().startsWith("alloc: -20 to 1 ms (21.0 ms)"), "true times, from the window's start: " + alloc);
        assertTrue(alloc.width() < 1020 && alloc.width() > 800, "drawn cut, from the window's start: " + alloc);
    }

    @Test
    void barsShorterThanTwoPixelsAreDrawnTwoPixelsWideAndSaySo() throws Exception {
        String svg = svg();
        List<Bar> bars = bars(svg);
        Bar kernel = bars.stream().filter(b -> b.tip().startsWith("kernel")).findFirst().orElseThrow();
        assertEquals(TraceSvg.MIN_BAR, kernel.width(), "a 3 µs kernel beside a 21 ms allocation: " + kernel);
        assertTrue(kernel.widened() && kernel.tip().contains("(3.00 µs), drawn 2 px wide"), "the tooltip is honest: " + kernel);
        assertFalse(bars.getFirst().widened(), "the allocation is drawn as long as it is");
        assertTrue(svg.contains("9 of 10 bars are shorter than 2 px at this scale and drawn 2 px wide"), svg);
    }
}
