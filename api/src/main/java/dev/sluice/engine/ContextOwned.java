package dev.sluice.engine;

/**
 * What a context owns and releases at its close unless its owner did: a stream ({@link StreamEnqueuer}), device or host
 * memory ({@link Allocation}, {@link HostAllocation}) or a backend object ({@link OwnedHandle}). {@code ContextResources}
 * keeps them; the interface names none of them, so that memory and handles do not depend on the streams.
 */
interface ContextOwned {
}
