package dev.sluice.observe;

import dev.sluice.TraceSpan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws a trace's spans as an SVG timeline (for {@code Trace.toSvg}): one lane per stream, each span a
 * bar coloured by its category, time running right on a millisecond axis, a legend. Plain SVG 1.1 written by hand, with
 * no library, so it opens in browsers and renders on GitHub.
 *
 * <p>One lane per stream suffices because a stream runs its operations one after another: its spans do not overlap.
 * Each lane is a {@code <g class="lane">} carrying the stream's name in {@code data-stream}, and each span a
 * {@code <rect class="span">} with its kind, label, times and duration in a {@code <title>} tooltip.
 *
 * <p>The axis spans the trace from its first span drawn to its last, or the window of {@link Options#windowed() windowed}
 * options: spans reaching into the window are drawn cut at its edges, the tooltip keeping their true times. A bar shorter
 * than {@value #MIN_BAR} px at the scale is drawn {@value #MIN_BAR} px wide, so that a short copy or kernel stays
 * visible; its tooltip and the note under the legend say so, and it carries {@code data-widened="true"}.
 */
public final class TraceSvg {

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
        COLOURS.put(TraceSpan.REPLAY, "#8c6d31");
        COLOURS.put(TraceSpan.REPLAY_BUILT, "#8c6d31");
    }

    private static final String OTHER = "#888888";
    private static final int WIDTH = 1200;
    private static final int LEFT = 150;
    private static final int RIGHT = 30;
    private static final int TOP = 64;
    private static final int LANE = 22;
    /** The narrowest bar drawn, in px: narrower ones are widened to it, and said to be. */
    static final double MIN_BAR = 2;

    private TraceSvg() {
    }

    /**
     * How to draw, as {@code Trace.SvgOptions} says, checked there.
     *
     * @param title      the first line; empty for the context's name
     * @param subtitle   the second line; empty for a count of spans and streams
     * @param categories the {@link TraceSpan#category()} values drawn, in legend order; empty for all present
     * @param marks      vertical lines, label to milliseconds from the start of the axis; iterated in its order
     * @param windowed   whether the axis is the window from {@code fromNanos} to {@code toNanos}, rather than from the
     *                   first span drawn to the last
     * @param fromNanos  where a window starts, in the times of {@link TraceSpan#startNanos()}
     * @param toNanos    where a window ends; after {@code fromNanos}
     */
    public record Options(String title, String subtitle, List<String> categories, Map<String, Double> marks,
            boolean windowed, long fromNanos, long toNanos) {
    }

    /**
     * The SVG document of a trace's spans.
     *
     * @param context the context's name, the default title
     * @param spans   the spans, by start time
     * @param streams the streams' names, one lane each, top to bottom
     * @param dropped the older spans the trace let go, said in the default subtitle
     */
    public static String render(String context, List<TraceSpan> spans, List<String> streams, long dropped, Options options) {
        List<String> categories = options.categories().isEmpty() ? present(spans) : options.categories();
        boolean windowed = options.windowed();
        long from = windowed ? options.fromNanos() : Long.MIN_VALUE;
        long to = windowed ? options.toNanos() : Long.MAX_VALUE;
        List<TraceSpan> drawn = spans.stream()
                .filter(s -> categories.contains(s.category()))
                .filter(s -> s.startNanos() <= to && (s.endNanos() > from || s.startNanos() >= from))
                .toList();
        Axis axis = Axis.of(drawn, streams.size(), options);
        String title = options.title().isEmpty() ? context : options.title();
        String subtitle = options.subtitle().isEmpty()
                ? drawn.size() + " spans on " + streams.size() + " streams"
                        + (windowed ? ", " + fmt(from / 1e6) + " to " + fmt(to / 1e6) + " ms of the trace" : "")
                        + (dropped > 0 ? ", " + dropped + " older spans dropped" : "")
                : options.subtitle();

        StringBuilder svg = new StringBuilder(4096 + drawn.size() * 200);
        header(svg, axis, title, subtitle);
        grid(svg, axis, windowed ? " from " + fmt(from / 1e6) + " ms after the context opened" : " from the first span drawn");
        int narrow = 0;
        for (int i = 0; i < streams.size(); i++) {
            narrow += lane(svg, axis, i, streams.get(i), drawn);
        }
        marks(svg, axis, options.marks());
        legend(svg, axis, categories, narrow, drawn.size());
        svg.append("</svg>\n");
        return svg.toString();
    }

    /**
     * Where time and lanes go in the picture.
     *
     * @param t0     the time at the axis's left end, in the spans' nanoseconds
     * @param t1     the time at its right end (spans are cut there)
     * @param tick   the milliseconds between two grid lines
     * @param axisMs the milliseconds the axis spans, a whole number of ticks
     * @param micros whether the axis is labelled in microseconds (under a millisecond: "0.0002" ms reads worse than
     *               "0.2" µs)
     * @param scale  pixels per millisecond
     * @param bottom the y of the lanes' bottom edge
     * @param height the picture's height
     */
    private record Axis(long t0, long t1, double tick, double axisMs, boolean micros, double scale, int bottom, int height) {

        static final double PLOT = WIDTH - LEFT - RIGHT;

        static Axis of(List<TraceSpan> drawn, int lanes, Options options) {
            boolean windowed = options.windowed();
            long t0 = windowed ? options.fromNanos() : drawn.stream().mapToLong(TraceSpan::startNanos).min().orElse(0);
            long t1 = windowed ? options.toNanos() : drawn.stream().mapToLong(TraceSpan::endNanos).max().orElse(t0 + 1);
            double endMs = Math.max((t1 - t0) / 1e6, 1e-3);
            for (double m : options.marks().values()) {
                endMs = Math.max(endMs, m);
            }
            double tick = niceTick(endMs / 10);
            double axisMs = Math.ceil(endMs / tick) * tick;
            int bottom = TOP + lanes * LANE;
            return new Axis(t0, t1, tick, axisMs, axisMs < 1, PLOT / axisMs, bottom, bottom + 90);
        }

        /** The x of {@code ms} milliseconds from the axis's left end. */
        double x(double ms) {
            return LEFT + ms * scale;
        }
    }

    /** The document's opening, its background, title and subtitle. */
    private static void header(StringBuilder svg, Axis axis, String title, String subtitle) {
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">%n",
                WIDTH, axis.height(), WIDTH, axis.height()));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH, axis.height()));
        svg.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s</text>%n", esc(title)));
        svg.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"42\" fill=\"#555555\">%s</text>%n", esc(subtitle)));
    }

    /** The grid and the time axis, drawn under the lanes' bars; {@code origin} says where a window's axis starts. */
    private static void grid(StringBuilder svg, Axis axis, String origin) {
        double unit = axis.micros() ? 1e3 : 1;
        for (int k = 0; k * axis.tick() <= axis.axisMs() + axis.tick() / 2; k++) {
            double t = k * axis.tick();
            double x = axis.x(t);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dddddd\"/>%n",
                    x, TOP, x, axis.bottom()));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">%s</text>%n",
                    x, axis.bottom() + 16, fmt(t * unit)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">time (%s)%s</text>%n",
                LEFT + Axis.PLOT / 2, axis.bottom() + 34, axis.micros() ? "µs" : "ms", origin));
    }

    /** Lane {@code i}, of {@code stream}, with a bar for each of its spans; returns how many bars it widened. */
    private static int lane(StringBuilder svg, Axis axis, int i, String stream, List<TraceSpan> drawn) {
        int y = TOP + i * LANE;
        svg.append("<g class=\"lane\" data-stream=\"").append(esc(stream)).append("\">\n");
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.6\"/>%n",
                LEFT, y, Axis.PLOT, LANE, i % 2 == 0 ? "#f4f4f4" : "#fafafa"));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                LEFT - 8, y + LANE - 7, esc(stream)));
        int narrow = 0;
        for (TraceSpan s : drawn) {
            if (s.stream().equals(stream) && bar(svg, axis, y, s)) {
                narrow++;
            }
        }
        svg.append("</g>\n");
        return narrow;
    }

    /** The bar of span {@code s} in the lane at {@code y}, cut at the axis's ends; whether it was widened to be seen. */
    private static boolean bar(StringBuilder svg, Axis axis, int y, TraceSpan s) {
        long t0 = axis.t0();
        long start = Math.max(s.startNanos(), t0);
        long end = Math.min(s.endNanos(), axis.t1());
        double x = axis.x((start - t0) / 1e6);
        double w = (end - start) / 1e6 * axis.scale();
        boolean widened = w < MIN_BAR;
        if (widened) {
            w = MIN_BAR;
        }
        String tip = s.kind() + (s.label() == null ? "" : " [" + s.label() + "]") + ": "
                + fmt((s.startNanos() - t0) / 1e6) + " to " + fmt((s.endNanos() - t0) / 1e6) + " ms ("
                + duration(s.durationNanos()) + ")" + (widened ? ", drawn " + fmt(MIN_BAR) + " px wide" : "");
        svg.append(String.format(Locale.ROOT,
                "<rect class=\"span\"%s x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"#ffffff\" "
                        + "stroke-width=\"0.5\"><title>%s</title></rect>%n",
                widened ? " data-widened=\"true\"" : "", x, y + 3, w, LANE - 6, COLOURS.getOrDefault(s.category(), OTHER),
                esc(tip)));
        return widened;
    }

    /** The vertical marks, each a dashed line with its label above the lanes. */
    private static void marks(StringBuilder svg, Axis axis, Map<String, Double> marks) {
        for (Map.Entry<String, Double> m : marks.entrySet()) {
            double x = axis.x(m.getValue());
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>%n",
                    x, TOP - 6, x, axis.bottom()));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#d62728\">%s</text>%n",
                    x, TOP - 10, esc(m.getKey())));
        }
    }

    /** The legend of {@code categories}, and the note on the {@code narrow} bars of {@code drawn} widened, if any. */
    private static void legend(StringBuilder svg, Axis axis, List<String> categories, int narrow, int drawn) {
        int lx = LEFT;
        int ly = axis.bottom() + 52;
        for (String c : categories) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/>%n", lx, ly - 10,
                    COLOURS.getOrDefault(c, OTHER)));
            String label = legend(c);
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", lx + 20, ly, esc(label)));
            lx += 30 + 7 * label.length() + 20;
        }
        if (narrow > 0) {
            svg.append(String.format(Locale.ROOT, "<text class=\"note\" x=\"%d\" y=\"%d\" fill=\"#555555\">%s</text>%n", LEFT, ly + 22,
                    esc(narrow + " of " + drawn + " bars are shorter than " + fmt(MIN_BAR) + " px at this scale and drawn "
                            + fmt(MIN_BAR) + " px wide; their tooltips give their true times")));
        }
    }

    /**
     * The legend's words for a category: a replay is the user's kernels and copies, launched as one graph
     * ({@code RepeatedWork}, a pipeline's stage replayed), so the legend says so rather than a word the user never wrote.
     */
    static String legend(String category) {
        return category.equals(TraceSpan.REPLAY) ? "replay (kernels and copies as one graph)" : category;
    }

    /** The categories of the trace's spans, known ones in legend order, then others as they come. */
    private static List<String> present(List<TraceSpan> spans) {
        List<String> seen = new ArrayList<>();
        for (TraceSpan s : spans) {
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

    /** A duration in the unit that reads best: {@code 840 ns}, {@code 21.3 µs}, {@code 4.20 ms}. */
    private static String duration(long nanos) {
        if (nanos < 1_000) {
            return nanos + " ns"; // below 1 µs: GPU event timers resolve about 0.5 µs
        }
        return nanos < 999_500 ? String.format(Locale.ROOT, "%.3g µs", nanos / 1e3) : String.format(Locale.ROOT, "%.3g ms", nanos / 1e6);
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
