package dev.sluice.observe;

import dev.sluice.TraceSpan;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Chrome trace-event identities and times of one traced context, shared by the trace written whole
 * ({@code Trace.writeChromeJson}) and the streamed {@link TraceFile}, chosen so that the files of several contexts and
 * several processes merge without collisions (concatenate their event arrays, or open them together in Perfetto):
 * <ul>
 * <li>{@code pid} is the operating system's process id, {@link ProcessHandle#pid()}; the process is named
 * {@code Sluice (pid N)}, the same in every context's file of that process;
 * <li>{@code tid} is one per stream and context: {@code context × }{@value #TIDS_PER_CONTEXT}{@code  + n}, where the
 * context's number counts the traced contexts the process opened (1, 2...) and {@code n} is the stream's place in the
 * trace (1 for the first stream with a span); the thread is named {@code "stream 1 [cuda:0 #2]"}: stream, device,
 * context number; {@code context × }{@value #TIDS_PER_CONTEXT} itself carries the context's own metadata;
 * <li>{@code ts} is microseconds on the host's monotonic clock ({@link System#nanoTime()}, which on Linux is
 * {@code CLOCK_MONOTONIC}, one clock for every process of the host): a span's {@link TraceSpan#startNanos()} plus the
 * host time at which the context's trace base was recorded. Spans of two contexts or two processes of one host therefore
 * line up, to within the microseconds it takes to read the base.
 * </ul>
 */
public final class ChromeTraceEvents {

    /** Thread ids per context: a context's streams are {@code tid}s {@code context × this + 1} onwards. */
    static final int TIDS_PER_CONTEXT = 100_000;

    private static final AtomicInteger TRACED_CONTEXTS = new AtomicInteger();
    private static final long PID = ProcessHandle.current().pid();

    private final String context;
    private final String device;
    private final int number;
    private final long originNanos;

    /**
     * The events of a context numbered {@code number}; {@link #forNextContext} numbers them as contexts open.
     *
     * @param context     the context's name, as {@code Trace.context()} reads
     * @param device      the device in short, {@code "cuda:0"}
     * @param number      the context's number among the traced contexts of this process
     * @param originNanos the host's {@link System#nanoTime()} at the trace base, where span times start
     */
    public ChromeTraceEvents(String context, String device, int number, long originNanos) {
        this.context = context;
        this.device = device;
        this.number = number;
        this.originNanos = originNanos;
    }

    /** The events of the next traced context of this process. */
    static ChromeTraceEvents forNextContext(String context, String device, long originNanos) {
        return new ChromeTraceEvents(context, device, TRACED_CONTEXTS.incrementAndGet(), originNanos);
    }

    /** The process id every event carries. */
    static long pid() {
        return PID;
    }

    /** The thread id of the stream that is {@code position}-th (from 1) in the trace; 0 is the context's own. */
    long tid(int position) {
        return (long) number * TIDS_PER_CONTEXT + position;
    }

    /** The host's monotonic time, in nanoseconds, at which span times start. */
    public long originNanos() {
        return originNanos;
    }

    /** The metadata event naming the process; its args also name the context and its number. */
    public void appendProcessEvent(Appendable out) throws IOException {
        out.append("{\"ph\":\"M\",\"pid\":").append(Long.toString(PID)).append(",\"tid\":").append(Long.toString(tid(0)))
                .append(",\"name\":\"process_name\",\"args\":{\"name\":");
        string(out, "Sluice (pid " + PID + ")");
        out.append(",\"context\":");
        string(out, context);
        out.append(",\"contextNumber\":").append(Integer.toString(number)).append("}}");
    }

    /** The metadata events naming the {@code position}-th stream's thread and sorting it after the context's earlier ones. */
    public void appendStreamEvents(Appendable out, String stream, int position) throws IOException {
        String tid = Long.toString(tid(position));
        out.append("{\"ph\":\"M\",\"pid\":").append(Long.toString(PID)).append(",\"tid\":").append(tid)
                .append(",\"name\":\"thread_name\",\"args\":{\"name\":");
        string(out, threadName(stream));
        out.append("}},\n{\"ph\":\"M\",\"pid\":").append(Long.toString(PID)).append(",\"tid\":").append(tid)
                .append(",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":").append(tid).append("}}");
    }

    /** The name of a stream's thread: the stream, then the device and the context's number, {@code "stream 1 [cuda:0 #2]"}. */
    String threadName(String stream) {
        return stream + " [" + device + " #" + number + "]";
    }

    /** One complete ({@code "X"}) event for {@code s} on the {@code position}-th stream's thread. */
    public void appendSpanEvent(Appendable out, TraceSpan s, int position) throws IOException {
        out.append("{\"ph\":\"X\",\"pid\":").append(Long.toString(PID)).append(",\"tid\":").append(Long.toString(tid(position)))
                .append(",\"name\":");
        string(out, s.kind());
        out.append(",\"cat\":");
        string(out, s.category());
        out.append(",\"ts\":");
        micros(out, originNanos + s.startNanos());
        out.append(",\"dur\":");
        micros(out, s.durationNanos());
        if (s.label() != null) {
            out.append(",\"args\":{\"label\":");
            string(out, s.label());
            out.append('}');
        }
        out.append('}');
    }

    /** The count of spans a trace file left out, as the context's metadata event. */
    void appendUnwrittenEvent(Appendable out, long count) throws IOException {
        out.append("{\"ph\":\"M\",\"pid\":").append(Long.toString(PID)).append(",\"tid\":").append(Long.toString(tid(0)))
                .append(",\"name\":\"sluice_unwritten_spans\",\"args\":{\"count\":").append(Long.toString(count)).append("}}");
    }

    /** {@code s} as a JSON string, quoted, with quotes, backslashes and control characters escaped. */
    public static void string(Appendable out, String s) throws IOException {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** {@code nanos} as microseconds with three decimals, in integer arithmetic: a double would round large clock values. */
    private static void micros(Appendable out, long nanos) throws IOException {
        if (nanos < 0) { // System.nanoTime() may be negative on some hosts
            out.append('-');
            nanos = -nanos;
        }
        long fraction = nanos % 1000L;
        out.append(Long.toString(nanos / 1000L)).append('.');
        if (fraction < 100) {
            out.append(fraction < 10 ? "00" : "0");
        }
        out.append(Long.toString(fraction));
    }
}
