package dev.sluice.cpu;

import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.HostMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Simulated device memory: native memory of its own arena, never handed to host code. */
final class CpuMemory implements DeviceMemory {

    private final Arena arena;
    final MemorySegment segment;

    CpuMemory(long bytes) {
        this.arena = Arena.ofShared();
        this.segment = arena.allocate(bytes, 256);
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    /** Device memory of the simulator has no address host code could use. */
    @Override
    public long address() {
        return 0;
    }

    void free() {
        arena.close();
    }

    /** Host memory: pinned memory is ordinary native memory here. */
    static final class Host implements HostMemory {
        private final Arena arena;
        private final MemorySegment segment;

        Host(long bytes) {
            this.arena = Arena.ofShared();
            this.segment = arena.allocate(bytes, 256);
        }

        Host(MemorySegment registered) {
            this.arena = null;
            this.segment = registered;
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public boolean registered() {
            return arena == null;
        }

        void free() {
            if (arena != null) {
                arena.close();
            }
        }
    }
}
