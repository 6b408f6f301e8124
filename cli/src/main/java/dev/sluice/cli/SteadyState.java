package dev.sluice.cli;

import dev.sluice.Trace;
import dev.sluice.TraceSpan;
import java.util.Locale;

/**
 * What the tool draws of a traced run: the spans after a warm-up run (which allocated the buffers, touched the pages and
 * warmed the JIT), over a window of the run's first chunks, short enough that each chunk's upload, kernel and download
 * are wide enough to read. Without it, a first allocation of 21 ms took a third of an H100 timeline and the pipeline's
 * copies and kernels were slivers.
 */
final class SteadyState {

    private final Trace spans;
    private final int chunksShown;
    private final long fromNanos;
    private final long runEndNanos;
    private final long toNanos;

    private SteadyState(Trace spans, int chunksShown, long fromNanos, long runEndNanos, long toNanos) {
        this.spans = spans;
        this.chunksShown = chunksShown;
        this.fromNanos = fromNanos;
        this.runEndNanos = runEndNanos;
        this.toNanos = toNanos;
    }

    /** The end of the last span of {@code trace}: where a warm-up run, traced before, ended. */
    static long end(Trace trace) {
        return trace.spans().stream().mapToLong(TraceSpan::endNanos).max().orElse(0);
    }

    /**
     * The spans of {@code trace} that started at or after {@code warmUpEndNanos}, and a window over them from the first
     * to the end of the {@code chunks}-th download (each chunk ends with one), or to the end of the run if it has no
     * more downloads.
     */
    static SteadyState after(Trace trace, long warmUpEndNanos, int chunks) {
        Trace run = trace.select(s -> s.startNanos() >= warmUpEndNanos);
        long from = run.spans().stream().mapToLong(TraceSpan::startNanos).min().orElse(warmUpEndNanos);
        long end = Math.max(from + 1, end(run));
        long[] downloads = run.spans().stream().filter(s -> s.category().equals(TraceSpan.DOWNLOAD))
                .mapToLong(TraceSpan::endNanos).sorted().toArray();
        boolean cut = downloads.length > chunks;
        long to = cut ? Math.max(from + 1, downloads[chunks - 1]) : end;
        return new SteadyState(run, cut ? chunks : downloads.length, from, end, to);
    }

    /** The spans after the warm-up. */
    Trace spans() {
        return spans;
    }

    /** The options that draw the window, titled. */
    Trace.SvgOptions svgOptions(String title, String subtitle) {
        return Trace.SvgOptions.defaults().withTitle(title, subtitle).withWindow(fromNanos, toNanos);
    }

    /** How much of the run the window shows: {@code "all 1.230 ms"} or {@code "its first 6 chunks, 0.500 of 4.560 ms"}. */
    String shown() {
        double run = (runEndNanos - fromNanos) / 1e6;
        return toNanos >= runEndNanos ? String.format(Locale.ROOT, "all %.3f ms", run)
                : String.format(Locale.ROOT, "its first %d chunks, %.3f of %.3f ms", chunksShown, (toNanos - fromNanos) / 1e6,
                        run);
    }
}
