package dev.sluice;

import dev.sluice.observe.ChromeTraceEvents;
import dev.sluice.observe.TraceSvg;
import dev.sluice.observe.Tracer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a traced context's device timeline ({@link DeviceContext#trace()}): the {@link TraceSpan}s of
 * the operations that have finished, in order of start time.
 *
 * <p>Spans resolve lazily, on the context's completion thread, when each operation's end marker completes.
 * A snapshot taken while work is in flight therefore holds only what has finished; {@link #completed()}
 * gives a later snapshot that holds every operation enqueued before this one was taken. After
 * {@link DeviceContext#synchronize()} every span is resolved. Operations whose future failed (a device
 * fault) leave no span; a cancelled future's operation gets its span once the device has finished it.
 *
 * <p>A context keeps the latest {@link ContextOptions#traceCapacity()} spans (a ring, {@value
 * ContextOptions#DEFAULT_TRACE_CAPACITY} by default); {@link #dropped()} counts older ones let go. JDK Flight Recorder receives every span, as a {@code dev.sluice.DeviceOperation} event, while it
 * records.
 */
public final class Trace {

    private final String context;
    private final ChromeTraceEvents events;
    private final List<TraceSpan> spans;
    private final List<String> streams;
    private final long dropped;
    private final boolean complete;
    private final CompletableFuture<Trace> completed;

    /**
     * @param events      the context's process, thread ids and clock in Chrome trace JSON
     * @param pendingDone completes once every operation pending at the snapshot has resolved; null if none was
     * @param next        takes the later snapshot
     */
    Trace(String context, ChromeTraceEvents events, List<TraceSpan> spans, List<String> streams, long dropped,
            @Nullable CompletableFuture<?> pendingDone, Supplier<Trace> next) {
        this.context = context;
        this.events = events;
        this.spans = List.copyOf(spans.stream()
                .sorted(Comparator.comparingLong(TraceSpan::startNanos).thenComparingLong(TraceSpan::endNanos))
                .toList());
        this.streams = List.copyOf(streams);
        this.dropped = dropped;
        this.complete = pendingDone == null;
        this.completed = pendingDone == null ? CompletableFuture.completedFuture(this) : pendingDone.thenApply(v -> next.get());
    }

    /** A snapshot of what {@code tracer} has recorded so far. */
    static Trace of(Tracer tracer) {
        Tracer.Snapshot s = tracer.snapshot();
        return new Trace(tracer.contextName(), tracer.events(), s.spans(), s.streams(), s.dropped(), s.pending(),
                () -> of(tracer));
    }

    /** The traced context, as its {@code toString()} and device name read. */
    public String context() {
        return context;
    }

    /** The resolved spans, by start time, then end time. */
    public List<TraceSpan> spans() {
        return spans;
    }

    /** The names of the streams that have spans, in the order the streams were created. */
    public List<String> streams() {
        return streams;
    }

    /**
     * The spans of {@code stream}, by start time.
     *
     * @throws InvalidArgumentException naming {@code stream} for null
     */
    public List<TraceSpan> spans(String stream) {
        Checks.notNull("stream", stream);
        return spans.stream().filter(s -> s.stream().equals(stream)).toList();
    }

    /** Spans let go because the context held {@link ContextOptions#traceCapacity()} newer ones. */
    public long dropped() {
        return dropped;
    }

    /** Whether every operation enqueued before this snapshot had resolved when it was taken. */
    public boolean isComplete() {
        return complete;
    }

    /**
     * A future of a snapshot holding every operation enqueued before this one was taken (and whatever
     * resolved meanwhile); this snapshot itself if nothing was pending. Completes on the completion thread.
     */
    public CompletableFuture<Trace> completed() {
        return completed.copy();
    }

    /**
     * Writes the spans as Chrome trace-event JSON, which Perfetto ({@code ui.perfetto.dev}) and
     * {@code chrome://tracing} open: one thread per stream, one complete ({@code "X"}) event per span, named by its
     * kind, with its label in {@code args}. The files of several contexts, or of several processes of one host, merge
     * without collisions and line up in time: {@code pid} is the real process id, each context's streams have thread
     * ids of their own ({@code context number × 100000 + n}, named {@code "stream 1 [cuda:0 #1]"}), and {@code ts} is
     * the host's monotonic clock in microseconds ({@code otherData.traceBaseNanos} is the trace base on that clock).
     *
     * @throws InvalidArgumentException naming {@code path} for null
     * @throws UncheckedIOException     if writing fails
     */
    public void writeChromeJson(Path path) {
        Checks.notNull("path", path);
        try (Writer w = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            writeChromeJson(w);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + path, e);
        }
    }

    /**
     * The same JSON as {@link #writeChromeJson(Path)}, to a writer (not closed).
     *
     * @throws InvalidArgumentException naming {@code out} for null
     */
    public void writeChromeJson(Appendable out) throws IOException {
        Checks.notNull("out", out);
        out.append("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"Sluice\",\"context\":");
        ChromeTraceEvents.string(out, context);
        out.append(",\"droppedSpans\":").append(Long.toString(dropped))
                .append(",\"traceBaseNanos\":").append(Long.toString(events.originNanos()))
                .append("},\"traceEvents\":[\n");
        events.appendProcessEvent(out);
        for (int i = 0; i < streams.size(); i++) {
            out.append(",\n");
            events.appendStreamEvents(out, streams.get(i), i + 1);
        }
        for (TraceSpan s : spans) {
            out.append(",\n");
            events.appendSpanEvent(out, s, streams.indexOf(s.stream()) + 1);
        }
        out.append("\n]}\n");
    }

    /**
     * This snapshot's spans that {@code filter} accepts, as a snapshot of their own (same context and
     * {@link #dropped()}, the streams that keep a span): the spans after a warm-up, or of one label, for
     * {@link #toSvg(SvgOptions)}. Its {@link #completed()} is itself.
     *
     * @throws InvalidArgumentException naming {@code filter} for null
     */
    public Trace select(Predicate<? super TraceSpan> filter) {
        Checks.notNull("filter", filter);
        List<TraceSpan> kept = spans.stream().filter(filter).toList();
        List<String> keptStreams = streams.stream().filter(st -> kept.stream().anyMatch(sp -> sp.stream().equals(st))).toList();
        return new Trace(context, events, kept, keptStreams, dropped, null, () -> {
            throw new AssertionError("a selection has nothing pending");
        });
    }

    /**
     * How {@link #toSvg(SvgOptions)} draws: a title and subtitle (empty: the context, and a count of spans), the span
     * categories drawn (empty: every category present), dashed vertical marks at milliseconds from the start of the
     * axis, by label (an ideal time, a deadline), and the stretch of the trace drawn (null: from the first span drawn
     * to the last).
     *
     * @param title      the first line; empty for the context's name
     * @param subtitle   the second line; empty for a count of spans and streams
     * @param categories the {@link TraceSpan#category()} values drawn, in legend order; empty for all present
     * @param marks      vertical lines, label to milliseconds from the start of the axis; iterated in its order
     * @param window     the stretch of trace time drawn, the whole width of the axis; null for every span drawn
     */
    public record SvgOptions(String title, String subtitle, List<String> categories, Map<String, Double> marks,
            @Nullable Window window) {

        /**
         * A stretch of trace time, in the nanoseconds of {@link TraceSpan#startNanos()}: the steady state of a run
         * after its warm-up, a few chunks of a long pipeline. Spans reaching into it are drawn cut at its edges.
         *
         * @param fromNanos where the axis starts
         * @param toNanos   where the axis ends; after {@code fromNanos}
         */
        public record Window(long fromNanos, long toNanos) {

            /** @throws InvalidArgumentException naming {@code toNanos} if it is not after {@code fromNanos} */
            public Window {
                if (toNanos <= fromNanos) {
                    throw new InvalidArgumentException("toNanos", "window ends at " + toNanos + " ns, not after its start at "
                            + fromNanos + " ns");
                }
            }
        }

        /**
         * @throws InvalidArgumentException naming the argument for a null title, subtitle, list, map or element, or a
         *                                  mark that is negative or not finite
         */
        public SvgOptions {
            Checks.notNull("title", title);
            Checks.notNull("subtitle", subtitle);
            Checks.notNull("categories", categories);
            Checks.notNull("marks", marks);
            for (String c : categories) {
                Checks.notNull("categories", c);
            }
            for (Map.Entry<String, Double> m : marks.entrySet()) {
                Checks.notNull("marks", m.getKey());
                Checks.notNull("marks", m.getValue());
                if (!(m.getValue() >= 0) || m.getValue().isInfinite()) {
                    throw new InvalidArgumentException("marks", "mark " + m.getKey() + " at " + m.getValue()
                            + " ms is not a finite time at or after 0");
                }
            }
            categories = List.copyOf(categories);
            marks = Collections.unmodifiableMap(new LinkedHashMap<>(marks));
        }

        /** The context's name as title, a span count as subtitle, every category, no marks. */
        public static SvgOptions defaults() {
            return new SvgOptions("", "", List.of(), Map.of(), null);
        }

        /** These options with {@code title} and {@code subtitle} (empty for the defaults). */
        public SvgOptions withTitle(String title, String subtitle) {
            return new SvgOptions(title, subtitle, categories, marks, window);
        }

        /**
         * These options drawing only spans of {@code categories} ({@code "upload"}, {@code "kernel"}...).
         *
         * @throws InvalidArgumentException naming {@code categories} for a null array or element
         */
        public SvgOptions withCategories(String... categories) {
            Checks.noNulls("categories", categories);
            return new SvgOptions(title, subtitle, List.of(categories), marks, window);
        }

        /** These options with one more mark, a dashed line labelled {@code label} at {@code millis} from the start. */
        public SvgOptions withMark(String label, double millis) {
            Map<String, Double> m = new LinkedHashMap<>(marks);
            m.put(label, millis);
            return new SvgOptions(title, subtitle, categories, m, window);
        }

        /**
         * These options drawing only the trace time from {@code fromNanos} to {@code toNanos} (the times of
         * {@link TraceSpan#startNanos()}) across the whole axis: a steady state at a scale where each operation shows.
         *
         * @throws InvalidArgumentException naming {@code toNanos} if it is not after {@code fromNanos}
         */
        public SvgOptions withWindow(long fromNanos, long toNanos) {
            return new SvgOptions(title, subtitle, categories, marks, new Window(fromNanos, toNanos));
        }
    }

    /**
     * The spans as an SVG timeline with {@link SvgOptions#defaults()}: one lane per stream in {@link #streams()} order,
     * each span a bar coloured by category (copies, kernels, waits...), its kind, label and times in a tooltip.
     */
    public String toSvg() {
        return toSvg(SvgOptions.defaults());
    }

    /**
     * The spans as an SVG 1.1 timeline drawn as {@code options} say: one lane ({@code <g class="lane">}) per stream,
     * one bar ({@code <rect class="span">}) per span of a drawn category, an axis from the first span drawn (or over the
     * options' window), a legend. A bar shorter than 2 px at the scale is drawn 2 px wide, marked
     * {@code data-widened="true"}, and a note under the legend counts them; every tooltip gives the span's true times.
     *
     * @throws InvalidArgumentException naming {@code options} for null
     */
    public String toSvg(SvgOptions options) {
        Checks.notNull("options", options);
        SvgOptions.Window w = options.window();
        return TraceSvg.render(context, spans, streams, dropped, new TraceSvg.Options(options.title(), options.subtitle(),
                options.categories(), options.marks(), w != null, w != null ? w.fromNanos() : 0, w != null ? w.toNanos() : 0));
    }

    /**
     * Writes {@link #toSvg(SvgOptions)} to {@code path} as UTF-8, creating its parent folders.
     *
     * @throws UncheckedIOException if writing fails
     */
    public void writeSvg(Path path, SvgOptions options) {
        Checks.notNull("path", path);
        String svg = toSvg(options);
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

    /** Writes {@link #toSvg()} to {@code path}; see {@link #writeSvg(Path, SvgOptions)}. */
    public void writeSvg(Path path) {
        writeSvg(path, SvgOptions.defaults());
    }

    /** The JSON of {@link #writeChromeJson(Path)} as a string. */
    public String toChromeJson() {
        StringBuilder sb = new StringBuilder(128 + spans.size() * 96);
        try {
            writeChromeJson(sb);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "Trace[" + context + ", " + spans.size() + " spans on " + streams.size() + " streams"
                + (dropped > 0 ? ", " + dropped + " dropped" : "") + "]";
    }
}
