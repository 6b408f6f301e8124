package dev.sluice.cpu;

import dev.sluice.DType;
import dev.sluice.DeviceException;
import dev.sluice.Dim;
import dev.sluice.JavaKernel;
import dev.sluice.KernelThread;
import dev.sluice.LaunchConfig;
import dev.sluice.spi.LaunchArguments;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

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
    private final @Nullable CpuFaults faults;
    private final boolean barriers;

    GridRun(CpuFunction function, LaunchConfig config, LaunchArguments arguments, @Nullable CpuFaults faults) {
        this.function = function;
        this.grid = config.grid();
        this.block = config.block();
        this.sharedBytes = config.sharedMemoryBytes();
        this.faults = faults != null && faults.hasKernelThrows() ? faults : null;
        this.barriers = function.kernel().javaUsesBarriers();
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
        // Grids may hold up to 2^31-1 x 65535 x 65535 blocks: block counts and indices are longs throughout.
        long blocks = grid.volume();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long grain = Math.max(1, blocks / (BLOCKS.getParallelism() * 64L));
        BLOCKS.invoke(new Blocks(0, blocks, grain, failure));
        Throwable t = failure.get();
        if (t != null) {
            throw t instanceof DeviceException de ? de
                    : new DeviceException("kernel " + function.kernel().name() + " failed: " + t, "CPU_KERNEL_EXCEPTION", null, true, t);
        }
    }

    /** The (x, y, z) index of the block with linear index {@code linear} in {@code grid}: x fastest, then y, then z. */
    static long[] blockIndex(Dim grid, long linear) {
        long x = grid.x();
        long y = grid.y();
        return new long[] {linear % x, (linear / x) % y, linear / (x * y)};
    }

    /** Blocks {@code from} (inclusive) to {@code to} (exclusive), split across the pool down to {@code grain} blocks. */
    private final class Blocks extends RecursiveAction {
        private final long from;
        private final long to;
        private final long grain;
        private final AtomicReference<Throwable> failure;

        Blocks(long from, long to, long grain, AtomicReference<Throwable> failure) {
            this.from = from;
            this.to = to;
            this.grain = grain;
            this.failure = failure;
        }

        @Override
        protected void compute() {
            if (to - from > grain) {
                long mid = from + (to - from) / 2;
                invokeAll(new Blocks(from, mid, grain, failure), new Blocks(mid, to, grain, failure));
                return;
            }
            long[] index = blockIndex(grid, from);
            // One view for the blocks of this range, moved from block to block (no allocation per block).
            ThreadView view = new ThreadView((int) index[0], (int) index[1], (int) index[2], MemorySegment.NULL, null);
            if (sharedBytes == 0 && !barriers && faults == null) {
                runPlain(view, to - from, failure);
                return;
            }
            for (long b = from; b < to; b++) {
                if (failure.get() != null) {
                    return;
                }
                try {
                    runBlock(view, b);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    return;
                }
                if (++view.bx == grid.x()) {
                    view.bx = 0;
                    if (++view.by == grid.y()) {
                        view.by = 0;
                        view.bz++;
                    }
                }
            }
        }
    }

    /**
     * The common case, kept lean because grids may have billions of blocks: {@code count} blocks from the view's,
     * without shared memory, barriers or injected faults, their threads one after another.
     */
    private void runPlain(ThreadView t, long count, AtomicReference<Throwable> failure) {
        JavaKernel body = function.body();
        int gx = grid.x();
        int gy = grid.y();
        int dx = block.x();
        int dy = block.y();
        int dz = block.z();
        try {
            for (long b = 0; b < count; b++) {
                if ((b & 0x3FF) == 0 && failure.get() != null) {
                    return;
                }
                for (int z = 0; z < dz; z++) {
                    t.z = z;
                    for (int y = 0; y < dy; y++) {
                        t.y = y;
                        for (int x = 0; x < dx; x++) {
                            t.x = x;
                            body.run(t);
                        }
                    }
                }
                if (++t.bx == gx) {
                    t.bx = 0;
                    if (++t.by == gy) {
                        t.by = 0;
                        t.bz++;
                    }
                }
            }
        } catch (RuntimeException | Error e) {
            failure.compareAndSet(null, fault(t, e));
        }
    }

    private void runBlock(ThreadView view, long linear) throws Throwable {
        view.throwAt = faults == null ? -1 : faults.throwingThread(function.kernel().name(), linear);
        view.linearBlock = linear;
        if (sharedBytes == 0) {
            // An arena per block costs tens of microseconds: open one only when the kernel asked for shared memory.
            view.shared = MemorySegment.NULL;
            runThreads(view);
            return;
        }
        // Threads of a block with barriers run on virtual threads of their own: their memory must be shared.
        try (Arena arena = function.kernel().javaUsesBarriers() ? Arena.ofShared() : Arena.ofConfined()) {
            view.shared = arena.allocate(sharedBytes, 16);
            runThreads(view);
        } finally {
            view.shared = MemorySegment.NULL;
        }
    }

    private void runThreads(ThreadView t) throws Throwable {
        if (function.kernel().javaUsesBarriers()) {
            runConcurrently(t);
            return;
        }
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

    /**
     * Runs the block's threads concurrently, meeting at {@link KernelThread#syncThreads()}. A thread that throws
     * breaks the block's barrier for good: every thread waiting at it, or reaching it later, ends with an
     * exception, so the block ends and its pool thread is free; the first thread's exception is the block's.
     * A thread that returns normally stops counting at the barrier (as exited threads do on a GPU).
     */
    private void runConcurrently(ThreadView view) throws Throwable {
        int n = Math.toIntExact(block.volume());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        BlockBarrier barrier = new BlockBarrier(n);
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            ThreadView t = new ThreadView(view.bx, view.by, view.bz, view.shared, barrier);
            t.throwAt = view.throwAt;
            t.linearBlock = view.linearBlock;
            t.x = i % block.x();
            t.y = (i / block.x()) % block.y();
            t.z = i / (block.x() * block.y());
            threads[i] = Thread.ofVirtual().name("sluice-cpu-kernel-thread").start(() -> {
                try {
                    invoke(t);
                    barrier.leave();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e); // before the others see the barrier broken: the first cause wins
                    barrier.breakForGood();
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private void invoke(ThreadView t) {
        try {
            if (t.throwAt >= 0 && t.throwAt == t.x + (long) block.x() * (t.y + (long) block.y() * t.z)) {
                throw CpuFaults.injected(function.kernel().name(), t.linearBlock, t.throwAt);
            }
            function.body().run(t);
        } catch (RuntimeException | Error e) {
            throw fault(t, e);
        }
    }

    private DeviceException fault(ThreadView t, Throwable e) {
        return new DeviceException("kernel " + function.kernel().name() + " threw " + e + " in block ("
                + t.bx + ", " + t.by + ", " + t.bz + ") thread (" + t.x + ", " + t.y + ", " + t.z + ")",
                "CPU_KERNEL_EXCEPTION", null, true, e);
    }

    /**
     * The barrier of one block. Unlike {@link java.util.concurrent.CyclicBarrier}, whose {@code reset()} lets a thread
     * that arrives later wait for parties that will never come, a broken barrier stays broken.
     */
    static final class BlockBarrier {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition tripped = lock.newCondition();
        private int parties;
        private int arrived;
        private long generation;
        private boolean broken;

        BlockBarrier(int parties) {
            this.parties = parties;
        }

        void await() throws BrokenBarrierException, InterruptedException {
            lock.lock();
            try {
                if (broken) {
                    throw new BrokenBarrierException();
                }
                long g = generation;
                if (++arrived >= parties) {
                    trip();
                    return;
                }
                while (g == generation && !broken) {
                    tripped.await();
                }
                if (g == generation) {
                    throw new BrokenBarrierException();
                }
            } finally {
                lock.unlock();
            }
        }

        /** A thread that has ended: the others no longer wait for it. */
        void leave() {
            lock.lock();
            try {
                parties--;
                if (arrived > 0 && arrived >= parties) {
                    trip();
                }
            } finally {
                lock.unlock();
            }
        }

        void breakForGood() {
            lock.lock();
            try {
                broken = true;
                tripped.signalAll();
            } finally {
                lock.unlock();
            }
        }

        private void trip() {
            arrived = 0;
            generation++;
            tripped.signalAll();
        }
    }

    /** The view one kernel thread has; reused across the threads of a block that run one after another. */
    private final class ThreadView implements KernelThread {
        int bx;
        int by;
        int bz;
        int x;
        int y;
        int z;
        long linearBlock;
        /** The thread (linear within the block) in which an injected fault is thrown, or -1. */
        long throwAt = -1;
        private MemorySegment shared;
        private final @Nullable BlockBarrier barrier;

        ThreadView(int bx, int by, int bz, MemorySegment shared, @Nullable BlockBarrier barrier) {
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
            BlockBarrier barrier = this.barrier;
            if (barrier == null) {
                throw new IllegalStateException("kernel " + function.kernel().name()
                        + " calls syncThreads() but its Java implementation was not declared with barriers");
            }
            try {
                barrier.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (BrokenBarrierException e) {
                throw new IllegalStateException("another thread of the block failed", e);
            }
        }
    }
}
