/**
 * The backend kit: what every native backend (CUDA, HIP, and any later one) needs and solves the same way, written
 * once, for backend authors only. Not part of the API that programs use: the module exports it so that backends in jars
 * of their own can use it.
 *
 * <p>The kit never names a native API. It speaks through small interfaces that a backend implements with its driver
 * calls: {@link dev.sluice.spi.support.NativeEvents} (create, query, record, wait on and destroy an event),
 * {@link dev.sluice.spi.support.PinnedMemory} (allocate, map and free page-locked host memory),
 * {@link dev.sluice.spi.support.EventMarker.Events} (what a completion marker asks of its stream) and
 * {@link dev.sluice.spi.support.NativeGraph.Launcher}. On top of them:
 * <ul>
 * <li>{@link dev.sluice.spi.support.EventPool} and {@link dev.sluice.spi.support.EventRing}: a context's pool of
 * marker events and a stream's lock-free ring in front of it;
 * <li>{@link dev.sluice.spi.support.EventMarker}: the completion marker that is a pooled event, with host work to run
 * once it is complete;
 * <li>{@link dev.sluice.spi.support.HostFlagSlots} and {@link dev.sluice.spi.support.HostFlagGate}: host gates on
 * flags in mapped pinned memory;
 * <li>{@link dev.sluice.spi.support.StagingPool}: the pinned buffers, and the chunk policy, for copies from and to
 * memory the driver cannot use directly;
 * <li>{@link dev.sluice.spi.support.DeviceFaults}: the per-device poisoning policy (a fault poisons the device for
 * every context until the last one closes and the backend resets it);
 * <li>{@link dev.sluice.spi.support.DeviceAllocation} and {@link dev.sluice.spi.support.PinnedHostMemory}: memory freed
 * at most once, whichever path frees it;
 * <li>{@link dev.sluice.spi.support.NativeEvent}, {@link dev.sluice.spi.support.NativeGraph} and
 * {@link dev.sluice.spi.support.Lifetime}: user events and graphs destroyed exactly once, never under a call on them;
 * <li>{@link dev.sluice.spi.support.HostNodes}: the host steps of captured graphs, called by the driver through one
 * native callback;
 * <li>{@link dev.sluice.spi.support.KernelCache}: the on-disk cache of kernels compiled at run time.
 * </ul>
 * What stays in a backend is what is truly its own: the native calls, their status codes and error names, and the
 * SPI implementations that put the pieces together.
 */
@NullMarked
package dev.sluice.spi.support;

import org.jspecify.annotations.NullMarked;
