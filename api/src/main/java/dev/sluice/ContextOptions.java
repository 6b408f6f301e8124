package dev.sluice;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Options for {@link DeviceContext#open(String, int, ContextOptions)}.
 *
 * @param waitStrategy   how the completion thread waits; {@link WaitStrategy#PARK} by default
 * @param spinNanos      under PARK, how long the completion thread spins after the last progress before yielding
 * @param maxParkNanos   under PARK, the longest single pause while work is pending
 * @param primaryContext on CUDA, use the device's primary context (shared with other libraries in the process,
 *                       the default) rather than a context of its own
 * @param tracing        record every operation's start and end on the device for {@link DeviceContext#trace()}
 * @param hostWaits      how streams wait for the host; {@link HostWaits#HOLD_ON_HOST} by default
 * @param contextFlags   flags of the device context ({@link ContextFlag}); none by default, which on CUDA leaves the
 *                       primary context's flags as they are
 * @param markerBatch    the most operations of a stream that may share one completion marker;
 *                       {@value #DEFAULT_MARKER_BATCH} by default (or {@value SluiceProperties#MARKER_BATCH}, see
 *                       {@link #defaults()}), 1 for a marker per operation; see {@link #withMarkerBatch(int)}
 * @param traceCapacity  the most spans a trace keeps in memory; see {@link #withTraceCapacity(int)}
 * @param autoOrdering   whether operations on buffers order themselves after racing operations of other streams (on
 *                       by default); see {@link #withAutoOrdering(boolean)}
 * @param traceFile      with tracing on, the file every span is also written to as it resolves, or null (the default)
 *                       for none; see {@link #withTraceFile(Path)}
 */
public record ContextOptions(WaitStrategy waitStrategy, long spinNanos, long maxParkNanos, boolean primaryContext,
        boolean tracing, HostWaits hostWaits, Set<ContextFlag> contextFlags, int markerBatch, int traceCapacity,
        boolean autoOrdering, @Nullable Path traceFile) {

    /** The largest {@link #markerBatch}: beyond it the record saved per operation is already negligible. */
    public static final int MAX_MARKER_BATCH = 1024;

    /** The default {@link #markerBatch}. */
    public static final int DEFAULT_MARKER_BATCH = 64;

    /** The default {@link #traceCapacity}: about 100 MiB of spans at most. */
    public static final int DEFAULT_TRACE_CAPACITY = 1 << 20;

    /** The largest {@link #traceCapacity}: a trace is a snapshot in memory, so it is bounded. */
    public static final int MAX_TRACE_CAPACITY = 1 << 26;

    /**
     * Checks every option; the flag set is copied, so later changes to the caller's set do not reach it.
     *
     * @throws InvalidArgumentException naming the argument for a null wait strategy, host-wait mode, flag set or flag, a negative spin, a pause under 1 µs, more than one scheduling flag, a marker
     *                                  batch outside 1..{@value #MAX_MARKER_BATCH}, or a trace capacity outside
     *                                  1..{@value #MAX_TRACE_CAPACITY}
     */
    public ContextOptions {
        Checks.notNull("waitStrategy", waitStrategy);
        Checks.notNull("hostWaits", hostWaits);
        Checks.notNull("contextFlags", contextFlags);
        EnumSet<ContextFlag> flags = EnumSet.noneOf(ContextFlag.class);
        for (ContextFlag f : contextFlags) {
            Checks.notNull("contextFlags", f);
            flags.add(f);
        }
        if (flags.stream().filter(ContextFlag::isScheduling).count() > 1) {
            throw new InvalidArgumentException("contextFlags", "value " + flags + " holds more than one SCHEDULE_ flag;"
                    + " the scheduling flags exclude each other");
        }
        contextFlags = Collections.unmodifiableSet(flags);
        if (spinNanos < 0) {
            throw new InvalidArgumentException("spinNanos", "value " + spinNanos + " is negative");
        }
        if (maxParkNanos < 1_000) {
            throw new InvalidArgumentException("maxParkNanos", "value " + maxParkNanos + " is below 1000 ns");
        }
        if (markerBatch < 1 || markerBatch > MAX_MARKER_BATCH) {
            throw new InvalidArgumentException("markerBatch", "value " + markerBatch + " is outside 1.." + MAX_MARKER_BATCH);
        }
        if (traceCapacity < 1 || traceCapacity > MAX_TRACE_CAPACITY) {
            throw new InvalidArgumentException("traceCapacity", "value " + traceCapacity + " is outside 1.." + MAX_TRACE_CAPACITY);
        }
    }

    /**
     * PARK, 50 µs of spinning, pauses up to 200 µs, primary context, tracing off, waits for the host held on the host,
     * no context flags, up to {@value #DEFAULT_MARKER_BATCH} operations per completion marker while a stream is busy, or
     * as many as the system property {@value SluiceProperties#MARKER_BATCH} says, read at this call (the property sets
     * only this default: options given a batch with {@link #withMarkerBatch(int)} keep it), the latest
     * {@value #DEFAULT_TRACE_CAPACITY} spans kept when tracing is switched on, automatic ordering across streams on.
     *
     * @throws InvalidArgumentException naming {@value SluiceProperties#MARKER_BATCH} if that property is set to anything
     *                                  but a number in 1..{@value #MAX_MARKER_BATCH}
     */
    public static ContextOptions defaults() {
        return new ContextOptions(WaitStrategy.PARK, 50_000, 200_000, true, false, HostWaits.HOLD_ON_HOST, Set.of(),
                defaultMarkerBatch(), DEFAULT_TRACE_CAPACITY, true, null);
    }

    /** {@value SluiceProperties#MARKER_BATCH} if set, else {@value #DEFAULT_MARKER_BATCH}. */
    private static int defaultMarkerBatch() {
        String value = System.getProperty(SluiceProperties.MARKER_BATCH);
        if (value == null || value.isBlank()) {
            return DEFAULT_MARKER_BATCH;
        }
        int batch;
        try {
            batch = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            batch = 0;
        }
        if (batch < 1 || batch > MAX_MARKER_BATCH) {
            throw new InvalidArgumentException(SluiceProperties.MARKER_BATCH, "value '" + value
                    + "' of the system property is not a number in 1.." + MAX_MARKER_BATCH);
        }
        return batch;
    }

    /**
     * These options with {@link #waitStrategy} set: how the completion thread waits for the device.
     *
     * @throws InvalidArgumentException naming {@code waitStrategy} for null
     */
    public ContextOptions withWaitStrategy(WaitStrategy strategy) {
        return new ContextOptions(strategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits, contextFlags, markerBatch, traceCapacity, autoOrdering, traceFile);
    }

    /**
     * These options with {@link #primaryContext} set: {@code true} shares the device's primary context with the other
     * CUDA users of the process (the default), {@code false} gives the context one of its own. Backends without
     * primary contexts ignore it.
     */
    public ContextOptions withPrimaryContext(boolean primary) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primary, tracing, hostWaits, contextFlags, markerBatch, traceCapacity, autoOrdering, traceFile);
    }

    /**
     * These options with {@link #tracing} set: when on, a timing point is recorded on the device before and after
     * every operation, for {@link DeviceContext#trace()}; when off, an enqueue pays nothing for tracing.
     */
    public ContextOptions withTracing(boolean on) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, on, hostWaits, contextFlags, markerBatch, traceCapacity, autoOrdering, traceFile);
    }

    /**
     * These options with the completion thread's timing under {@link WaitStrategy#PARK}: it spins for {@code spin}
     * ns after the last progress, then pauses at most {@code maxPark} ns at a time while work is pending.
     *
     * @throws InvalidArgumentException naming {@code spinNanos} for a negative spin or {@code maxParkNanos} for a
     *                                  pause under 1 µs
     */
    public ContextOptions withSpin(long spin, long maxPark) {
        return new ContextOptions(waitStrategy, spin, maxPark, primaryContext, tracing, hostWaits, contextFlags, markerBatch, traceCapacity, autoOrdering, traceFile);
    }

    /**
     * These options with {@link #hostWaits} set: how streams wait for work of the host.
     *
     * @throws InvalidArgumentException naming {@code hostWaits} for null
     */
    public ContextOptions withHostWaits(HostWaits waits) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, waits, contextFlags, markerBatch, traceCapacity, autoOrdering, traceFile);
    }

    /**
     * These context flags instead of the current ones (none: leave the device's defaults).
     *
     * @throws InvalidArgumentException naming {@code contextFlags} for a null flag or more than one {@code SCHEDULE_} flag
     */
    public ContextOptions withContextFlags(ContextFlag... flags) {
        Checks.notNull("contextFlags", flags);
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits,
                new HashSet<>(Arrays.asList(flags)), markerBatch, traceCapacity, autoOrdering, traceFile);
    }

    /**
     * The most consecutive operations of a stream that may share one completion marker (a driver call on a GPU). Each
     * operation still has its own future, which completes only after its own operation has finished on the device; what
     * the bound changes is how late it may complete:
     * <ul>
     * <li>An operation enqueued on a stream with nothing pending gets a marker of its own at once: a caller that waits for
     * each result waits no longer than with a marker each.
     * <li>An operation enqueued while earlier work is pending joins the stream's open group; the group's one marker is
     * recorded when a thread looks at or waits for one of its futures ({@code join}, {@code get}, {@code isDone}, another
     * stream's {@code waitFor}, {@code synchronize}: see {@link DeviceFuture}), when it holds
     * {@code operations} operations, before anything that can make the stream wait for the host or for another stream's
     * held work and before capture, or by the completion thread once it has stopped growing for about 2 µs.
     * <li>So a future completes at the latest when the last operation of its group has finished: at most
     * {@code operations - 1} operations after its own, and only for operations enqueued before anyone looked at it.
     * Dependent stages ({@code thenRun}, a {@code Mono}) record nothing: their futures complete by the rules above, at
     * the latest about 2 µs after the caller stopped enqueuing.
     * <li>A marker the backend refuses fails every future of its group, not only the last operation's.
     * </ul>
     *
     * @param operations 1 (a marker per operation) to {@value #MAX_MARKER_BATCH}; {@value #DEFAULT_MARKER_BATCH} by
     *                   default
     * @throws InvalidArgumentException naming {@code markerBatch} for a value outside 1..{@value #MAX_MARKER_BATCH}
     */
    public ContextOptions withMarkerBatch(int operations) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits, contextFlags,
                operations, traceCapacity, autoOrdering, traceFile);
    }

    /**
     * Tracing on, keeping the latest {@code spans} spans: the trace is a ring, and once it is full each new span lets
     * the oldest go ({@link Trace#dropped()} counts them). Bounds the memory a long-running traced service spends on its
     * timeline: a span takes about 100 bytes.
     *
     * @param spans 1 to {@value #MAX_TRACE_CAPACITY}; {@value #DEFAULT_TRACE_CAPACITY} by default
     * @throws InvalidArgumentException naming {@code traceCapacity} for a value outside 1..{@value #MAX_TRACE_CAPACITY}
     */
    public ContextOptions withTraceCapacity(int spans) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, true, hostWaits, contextFlags,
                markerBatch, spans, autoOrdering, traceFile);
    }

    /**
     * Whether operations order themselves across streams (cudarc's habit; on by default). With it on, every operation
     * notes, per buffer and byte range, whether it reads or writes the memory; an operation on another stream that
     * would race with one not yet finished (a read after a write, a write after a read or a write) first waits for it
     * on the device, with no host thread blocked: copies (the device side; for a peer copy, the buffer of the other
     * context too, the wait being made by the copying stream), fills, memsets, launches (by each pointer parameter's
     * {@link KernelParam.Access}) and graph launches (as writes of all the memory they captured). Reads after reads
     * never wait, and slices are tracked by their byte range. Ordering follows the order of the enqueue calls: an
     * operation waits for those whose enqueue returned before its own began; two calls racing on two threads are
     * ordered in neither direction. Not ordered: host memory ({@link HostBuffer}s, arrays), memory used through
     * {@link DeviceBuffer#address()} by other libraries, and {@link DeviceBuffer#unordered()} views. Frees wait for
     * every use either way.
     *
     * <p>Off, streams order only by {@link DeviceStream#waitFor} and events, as CUDA streams do, and an enqueue
     * saves the bookkeeping (a few tens of nanoseconds per buffer argument, docs/benchmarks.md).
     */
    public ContextOptions withAutoOrdering(boolean on) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits, contextFlags,
                markerBatch, traceCapacity, on, traceFile);
    }

    /**
     * Tracing on, and every span also written to {@code file} as it resolves, in Chrome trace-event JSON (its array
     * form: one event per line), which Perfetto and {@code chrome://tracing} open. {@link DeviceContext#open} creates or
     * truncates the file; the context's close, or the JVM's normal exit for a context left open, closes the array, so
     * the file is then valid JSON. Spans are written by a thread of their own, off the completion thread: while that
     * writer is 65,536 spans behind, further spans are left out of the file and counted in
     * its last event, {@code sluice_unwritten_spans}. A crash leaves the batches written so far, whole lines without the
     * closing {@code ]}, which the trace viewers accept and a strict JSON parser needs appended. The in-memory ring
     * ({@link #traceCapacity()}, {@link DeviceContext#trace()}) is kept as before: the file is not bounded by it.
     *
     * @param file the file to write; opened when the context opens
     * @throws InvalidArgumentException naming {@code traceFile} for null (and, at {@link DeviceContext#open}, for a file
     *                                  that cannot be opened for writing)
     */
    public ContextOptions withTraceFile(Path file) {
        Checks.notNull("traceFile", file);
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, true, hostWaits, contextFlags,
                markerBatch, traceCapacity, autoOrdering, file);
    }
}
