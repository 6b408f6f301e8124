/**
 * Apache Arrow columns in and out of the GPU with no host copy. {@link dev.sluice.arrow.PinnedAllocationFactory} makes
 * Arrow allocators whose buffers are Sluice pinned host memory, so that every vector built with them is copied by DMA;
 * {@link dev.sluice.arrow.ArrowColumns} views the buffers of any vector as {@link dev.sluice.HostData}, registers a
 * vector of another allocator in place ({@link dev.sluice.arrow.RegisteredColumn}) and moves columns and record batches
 * to and from the device ({@link dev.sluice.arrow.DeviceColumn}). Arrow itself is the application's (provided scope):
 * Arrow Java 19.0.0 or a compatible later version. {@code docs/arrow.md} says which JDK flags each Arrow allocator needs
 * and who closes what.
 */
@NullMarked
package dev.sluice.arrow;

import org.jspecify.annotations.NullMarked;
