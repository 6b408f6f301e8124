package dev.sluice.reactive;

import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;

/**
 * One operation of a {@link DevicePlan}: enqueues it on the stream it is given and returns its future, e.g.
 * {@code s -> s.enqueueLaunch(f, config, x, n)}. Called once per subscription to the plan, on the
 * subscribing thread; it must only enqueue, never wait.
 */
@FunctionalInterface
public interface DeviceStep {

    /**
     * Enqueues the operation on {@code stream}, the plan's current stream, and returns its future (not null): the
     * next step runs after it on the device (by stream order, or a device-side wait on another stream), and the
     * plan's {@code Mono} completes only after it. An exception thrown here stops the plan: later steps are not
     * enqueued, and the {@code Mono} fails with it once the steps already enqueued have finished.
     */
    DeviceFuture<?> enqueue(DeviceStream stream);
}
