package dev.sluice.spi;

import java.lang.foreign.MemorySegment;

/** Page-locked (pinned) or registered host memory owned by a backend. */
public interface HostMemory {

    /** The memory, readable and writable by host code for its whole lifetime. */
    MemorySegment segment();

    /** Whether this memory was registered in place (the caller owns the underlying segment). */
    boolean registered();
}
