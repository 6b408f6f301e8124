package dev.sluice.benchmarks;

import dev.sluice.TraceSpan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws trace spans as an SVG timeline: one lane per stream and kind (upload, kernel, download by default),
 * time running right, a millisecond axis, a legend. Plain SVG 1.1 written by hand, no library: it opens in
 * browsers and renders on GitHub.
 */
public final class SvgTimeline {

    /** The kinds drawn, each with its lane name and colour, in lane order within a stream. */
    private static final Map<String, String> COLOURS = new LinkedHashMap<>();

    static {
        COLOURS.put("upload", "#4c78a8");
        COLOURS.put("kernel", "#f58518");
        COLOURS.put("download", "#54a24b");
        COLOURS.put("memset", "#b279a2");
        COLOURS.put("d2d", "#72b7b2");
        COLOURS.put("wait", "#bab0ac");
        COLOURS.put("host", "#e45756");
    }

    private static final int WIDTH = 1200;
    private static final int LEFT = 150;
    private static final int RIGHT = 30;
    private static final int TOP = 64;
    private static final int LANE = 22;
    private static final int GAP = 10;

    private SvgTimeline() {
    }

    /**
     * The SVG of {@code spans}. Lanes are made for the {@code categories} given (span categories: "upload",
     * "kernel", "download"...), for each stream in {@code streams} order; spans of other categories are left
     * out. Times are shown from the earliest span drawn.
     *
     * @param marks vertical lines to draw, at milliseconds from the start, labelled by their keys (the ideal
     *              time, say); may be empty
     */
    public static String render(String title, String subtitle, List<TraceSpan> spans, List<String> streams,
            List<String> categories, Map<String, Double> marks) {
        List<TraceSpan> drawn = spans.stream().filter(s -> categories.contains(s.category()) && streams.contains(s.stream())).toList();
        long t0 = drawn.stream().mapToLong(TraceSpan::startNanos).min().orElse(0);
        long t1 = drawn.stream().mapToLong(TraceSpan::endNanos).max().orElse(t0 + 1);
        double endMs = Math.max((t1 - t0) / 1e6, 1e-3);
        for (double m : marks.values()) {
            endMs = Math.max(endMs, m);
        }
        double tick = niceTick(endMs / 10);
        double axisMs = Math.ceil(endMs / tick) * tick;
        double plot = WIDTH - LEFT - RIGHT;
        double scale = plot / axisMs;

        List<String[]> lanes = new ArrayList<>(); // {stream, category}
        for (String s : streams) {
            for (String c : categories) {
                lanes.add(new String[] {s, c});
            }
        }
        int streamGaps = Math.max(0, streams.size() - 1);
        int height = TOP + lanes.size() * LANE + streamGaps * GAP + 70;

        StringBuilder svg = new StringBuilder(4096 + drawn.size() * 160);
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">%n",
                WIDTH, height, WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s</text>%n", 12, esc(title)));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"42\" fill=\"#555555\">%s</text>%n", 12, esc(subtitle)));

        Map<String, Integer> laneY = new LinkedHashMap<>();
        int y = TOP;
        String previousStream = null;
        for (String[] lane : lanes) {
            if (previousStream != null && !previousStream.equals(lane[0])) {
                y += GAP;
            }
            previousStream = lane[0];
            laneY.put(lane[0] + "\u0000" + lane[1], y);
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                    LEFT, y, plot, LANE, lanes.indexOf(lane) % 2 == 0 ? "#f4f4f4" : "#fafafa"));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 8, y + LANE - 7, esc(lane[0] + " " + lane[1])));
            y += LANE;
        }
        int bottom = y;

        // Grid and axis.
        for (double t = 0; t <= axisMs + tick / 2; t += tick) {
            double x = LEFT + t * scale;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dddddd\"/>%n",
                    x, TOP, x, bottom));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">%s</text>%n",
                    x, bottom + 16, fmt(t)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">time (ms)</text>%n",
                LEFT + plot / 2, bottom + 34));

        // Spans.
        for (TraceSpan s : drawn) {
            Integer ly = laneY.get(s.stream() + "\u0000" + s.category());
            if (ly == null) {
                continue;
            }
            double x = LEFT + (s.startNanos() - t0) / 1e6 * scale;
            double w = Math.max(0.5, s.durationNanos() / 1e6 * scale);
            String tip = s.kind() + (s.label() == null ? "" : " [" + s.label() + "]") + ": "
                    + fmt((s.startNanos() - t0) / 1e6) + " to " + fmt((s.endNanos() - t0) / 1e6) + " ms";
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>%s</title></rect>%n",
                    x, ly + 3, w, LANE - 6, COLOURS.getOrDefault(s.category(), "#888888"), esc(tip)));
        }

        // Marks.
        for (Map.Entry<String, Double> m : marks.entrySet()) {
            double x = LEFT + m.getValue() * scale;
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>%n",
                    x, TOP - 6, x, bottom));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#d62728\">%s</text>%n",
                    x, TOP - 10, esc(m.getKey())));
        }

        // Legend.
        int lx = LEFT;
        int ly = bottom + 52;
        for (String c : categories) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/>%n", lx, ly - 10,
                    COLOURS.getOrDefault(c, "#888888")));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", lx + 20, ly, esc(c)));
            lx += 30 + 8 * c.length() + 20;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    public static void write(Path path, String svg) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(path, svg, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + path, e);
        }
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

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
