/**
 * Sluice: a host API for GPUs in which every enqueued operation returns a {@link dev.sluice.DeviceFuture}
 * that completes when the device has finished it.
 *
 * <p>Start with {@link dev.sluice.DeviceContext#open()}. A {@link dev.sluice.DeviceStream} is an in-order
 * queue; its {@code enqueue*} methods return at once. Futures of one stream complete in stream order on the
 * context's completion thread. {@link dev.sluice.SyncStream} is the blocking facade.
 */
@NullMarked
package dev.sluice;

import org.jspecify.annotations.NullMarked;
