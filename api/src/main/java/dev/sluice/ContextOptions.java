package dev.sluice;

import java.util.EnumSet;
import java.util.Set;

/**
 * Options for {@link DeviceContext#open(Api, int, ContextOptions)}.
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
 * @param markerBatch    how many operations of a stream may share one completion marker; 1 (a marker per operation)
 *                       by default; see {@link #withMarkerBatch(int)}
 */
public record ContextOptions(WaitStrategy waitStrategy, long spinNanos, long maxParkNanos, boolean primaryContext,
        boolean tracing, HostWaits hostWaits, Set<ContextFlag> contextFlags, int markerBatch) {

    /** The largest {@link #markerBatch}: beyond it the record saved per operation is already negligible. */
    public static final int MAX_MARKER_BATCH = 1024;

    /**
     * @throws InvalidArgumentException naming the argument for a null wait strategy, host-wait mode, flag set or flag, a negative spin, a pause under 1 µs, more than one scheduling flag, or a marker
     *                                  batch outside 1..{@value #MAX_MARKER_BATCH}
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
        contextFlags = java.util.Collections.unmodifiableSet(flags);
        if (spinNanos < 0) {
            throw new InvalidArgumentException("spinNanos", "value " + spinNanos + " is negative");
        }
        if (maxParkNanos < 1_000) {
            throw new InvalidArgumentException("maxParkNanos", "value " + maxParkNanos + " is below 1000 ns");
        }
        if (markerBatch < 1 || markerBatch > MAX_MARKER_BATCH) {
            throw new InvalidArgumentException("markerBatch", "value " + markerBatch + " is outside 1.." + MAX_MARKER_BATCH);
        }
    }

    /**
     * PARK, 50 µs of spinning, pauses up to 200 µs, primary context, tracing off, waits for the host held on the host,
     * no context flags, a marker per operation.
     */
    public static ContextOptions defaults() {
        return new ContextOptions(WaitStrategy.PARK, 50_000, 200_000, true, false, HostWaits.HOLD_ON_HOST, Set.of(), 1);
    }

    /** @throws InvalidArgumentException naming {@code waitStrategy} for null */
    public ContextOptions withWaitStrategy(WaitStrategy strategy) {
        return new ContextOptions(strategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits, contextFlags, markerBatch);
    }

    public ContextOptions withPrimaryContext(boolean primary) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primary, tracing, hostWaits, contextFlags, markerBatch);
    }

    public ContextOptions withTracing(boolean on) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, on, hostWaits, contextFlags, markerBatch);
    }

    /** @throws InvalidArgumentException for a negative spin or a pause under 1 µs */
    public ContextOptions withSpin(long spin, long maxPark) {
        return new ContextOptions(waitStrategy, spin, maxPark, primaryContext, tracing, hostWaits, contextFlags, markerBatch);
    }

    /** @throws InvalidArgumentException naming {@code hostWaits} for null */
    public ContextOptions withHostWaits(HostWaits waits) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, waits, contextFlags, markerBatch);
    }

    /**
     * These context flags instead of the current ones (none: leave the device's defaults).
     *
     * @throws InvalidArgumentException naming {@code contextFlags} for a null flag or more than one {@code SCHEDULE_} flag
     */
    public ContextOptions withContextFlags(ContextFlag... flags) {
        Checks.notNull("contextFlags", flags);
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits,
                new java.util.HashSet<>(java.util.Arrays.asList(flags)), markerBatch);
    }

    /**
     * Lets up to {@code operations} consecutive operations of a stream share one completion marker, for callers that
     * enqueue many short operations (a stream of tiny kernels, say) and would otherwise pay a marker record (a driver
     * call on a GPU) for each. Each operation still gets its own future, and a future still completes only after its
     * own operation has finished on the device; what changes is when:
     * <ul>
     * <li>The futures of a batch complete together, once the batch's last operation has finished: a future may complete
     * up to {@code operations - 1} operations later than with a marker each. Where those are long kernels, that is long.
     * <li>The enqueuing thread records the marker after every {@code operations}-th operation; an operation enqueued on
     * a stream with nothing pending gets one at once (a caller that waits for each result pays nothing); a batch that
     * stops growing gets its marker from the completion thread about 2 µs later. Anything that could make the stream
     * wait (a wait for the host, for another stream's held work) and stream capture seal the batch first.
     * <li>A marker the backend refuses fails every future of its batch, not only the last operation's.
     * </ul>
     * Measured on an H100 with C alternating in the same process (docs/benchmarks.md): with batches of 16, launch + future
     * fell from 1.54–1.64× to 1.27–1.37× C's launch, and tiny kernels with futures from 1.48–1.60× to 1.20–1.35× C's
     * launches without futures; a copy–compute–copy pipeline ran as fast as without.
     *
     * @param operations 1 (a marker per operation, the default) to {@value #MAX_MARKER_BATCH}
     * @throws InvalidArgumentException naming {@code markerBatch} for a value outside 1..{@value #MAX_MARKER_BATCH}
     */
    public ContextOptions withMarkerBatch(int operations) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits, contextFlags,
                operations);
    }
}
