package dev.sluice;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws a {@link Trace} as an SVG timeline ({@link Trace#toSvg(Trace.SvgOptions)}): one lane per stream, each span a
 * bar coloured by its category, time running right on a millisecond axis, a legend. Plain SVG 1.1 written by hand, with
 * no library, so it opens in browsers and renders on GitHub.
 *
 * <p>One lane per stream suffices because a stream runs its operations one after another: its spans do not overlap.
 * Each lane is a {@code <g class="lane">} carrying the stream's name in {@code data-stream}, and each span a
 * {@code <rect class="span">} with its kind, label and times in a {@code <title>} tooltip.
 */
final class TraceSvg {

    /** The colour of each category, in legend order; a category not listed is drawn grey. */
    private static final Map<String, String> COLOURS = new LinkedHashMap<>();

    static {
        COLOURS.put(TraceSpan.UPLOAD, "#4c78a8");
        COLOURS.put(TraceSpan.KERNEL, "#f58518");
        COLOURS.put(TraceSpan.DOWNLOAD, "#54a24b");
        COLOURS.put(TraceSpan.DEVICE_TO_DEVICE, "#72b7b2");
        COLOURS.put(TraceSpan.PEER, "#9ecae9");
        COLOURS.put(TraceSpan.PEER_STAGED, "#6baed6");
        COLOURS.put(TraceSpan.MEMSET, "#b279a2");
        COLOURS.put(TraceSpan.WAIT, "#bab0ac");
        COLOURS.put(TraceSpan.HOST, "#e45756");
        COLOURS.put(TraceSpan.RECORD, "#eeca3b");
        COLOURS.put(TraceSpan.MARKER, "#d6d6d6");
        COLOURS.put(TraceSpan.ALLOC, "#ff9da6");
        COLOURS.put(TraceSpan.FREE, "#9d755d");
        COLOURS.put(TraceSpan.GRAPH, "#8c6d31");
    }

    private static final String OTHER = "#888888";
    private static final int WIDTH = 1200;
    private static final int LEFT = 150;
    private static final int RIGHT = 30;
    private static final int TOP = 64;
    private static final int LANE = 22;

    private TraceSvg() {
    }

    static String render(Trace trace, Trace.SvgOptions options) {
        List<String> categories = options.categories().isEmpty() ? present(trace) : options.categories();
        List<TraceSpan> drawn = trace.spans().stream().filter(s -> categories.contains(s.category())).toList();
        List<String> streams = trace.streams();
        long t0 = drawn.stream().mapToLong(TraceSpan::startNanos).min().orElse(0);
        long t1 = drawn.stream().mapToLong(TraceSpan::endNanos).max().orElse(t0 + 1);
        double endMs = Math.max((t1 - t0) / 1e6, 1e-3);
        for (double m : options.marks().values()) {
            endMs = Math.max(endMs, m);
        }
        double tick = niceTick(endMs / 10);
        double axisMs = Math.ceil(endMs / tick) * tick;
        double plot = WIDTH - LEFT - RIGHT;
        double scale = plot / axisMs;
        int bottom = TOP + streams.size() * LANE;
        int height = bottom + 70;
        String title = options.title().isEmpty() ? trace.context() : options.title();
        String subtitle = options.subtitle().isEmpty()
                ? drawn.size() + " spans on " + streams.size() + " streams"
                        + (trace.dropped() > 0 ? ", " + trace.dropped() + " older spans dropped" : "")
                : options.subtitle();

        StringBuilder svg = new StringBuilder(4096 + drawn.size() * 200);
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">%n",
                WIDTH, height, WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s</text>%n", esc(title)));
        svg.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"42\" fill=\"#555555\">%s</text>%n", esc(subtitle)));

        // Grid and axis, under the lanes' bars.
        for (double t = 0; t <= axisMs + tick / 2; t += tick) {
            double x = LEFT + t * scale;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dddddd\"/>%n",
                    x, TOP, x, bottom));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">%s</text>%n",
                    x, bottom + 16, fmt(t)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">time (ms)</text>%n",
                LEFT + plot / 2, bottom + 34));

        for (int i = 0; i < streams.size(); i++) {
            String stream = streams.get(i);
            int y = TOP + i * LANE;
            svg.append("<g class=\"lane\" data-stream=\"").append(esc(stream)).append("\">\n");
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.6\"/>%n",
                    LEFT, y, plot, LANE, i % 2 == 0 ? "#f4f4f4" : "#fafafa"));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 8, y + LANE - 7, esc(stream)));
            for (TraceSpan s : drawn) {
                if (!s.stream().equals(stream)) {
                    continue;
                }
                double x = LEFT + (s.startNanos() - t0) / 1e6 * scale;
                double w = Math.max(0.5, s.durationNanos() / 1e6 * scale);
                String tip = s.kind() + (s.label() == null ? "" : " [" + s.label() + "]") + ": "
                        + fmt((s.startNanos() - t0) / 1e6) + " to " + fmt((s.endNanos() - t0) / 1e6) + " ms";
                svg.append(String.format(Locale.ROOT,
                        "<rect class=\"span\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"#ffffff\" "
                                + "stroke-width=\"0.5\"><title>%s</title></rect>%n",
                        x, y + 3, w, LANE - 6, COLOURS.getOrDefault(s.category(), OTHER), esc(tip)));
            }
            svg.append("</g>\n");
        }

        for (Map.Entry<String, Double> m : options.marks().entrySet()) {
            double x = LEFT + m.getValue() * scale;
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>%n",
                    x, TOP - 6, x, bottom));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#d62728\">%s</text>%n",
                    x, TOP - 10, esc(m.getKey())));
        }

        int lx = LEFT;
        int ly = bottom + 52;
        for (String c : categories) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/>%n", lx, ly - 10,
                    COLOURS.getOrDefault(c, OTHER)));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", lx + 20, ly, esc(c)));
            lx += 30 + 8 * c.length() + 20;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** The categories of the trace's spans, known ones in legend order, then others as they come. */
    private static List<String> present(Trace trace) {
        List<String> seen = new ArrayList<>();
        for (TraceSpan s : trace.spans()) {
            if (!seen.contains(s.category())) {
                seen.add(s.category());
            }
        }
        List<String> ordered = new ArrayList<>();
        for (String c : COLOURS.keySet()) {
            if (seen.remove(c)) {
                ordered.add(c);
            }
        }
        ordered.addAll(seen);
        return ordered;
    }

    /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
    static double niceTick(double raw) {
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= raw) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String fmt(double ms) {
        if (ms == Math.rint(ms)) {
            return String.format(Locale.ROOT, "%.0f", ms);
        }
        return ms >= 10 ? String.format(Locale.ROOT, "%.1f", ms) : String.format(Locale.ROOT, "%.3g", ms);
    }

    /** Escapes text for XML, dropping the control characters XML 1.0 cannot hold at all. */
    private static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                default -> {
                    if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }
}
