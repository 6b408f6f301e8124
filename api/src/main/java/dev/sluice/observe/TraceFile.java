package dev.sluice.observe;

import dev.sluice.ContextOptions;
import dev.sluice.InvalidArgumentException;
import dev.sluice.TraceSpan;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Streams a traced context's spans to a file as they resolve ({@link ContextOptions#withTraceFile(Path)}), in the JSON
 * array form of the Chrome trace-event format: {@code [}, then one event per line, then {@code ]} when the context
 * closes or, for a context left open, when the JVM exits normally (a shutdown hook). Process, thread ids and times are
 * those of {@link ChromeTraceEvents}, so the files of several contexts and processes merge.
 *
 * <p>The completion thread only queues each span ({@link #add}); a writer thread of its own formats them and writes each
 * batch with one write call, so the file holds whole lines only. The queue is bounded ({@link #QUEUE_CAPACITY}): while
 * the writer is behind by that many spans, further spans are not written and are counted, never waited for; the count
 * closes the file as a metadata event named {@code sluice_unwritten_spans}, and a warning is logged.
 */
public final class TraceFile {

    /**
     * The most spans waiting for the writer; beyond it spans are counted and not written. {@link
     * ContextOptions#withTraceFile(Path)} states this number.
     */
    static final int QUEUE_CAPACITY = 1 << 16;
    /** The longest the idle writer sleeps; a queued span wakes it sooner. */
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long CLOSE_WAIT_MILLIS = 10_000;
    private static final System.Logger LOG = System.getLogger(TraceFile.class.getName());

    private final Path path;
    private final ChromeTraceEvents events;
    private final FileChannel channel;
    private final ConcurrentLinkedQueue<TraceSpan> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong unwritten = new AtomicLong();
    private final Thread writer;
    private final Thread shutdownHook;
    /** Each stream's place in the file, by name, in order of first span (its thread id, through {@link #events}): the writer thread's alone. */
    private final Map<String, Integer> positions = new HashMap<>();
    private final StringBuilder batch = new StringBuilder(1 << 16);
    /** Set by the writer before it parks, so that {@link #add} wakes it only then. */
    private volatile boolean idle;
    private volatile boolean closing;
    private boolean failed;

    /**
     * Creates (or truncates) {@code path} and writes the array's opening and the process's name.
     *
     * @param events the context's identities and clock in the file
     * @throws InvalidArgumentException naming {@code traceFile} if the file cannot be opened or written
     */
    TraceFile(Path path, String context, ChromeTraceEvents events) {
        this.path = path;
        this.events = events;
        try {
            channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            throw new InvalidArgumentException("traceFile", "value " + path + " cannot be opened for writing: " + e);
        }
        try {
            batch.append("[\n");
            events.appendProcessEvent(batch);
            flushBatch();
        } catch (IOException e) {
            closeQuietly();
            throw new InvalidArgumentException("traceFile", "value " + path + " cannot be written: " + e);
        }
        writer = Thread.ofPlatform().daemon().name("sluice-trace-file " + context).unstarted(this::run);
        shutdownHook = Thread.ofPlatform().name("sluice-trace-file-close " + context).unstarted(this::finish);
        writer.start();
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Queues {@code span} for the writer, or counts it if the writer is {@link #QUEUE_CAPACITY} spans behind. Never blocks. */
    void add(TraceSpan span) {
        if (queued.incrementAndGet() > QUEUE_CAPACITY) {
            queued.decrementAndGet();
            unwritten.incrementAndGet();
            return;
        }
        queue.add(span);
        if (idle) {
            LockSupport.unpark(writer);
        }
    }

    /**
     * Writes what is queued, closes the array and the file, and waits for that (up to {@value #CLOSE_WAIT_MILLIS} ms).
     * After the context's last span; idempotent.
     */
    void close() {
        finish();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is exiting: the hook runs finish() too, which has nothing left to do.
        }
    }

    private void finish() {
        closing = true;
        LockSupport.unpark(writer);
        try {
            writer.join(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- the writer thread

    private void run() {
        try {
            while (true) {
                boolean last = closing; // read before draining: a span queued before close() is written
                if (drain()) {
                    continue;
                }
                if (last) {
                    break;
                }
                idle = true;
                if (queue.isEmpty() && !closing) {
                    LockSupport.parkNanos(this, IDLE_PARK_NANOS);
                }
                idle = false;
            }
            long lost = unwritten.get();
            if (lost > 0) {
                batch.append(",\n");
                appendQuietly(() -> events.appendUnwrittenEvent(batch, lost));
                LOG.log(System.Logger.Level.WARNING, lost + " spans were not written to the trace file " + path
                        + ": its writer fell " + QUEUE_CAPACITY + " spans behind");
            }
            batch.append("\n]\n");
            write();
        } finally {
            closeQuietly();
        }
    }

    /** Writes the queued spans as one batch; whether there were any. */
    private boolean drain() {
        TraceSpan s;
        int n = 0;
        while (n < 4096 && (s = queue.poll()) != null) {
            n++;
            TraceSpan span = s;
            Integer known = positions.get(span.stream());
            int position = known != null ? known : positions.size() + 1;
            if (known == null) {
                positions.put(span.stream(), position);
                batch.append(",\n");
                appendQuietly(() -> events.appendStreamEvents(batch, span.stream(), position));
            }
            batch.append(",\n");
            appendQuietly(() -> events.appendSpanEvent(batch, span, position));
        }
        if (n > 0) {
            queued.addAndGet(-n);
            write();
        }
        return n > 0;
    }

    /** Appends to {@link #batch}, a StringBuilder, which never throws the IOException an Appendable may. */
    private interface Append {
        void to() throws IOException;
    }

    private static void appendQuietly(Append append) {
        try {
            append.to();
        } catch (IOException e) {
            throw new AssertionError("a StringBuilder does not throw", e);
        }
    }

    private void write() {
        if (failed) {
            batch.setLength(0);
            return;
        }
        try {
            flushBatch();
        } catch (IOException e) {
            failed = true; // the rest would fail too, or leave a file with a hole: stop writing, keep the thread draining
            LOG.log(System.Logger.Level.WARNING, "writing the trace file " + path + " failed; no further spans go to it", e);
        }
    }

    private void flushBatch() throws IOException {
        ByteBuffer bytes = StandardCharsets.UTF_8.encode(CharBuffer.wrap(batch));
        batch.setLength(0);
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    private void closeQuietly() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the trace file " + path + " failed", e);
        }
    }
}
