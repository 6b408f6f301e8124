package dev.sluice;

import java.util.EnumSet;
import java.util.Objects;
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
 */
public record ContextOptions(WaitStrategy waitStrategy, long spinNanos, long maxParkNanos, boolean primaryContext,
        boolean tracing, HostWaits hostWaits, Set<ContextFlag> contextFlags) {

    /** @throws InvalidArgumentException for a negative spin, a pause under 1 µs, or more than one scheduling flag */
    public ContextOptions {
        Objects.requireNonNull(waitStrategy, "waitStrategy");
        Objects.requireNonNull(hostWaits, "hostWaits");
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
    }

    /**
     * PARK, 50 µs of spinning, pauses up to 200 µs, primary context, tracing off, waits for the host held on the host,
     * no context flags.
     */
    public static ContextOptions defaults() {
        return new ContextOptions(WaitStrategy.PARK, 50_000, 200_000, true, false, HostWaits.HOLD_ON_HOST, Set.of());
    }

    public ContextOptions withWaitStrategy(WaitStrategy strategy) {
        return new ContextOptions(strategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits, contextFlags);
    }

    public ContextOptions withPrimaryContext(boolean primary) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primary, tracing, hostWaits, contextFlags);
    }

    public ContextOptions withTracing(boolean on) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, on, hostWaits, contextFlags);
    }

    public ContextOptions withSpin(long spin, long maxPark) {
        return new ContextOptions(waitStrategy, spin, maxPark, primaryContext, tracing, hostWaits, contextFlags);
    }

    public ContextOptions withHostWaits(HostWaits waits) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, waits, contextFlags);
    }

    /**
     * These context flags instead of the current ones (none: leave the device's defaults).
     *
     * @throws InvalidArgumentException naming {@code contextFlags} for a null flag or more than one {@code SCHEDULE_} flag
     */
    public ContextOptions withContextFlags(ContextFlag... flags) {
        Checks.notNull("contextFlags", flags);
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits,
                new java.util.HashSet<>(java.util.Arrays.asList(flags)));
    }
}
