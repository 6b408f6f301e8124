package dev.sluice.cpu;

import dev.sluice.DType;
import dev.sluice.DeviceException;
import dev.sluice.Dim;
import dev.sluice.KernelThread;
import dev.sluice.LaunchConfig;
import dev.sluice.spi.LaunchArguments;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

/**
 * One kernel launch: runs the Java implementation once per thread of the grid. Blocks run in parallel on
 * a pool as wide as the machine; the threads of a block run one after another, or, for kernels declared
 * with barriers, concurrently on virtual threads that meet at {@link KernelThread#syncThreads()}.
 */
final class GridRun implements CpuStream.Op {

    private static final ForkJoinPool BLOCKS = new ForkJoinPool(Runtime.getRuntime().availableProcessors(),
            pool -> {
                var t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
                t.setName("sluice-cpu-block-" + t.getPoolIndex());
                t.setDaemon(true);
                return t;
            }, null, false);

    private final CpuFunction function;
    private final Dim grid;
    private final Dim block;
    private final long sharedBytes;
    private final MemorySegment[] pointers;
    private final long[] bits;
    private final DType[] types;

    GridRun(CpuFunction function, LaunchConfig config, LaunchArguments arguments) {
        this.function = function;
        this.grid = config.grid();
        this.block = config.block();
        this.sharedBytes = config.sharedMemoryBytes();
        int n = arguments.count();
        pointers = new MemorySegment[n];
        bits = new long[n];
        types = new DType[n];
        for (int i = 0; i < n; i++) {
            types[i] = arguments.type(i);
            if (arguments.isPointer(i)) {
                MemorySegment whole = ((CpuMemory) arguments.memory(i)).segment;
                pointers[i] = whole.asSlice(arguments.byteOffset(i));
            } else {
                bits[i] = arguments.bits(i);
            }
        }
    }

    @Override
    public void run() {
        int blocks = Math.toIntExact(grid.volume());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable all = () -> IntStream.range(0, blocks).parallel().forEach(b -> {
            if (failure.get() != null) {
                return;
            }
            try {
                runBlock(b);
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        BLOCKS.submit(all).join();
        Throwable t = failure.get();
        if (t != null) {
            throw t instanceof DeviceException de ? de
                    : new DeviceException("kernel " + function.kernel().name() + " failed: " + t, "CPU_KERNEL_EXCEPTION", null, true, t);
        }
    }

    private void runBlock(int linear) throws Throwable {
        int bx = linear % grid.x();
        int by = (linear / grid.x()) % grid.y();
        int bz = linear / (grid.x() * grid.y());
        if (sharedBytes == 0) {
            // An arena per block costs tens of microseconds: open one only when the kernel asked for shared memory.
            runThreads(bx, by, bz, MemorySegment.NULL);
            return;
        }
        // Threads of a block with barriers run on virtual threads of their own: their memory must be shared.
        try (Arena arena = function.kernel().javaUsesBarriers() ? Arena.ofShared() : Arena.ofConfined()) {
            runThreads(bx, by, bz, arena.allocate(sharedBytes, 16));
        }
    }

    private void runThreads(int bx, int by, int bz, MemorySegment shared) throws Throwable {
        if (function.kernel().javaUsesBarriers()) {
            runConcurrently(bx, by, bz, shared);
            return;
        }
        Thread t = new Thread(bx, by, bz, shared, null);
        for (int z = 0; z < block.z(); z++) {
            for (int y = 0; y < block.y(); y++) {
                for (int x = 0; x < block.x(); x++) {
                    t.x = x;
                    t.y = y;
                    t.z = z;
                    invoke(t);
                }
            }
        }
    }

    private void runConcurrently(int bx, int by, int bz, MemorySegment shared) throws Throwable {
        int n = Math.toIntExact(block.volume());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CyclicBarrier barrier = new CyclicBarrier(n);
        java.lang.Thread[] threads = new java.lang.Thread[n];
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(bx, by, bz, shared, barrier);
            t.x = i % block.x();
            t.y = (i / block.x()) % block.y();
            t.z = i / (block.x() * block.y());
            threads[i] = java.lang.Thread.ofVirtual().start(() -> {
                try {
                    invoke(t);
                } catch (Throwable e) {
                    if (!(e instanceof BrokenBarrierException)) {
                        failure.compareAndSet(null, e);
                    }
                    barrier.reset(); // release the others: the block has failed
                }
            });
        }
        for (java.lang.Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private void invoke(Thread t) {
        try {
            function.body().run(t);
        } catch (RuntimeException | Error e) {
            throw new DeviceException("kernel " + function.kernel().name() + " threw " + e + " in block ("
                    + t.bx + ", " + t.by + ", " + t.bz + ") thread (" + t.x + ", " + t.y + ", " + t.z + ")",
                    "CPU_KERNEL_EXCEPTION", null, true, e);
        }
    }

    /** The view one kernel thread has; reused across the threads of a block that run one after another. */
    private final class Thread implements KernelThread {
        final int bx;
        final int by;
        final int bz;
        int x;
        int y;
        int z;
        private final MemorySegment shared;
        private final CyclicBarrier barrier;

        Thread(int bx, int by, int bz, MemorySegment shared, CyclicBarrier barrier) {
            this.bx = bx;
            this.by = by;
            this.bz = bz;
            this.shared = shared;
            this.barrier = barrier;
        }

        @Override public int threadIdxX() { return x; }
        @Override public int threadIdxY() { return y; }
        @Override public int threadIdxZ() { return z; }
        @Override public int blockIdxX() { return bx; }
        @Override public int blockIdxY() { return by; }
        @Override public int blockIdxZ() { return bz; }
        @Override public Dim blockDim() { return block; }
        @Override public Dim gridDim() { return grid; }

        @Override
        public MemorySegment pointer(int index) {
            MemorySegment p = pointers[index];
            if (p == null) {
                throw new IllegalArgumentException("argument " + index + " of " + function.kernel().name() + " is not a pointer");
            }
            return p;
        }

        @Override
        public int intArg(int index) {
            return (int) longArg(index);
        }

        @Override
        public long longArg(int index) {
            long v = scalar(index);
            DType t = types[index];
            if (t.isFloatingPoint()) {
                return (long) doubleArg(index);
            }
            int shift = 64 - 8 * t.byteSize();
            return t.isSigned() ? (v << shift) >> shift : v;
        }

        @Override
        public float floatArg(int index) {
            return (float) doubleArg(index);
        }

        @Override
        public double doubleArg(int index) {
            long v = scalar(index);
            return switch (types[index]) {
                case F32 -> Float.intBitsToFloat((int) v);
                case F64 -> Double.longBitsToDouble(v);
                case F16 -> Float.float16ToFloat((short) v);
                case BF16 -> Float.intBitsToFloat((int) (v << 16));
                default -> longArg(index);
            };
        }

        private long scalar(int index) {
            if (pointers[index] != null) {
                throw new IllegalArgumentException("argument " + index + " of " + function.kernel().name() + " is a pointer");
            }
            return bits[index];
        }

        @Override
        public MemorySegment sharedMemory() {
            return shared;
        }

        @Override
        public void syncThreads() {
            if (barrier == null) {
                throw new IllegalStateException("kernel " + function.kernel().name()
                        + " calls syncThreads() but its Java implementation was not declared with barriers");
            }
            try {
                barrier.await();
            } catch (InterruptedException e) {
                java.lang.Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (BrokenBarrierException e) {
                throw new IllegalStateException("another thread of the block failed", e);
            }
        }
    }
}
