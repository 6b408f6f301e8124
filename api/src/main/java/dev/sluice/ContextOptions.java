package dev.sluice;

import java.util.Objects;

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
 */
public record ContextOptions(WaitStrategy waitStrategy, long spinNanos, long maxParkNanos, boolean primaryContext,
        boolean tracing, HostWaits hostWaits) {

    public ContextOptions {
        Objects.requireNonNull(waitStrategy, "waitStrategy");
        Objects.requireNonNull(hostWaits, "hostWaits");
        if (spinNanos < 0) {
            throw new InvalidArgumentException("spinNanos", "value " + spinNanos + " is negative");
        }
        if (maxParkNanos < 1_000) {
            throw new InvalidArgumentException("maxParkNanos", "value " + maxParkNanos + " is below 1000 ns");
        }
    }

    /** PARK, 50 µs of spinning, pauses up to 200 µs, primary context, tracing off, waits for the host held on the host. */
    public static ContextOptions defaults() {
        return new ContextOptions(WaitStrategy.PARK, 50_000, 200_000, true, false, HostWaits.HOLD_ON_HOST);
    }

    public ContextOptions withWaitStrategy(WaitStrategy strategy) {
        return new ContextOptions(strategy, spinNanos, maxParkNanos, primaryContext, tracing, hostWaits);
    }

    public ContextOptions withPrimaryContext(boolean primary) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primary, tracing, hostWaits);
    }

    public ContextOptions withTracing(boolean on) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, on, hostWaits);
    }

    public ContextOptions withSpin(long spin, long maxPark) {
        return new ContextOptions(waitStrategy, spin, maxPark, primaryContext, tracing, hostWaits);
    }

    public ContextOptions withHostWaits(HostWaits waits) {
        return new ContextOptions(waitStrategy, spinNanos, maxParkNanos, primaryContext, tracing, waits);
    }
}
