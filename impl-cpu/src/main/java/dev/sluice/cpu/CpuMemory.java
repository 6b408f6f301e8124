package dev.sluice.cpu;

import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.HostMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/** Simulated device memory: native memory of its own arena, never handed to host code. */
final class CpuMemory implements DeviceMemory {

    /** Native bytes of simulated device memory held by every context of the process, for tests of its release. */
    private static final AtomicLong LIVE_BYTES = new AtomicLong();

    private final Arena arena;
    final MemorySegment segment;
    private final AtomicBoolean freed = new AtomicBoolean();

    CpuMemory(long bytes) {
        this.arena = Arena.ofShared();
        this.segment = arena.allocate(bytes, 256);
        LIVE_BYTES.addAndGet(bytes);
    }

    /** Bytes of simulated device memory allocated and not yet freed, over all contexts. */
    static long liveBytes() {
        return LIVE_BYTES.get();
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

    /** Frees the memory; true the first time, false if it was already freed. */
    boolean free() {
        if (!freed.compareAndSet(false, true)) {
            return false;
        }
        arena.close();
        LIVE_BYTES.addAndGet(-segment.byteSize());
        return true;
    }

    /** Host memory: pinned memory is ordinary native memory here. */
    static final class Host implements HostMemory {
        private final @Nullable Arena arena;
        private final MemorySegment segment;
        private final AtomicBoolean freed = new AtomicBoolean();

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
            if (arena != null && freed.compareAndSet(false, true)) {
                arena.close();
            }
        }
    }
}
