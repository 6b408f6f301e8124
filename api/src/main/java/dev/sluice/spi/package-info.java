/**
 * The backend service-provider interface: what a backend (CPU, CUDA, HIP) implements so that the
 * public API in {@code dev.sluice} can run on it. Backends are found with {@link java.util.ServiceLoader}
 * through {@link dev.sluice.spi.Backend}. Every method here is called only after the public layer has
 * validated its arguments (bounds, contexts, closed state, launch limits), so implementations check
 * nothing twice and report only what the native layer says, as {@link dev.sluice.SluiceException}s.
 *
 * <p>Ordering: the public layer serialises all calls that enqueue on one {@link StreamHandle} (one lock
 * per stream), so an implementation sees them in the order they return futures.
 */
@NullMarked
package dev.sluice.spi;

import org.jspecify.annotations.NullMarked;
