package dev.sluice.observe;

import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DeviceException;
import dev.sluice.EventFlag;
import dev.sluice.InvalidArgumentException;
import dev.sluice.StreamOptions;
import dev.sluice.TraceSpan;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.StreamHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The recorder behind {@code DeviceContext.trace()}; exists only for contexts opened with tracing on, so
 * that with tracing off an enqueue pays one null check of a final field and nothing else.
 *
 * <p>Generic over backends, through the SPI alone: under the stream's lock, a pooled timing event is
 * recorded before each operation ({@link #record}, from the stream's {@code begin}) and another after it, just before
 * its completion marker. When the operation's future completes, both events have completed; the span's
 * start is read against a base event, its duration between its own two events. Base events are recorded
 * on a private stream that runs nothing else, so they complete at once; a new base is taken every second,
 * because elapsed times are float milliseconds, which keep about 0.06 µs of resolution up to one second.
 *
 * <p>Works from plain data: a stream is its index and name, an operation its kind as a {@link TraceSpan} kind string
 * and the {@link CompletableFuture} that completes once the device has finished it. A snapshot ({@link #snapshot()})
 * is a list of spans, which the public {@code Trace} wraps.
 */
public final class Tracer {

    private static final long EPOCH_NANOS = 1_000_000_000L;
    private static final int DEAD = Integer.MIN_VALUE;
    private static final Set<EventFlag> TIMING = EnumSet.of(EventFlag.TIMING);
    private static final System.Logger LOG = System.getLogger(Tracer.class.getName());
    private static final boolean JFR = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    /**
     * A pooled timing event and the epoch it was last recorded in: what a stream holds, under its lock, between an
     * operation's start point and its end point.
     */
    public static final class Point {
        final EventHandle event;
        @Nullable Epoch epoch;

        Point(EventHandle event) {
            this.event = event;
        }
    }

    /**
     * A base event and its time since the trace base. Counts the points recorded in it; once retired and
     * unused, its event is destroyed ({@code points} then holds {@link #DEAD}).
     */
    static final class Epoch {
        final EventHandle base;
        final long offsetNanos;
        final long hostNanos = System.nanoTime();
        final AtomicInteger points = new AtomicInteger();
        volatile boolean retired;

        Epoch(EventHandle base, long offsetNanos) {
            this.base = base;
            this.offsetNanos = offsetNanos;
        }
    }

    /** A traced operation whose future has not completed yet; completes itself once the span is resolved. */
    final class Pending extends CompletableFuture<Void> implements BiConsumer<Object, Throwable> {
        final String stream;
        final String kind;
        final @Nullable String label;
        final Point start;
        final Point end;

        Pending(String stream, String kind, @Nullable String label, Point start, Point end) {
            this.stream = stream;
            this.kind = kind;
            this.label = label;
            this.start = start;
            this.end = end;
        }

        @Override
        public void accept(Object value, @Nullable Throwable failure) {
            try {
                resolve(this, failure);
            } finally {
                complete(null);
            }
        }
    }

    private final ContextHandle context;
    private final String contextName;
    /** The most spans kept: the ring's size ({@link ContextOptions#traceCapacity()}). */
    private final int capacity;
    private final StreamHandle clock;
    private final ConcurrentLinkedQueue<Point> pool = new ConcurrentLinkedQueue<>();
    private final List<Point> created = new ArrayList<>();
    private final Set<Pending> pending = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<Pending> late = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<TraceSpan> spans = new ConcurrentLinkedQueue<>();
    private final AtomicInteger spanCount = new AtomicInteger();
    private final AtomicLong dropped = new AtomicLong();
    private final ConcurrentSkipListMap<Integer, String> streams = new ConcurrentSkipListMap<>();
    private final Set<Epoch> liveEpochs = ConcurrentHashMap.newKeySet();
    /** Where every span also goes as it resolves ({@link ContextOptions#traceFile()}), or null. */
    private final @Nullable TraceFile file;
    /** The context's process, thread ids and clock in Chrome trace JSON. */
    private final ChromeTraceEvents events;
    private volatile Epoch epoch;
    private volatile boolean closed;

    /**
     * Opens the recorder of a context: its clock stream, its first base event and, if {@code file} is given, the file.
     *
     * @param context     the context's handle, which creates the timing events and the clock stream
     * @param contextName the context's name in the trace
     * @param device      the device in short, {@code "cuda:0"}, which names the trace's threads in Chrome trace JSON
     * @param capacity    the most spans kept ({@link ContextOptions#traceCapacity()})
     * @param file        where every span also goes ({@link ContextOptions#traceFile()}), or null
     * @throws InvalidArgumentException naming {@code traceFile} if {@code file} cannot be written
     */
    public Tracer(ContextHandle context, String contextName, String device, int capacity, @Nullable Path file) {
        this.context = context;
        this.contextName = contextName;
        this.capacity = capacity;
        this.clock = context.createStream(StreamOptions.defaults());
        try {
            this.epoch = newEpoch(null);
        } catch (RuntimeException e) {
            clock.destroy();
            throw e;
        }
        // The trace base's host time: span times count from it, and trace JSON adds it back so that contexts line up.
        this.events = ChromeTraceEvents.forNextContext(contextName, device, epoch.hostNanos);
        TraceFile opened = null;
        try {
            opened = file != null ? new TraceFile(file, contextName, events) : null;
        } catch (RuntimeException e) {
            destroy(epoch.base);
            clock.destroy();
            throw e;
        }
        this.file = opened;
    }

    // ---------------------------------------------------------------- recording (under a stream's lock)

    /**
     * Records a timing point on {@code stream}: {@code reuse} again if given (a start point left by an
     * operation that failed to enqueue), else one from the pool. Under the stream's lock.
     */
    public Point record(StreamHandle stream, @Nullable Point reuse) {
        Point p = reuse != null ? reuse : take();
        Epoch old = p.epoch;
        p.epoch = enter();
        if (old != null) {
            leave(old);
        }
        stream.record(p.event);
        return p;
    }

    /**
     * Registers an operation between the points {@code start} and {@code end}; its span resolves once {@code done}
     * completes. Under the stream's lock.
     *
     * @param streamIndex the stream's place among the context's streams, which orders {@code Trace.streams()}
     * @param stream      the stream's name in the trace
     * @param kind        a {@link TraceSpan} kind ({@code "kernel <name>"} for a launch)
     * @param label       the stream's label in effect, or null
     * @param done        completes, normally or not, once the operation's completion marker has
     */
    public void add(int streamIndex, String stream, String kind, @Nullable String label, Point start, Point end,
            CompletableFuture<?> done) {
        streams.putIfAbsent(streamIndex, stream);
        Pending p = new Pending(stream, kind, label, start, end);
        pending.add(p);
        done.whenComplete(p);
    }

    private Point take() {
        Point p = pool.poll();
        if (p == null) {
            p = new Point(context.createEvent(TIMING));
            synchronized (created) {
                created.add(p);
            }
        }
        return p;
    }

    private void release(Point p) {
        Epoch e = p.epoch;
        p.epoch = null;
        if (e != null) {
            leave(e);
        }
        pool.add(p);
    }

    // ---------------------------------------------------------------- epochs

    /** The current epoch, counted as used by one more point. */
    private Epoch enter() {
        while (true) {
            Epoch e = epoch;
            if (System.nanoTime() - e.hostNanos > EPOCH_NANOS) {
                e = rebase(e);
            }
            if (e.points.incrementAndGet() > 0) {
                return e;
            }
            // Retired and destroyed between the read and the count: a newer epoch is current.
        }
    }

    private void leave(Epoch e) {
        if (e.points.decrementAndGet() == 0 && e.retired) {
            kill(e);
        }
    }

    private synchronized Epoch rebase(Epoch old) {
        if (epoch != old || closed) {
            return epoch;
        }
        Epoch n = newEpoch(old);
        epoch = n;
        old.retired = true;
        kill(old);
        return n;
    }

    private void kill(Epoch e) {
        if (e.points.compareAndSet(0, DEAD) && liveEpochs.remove(e)) {
            destroy(e.base);
        }
    }

    private Epoch newEpoch(@Nullable Epoch previous) {
        EventHandle base = context.createEvent(TIMING);
        clock.record(base);
        base.synchronize(); // the clock stream runs nothing else: this returns at once
        long offset = previous == null ? 0 : previous.offsetNanos + nanos(previous.base.elapsedMillis(base));
        Epoch e = new Epoch(base, offset);
        liveEpochs.add(e);
        return e;
    }

    private static long nanos(float millis) {
        return Math.round(millis * 1_000_000.0);
    }

    // ---------------------------------------------------------------- resolving (on the completion thread)

    private void resolve(Pending p, @Nullable Throwable failure) {
        try {
            if (closed) {
                return;
            }
            if (failure instanceof DeviceException || failure instanceof ClosedResourceException) {
                return; // a faulted device or a closed context: its events will not tell the truth
            }
            try {
                if (!p.end.event.query()) {
                    late.add(p); // a cancelled future: the device is still at it
                    return;
                }
                finish(p);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "span of " + p.kind + " on " + p.stream + " dropped", e);
            }
            if (!late.isEmpty()) {
                resolveLate();
            }
        } finally {
            // Only now, with the span in the trace: awaitResolved() waits for what is still in `pending`, so a span
            // taken out before it was added could be missed by a trace() right after synchronize().
            pending.remove(p);
        }
    }

    private void resolveLate() {
        for (Pending p : late) {
            try {
                if (p.end.event.query() && late.remove(p)) {
                    finish(p);
                }
            } catch (RuntimeException e) {
                late.remove(p);
                LOG.log(System.Logger.Level.DEBUG, "span of " + p.kind + " on " + p.stream + " dropped", e);
            }
        }
    }

    private void finish(Pending p) {
        Epoch e = p.start.epoch;
        if (e == null) {
            throw new IllegalStateException("start point of " + p.kind + " has no epoch");
        }
        long start = e.offsetNanos + nanos(e.base.elapsedMillis(p.start.event));
        long duration = Math.max(0, nanos(p.start.event.elapsedMillis(p.end.event)));
        TraceSpan span = new TraceSpan(p.stream, p.kind, p.label, start, start + duration);
        release(p.start);
        release(p.end);
        spans.add(span);
        if (spanCount.incrementAndGet() > capacity && spans.poll() != null) {
            spanCount.decrementAndGet();
            dropped.incrementAndGet();
        }
        if (file != null) {
            file.add(span);
        }
        if (JFR) {
            DeviceOperation.emit(contextName, span);
        }
    }

    // ---------------------------------------------------------------- snapshots, closing

    /**
     * Waits until the spans of operations whose futures have completed are resolved: the completion thread resolves a
     * span just after completing its future, so a thread that saw the future complete may otherwise get here first.
     * Not on the completion thread.
     */
    public void awaitResolved() {
        for (Pending p : List.copyOf(pending)) {
            p.exceptionally(e -> null).join(); // its outcome is the span's business: wait, keeping an interrupt
        }
    }

    /**
     * What a snapshot of the trace holds.
     *
     * @param spans   the resolved spans kept, at most the capacity, in the order they resolved
     * @param streams the names of the streams that have spans, in the order the streams were created
     * @param dropped spans let go because the ring held the capacity's newer ones
     * @param pending completes once every operation pending at the snapshot has resolved; null if none was
     */
    public record Snapshot(List<TraceSpan> spans, List<String> streams, long dropped, @Nullable CompletableFuture<?> pending) {
    }

    /** The context's name in the trace. */
    public String contextName() {
        return contextName;
    }

    /** The context's process, thread ids and clock in Chrome trace JSON. */
    public ChromeTraceEvents events() {
        return events;
    }

    /** The spans resolved so far, and what is still pending. */
    public Snapshot snapshot() {
        if (!closed && !late.isEmpty()) {
            resolveLate();
        }
        List<Pending> waiting = List.copyOf(pending);
        CompletableFuture<?> done = waiting.isEmpty() ? null : CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new));
        long droppedNow = dropped.get();
        List<TraceSpan> kept = List.copyOf(spans);
        if (kept.size() > capacity) {
            // A span added and its oldest not yet polled by a racing finish(): the snapshot still honours the bound.
            droppedNow += kept.size() - capacity;
            kept = kept.subList(kept.size() - capacity, kept.size());
        }
        return new Snapshot(kept, List.copyOf(streams.values()), droppedNow, done);
    }

    /** Destroys the events; called after the context's work has finished. Spans already resolved stay readable. */
    public synchronized void close() {
        if (closed) {
            return;
        }
        resolveLate();
        closed = true;
        synchronized (created) {
            for (Point p : created) {
                destroy(p.event);
            }
            created.clear();
        }
        pool.clear();
        for (Epoch e : liveEpochs) {
            e.points.set(DEAD);
            destroy(e.base);
        }
        liveEpochs.clear();
        try {
            clock.destroy();
        } catch (RuntimeException ex) {
            LOG.log(System.Logger.Level.DEBUG, "destroying the trace clock stream failed", ex);
        }
        if (file != null) {
            file.close(); // after the last span: closed is set, so finish() adds none
        }
    }

    private static void destroy(EventHandle event) {
        try {
            event.destroy();
        } catch (RuntimeException ex) {
            LOG.log(System.Logger.Level.DEBUG, "destroying a trace event failed", ex);
        }
    }
}
