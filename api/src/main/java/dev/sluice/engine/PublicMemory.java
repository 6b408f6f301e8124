package dev.sluice.engine;

/**
 * The public side of memory, a device or host buffer, as the engine holds it: named by its {@code toString()} in a
 * refusal once it is closed ({@link Region#what()}, the host buffer of a copy). {@code DeviceBuffer} and {@code HostBuffer}
 * implement it, so the engine keeps a typed reference without naming the public handles.
 */
public interface PublicMemory {
}
