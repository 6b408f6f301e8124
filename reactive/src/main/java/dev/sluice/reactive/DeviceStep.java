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

    DeviceFuture<?> enqueue(DeviceStream stream);
}
