/**
 * The backend service-provider interface: what a backend implements so that the public API in
 * {@code dev.sluice} can run on it, the built-in ones (cuda, hip, cpu) and any other in a jar of its own.
 * Backends are found with {@link java.util.ServiceLoader} through {@link dev.sluice.spi.Backend}, registered
 * in {@code META-INF/services/dev.sluice.spi.Backend}, and selected by their {@link Backend#name()}.
 * Every method here is called only after the public layer has validated its arguments (bounds, contexts,
 * closed state, launch limits), so implementations check nothing twice and report only what the native
 * layer says, as {@link dev.sluice.SluiceException}s.
 *
 * <p>Ordering: the public layer serialises all calls that enqueue on one {@link StreamHandle} (one lock
 * per stream), so an implementation sees them in the order they return futures.
 *
 * <p>A backend proves itself with the conformance suite, as the built-in ones do: a test class in its module
 * extends {@code dev.sluice.conformance.ConformanceSuite} from the {@code sluice-api} test-jar, returns its
 * name from {@code backendName()} and, from {@code api()}, the built-in backend whose capabilities it shares
 * (the suite keys its few capability checks on it), and must pass with nothing skipped that its hardware has.
 */
@NullMarked
package dev.sluice.spi;

import org.jspecify.annotations.NullMarked;
