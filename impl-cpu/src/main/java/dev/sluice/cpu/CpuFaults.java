package dev.sluice.cpu;

import dev.sluice.DeviceException;
import dev.sluice.DeviceOutOfMemoryException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Fault injection for tests of the simulator (package-private: tests in {@code dev.sluice.cpu} use it). A plan is
 * armed on the calling thread and taken by the next context that thread opens on the CPU backend, so that one
 * test's faults reach only the context it opened:
 *
 * <pre>{@code
 * CpuFaults faults = CpuFaults.armForNextContext().throwInKernel("my_kernel", 3, 17);
 * try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
 *     ... // thread 17 of block 3 of every launch of my_kernel throws, as a kernel fault would
 * }
 * }</pre>
 *
 * What can be injected: a kernel that throws at a chosen block and thread (before the kernel's code runs, so a
 * kernel with barriers sees a thread that never reaches them); allocations that fail with
 * {@link DeviceOutOfMemoryException}; copies that fail on the device, faulting the context as an illegal address
 * would; and a stall ({@link #stall()}), in which no stream of the context starts another operation until it is
 * released.
 */
final class CpuFaults {

    private static final ThreadLocal<@Nullable CpuFaults> ARMED = new ThreadLocal<>();

    /** The exception an injected kernel fault throws in the kernel thread. */
    static final class InjectedFault extends RuntimeException {
        InjectedFault(String message) {
            super(message);
        }
    }

    private record KernelThrow(String kernel, long block, long thread) {
    }

    private final List<KernelThrow> kernelThrows = new CopyOnWriteArrayList<>();
    private final AtomicInteger failingAllocations = new AtomicInteger();
    private final AtomicInteger failingCopies = new AtomicInteger();
    private final Object stallLock = new Object();
    private boolean stalled;
    private final List<CpuStream> waiting = new ArrayList<>();

    private CpuFaults() {
    }

    /** A plan, empty until told otherwise, that the next context the calling thread opens on the CPU backend takes. */
    static CpuFaults armForNextContext() {
        CpuFaults f = new CpuFaults();
        ARMED.set(f);
        return f;
    }

    /** The plan armed on this thread, now taken by a context (null: none). */
    static @Nullable CpuFaults take() {
        CpuFaults f = ARMED.get();
        ARMED.remove();
        return f;
    }

    /**
     * Every launch of kernel {@code kernel} throws {@link InjectedFault} in thread {@code thread} of block {@code block}
     * (both linear: x fastest, then y, then z), before the kernel's code runs in that thread.
     */
    CpuFaults throwInKernel(String kernel, long block, long thread) {
        kernelThrows.add(new KernelThrow(kernel, block, thread));
        return this;
    }

    /** The next {@code count} allocations of device memory fail with {@link DeviceOutOfMemoryException}. */
    CpuFaults failAllocations(int count) {
        failingAllocations.addAndGet(count);
        return this;
    }

    /** The next {@code count} copies fail on the device when the stream reaches them: a device fault of the context. */
    CpuFaults failCopies(int count) {
        failingCopies.addAndGet(count);
        return this;
    }

    /**
     * Stalls the device: from now on no stream of the context starts another operation (markers included, so no
     * future completes) until the returned stall is released. An operation already running finishes.
     */
    Stall stall() {
        synchronized (stallLock) {
            stalled = true;
        }
        return this::release;
    }

    /** A stalled device; {@link #release()} (or {@code close()}) lets its streams go on. */
    @FunctionalInterface
    interface Stall extends AutoCloseable {
        void release();

        @Override
        default void close() {
            release();
        }
    }

    private void release() {
        List<CpuStream> resume;
        synchronized (stallLock) {
            stalled = false;
            resume = List.copyOf(waiting);
            waiting.clear();
        }
        for (CpuStream s : resume) {
            s.schedule();
        }
    }

    // ---------------------------------------------------------------- what the simulator asks

    /**
     * Whether {@code stream} must not start its next operation now; if so it is noted, to be scheduled again on
     * release.
     */
    boolean holds(CpuStream stream) {
        synchronized (stallLock) {
            if (stalled && !waiting.contains(stream)) {
                waiting.add(stream);
            }
            return stalled;
        }
    }

    void beforeAllocation(long bytes) {
        if (failingAllocations.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new DeviceOutOfMemoryException("injected allocation failure for " + bytes + " bytes", bytes,
                    "CPU_INJECTED_OUT_OF_MEMORY", null);
        }
    }

    void beforeCopy(long bytes) {
        if (failingCopies.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new DeviceException("injected copy failure (" + bytes + " bytes)", "CPU_INJECTED_COPY_FAULT", null, true, null);
        }
    }

    /** The thread (linear) of block {@code block} in which a launch of {@code kernel} throws, or -1. */
    long throwingThread(String kernel, long block) {
        for (KernelThrow k : kernelThrows) {
            if (k.kernel.equals(kernel) && k.block == block) {
                return k.thread;
            }
        }
        return -1;
    }

    boolean hasKernelThrows() {
        return !kernelThrows.isEmpty();
    }

    static InjectedFault injected(String kernel, long block, long thread) {
        return new InjectedFault("injected fault in kernel " + kernel + ", block " + block + ", thread " + thread);
    }
}
