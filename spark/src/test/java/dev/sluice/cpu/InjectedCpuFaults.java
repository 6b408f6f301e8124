package dev.sluice.cpu;

/**
 * The CPU simulator's fault injection ({@link CpuFaults}, package-private to the simulator) for the Flink module's
 * tests, which open their contexts on Flink's task threads: a subtask arms a plan on its task thread just before its
 * function opens the shared context, and disarms whatever that open did not take.
 */
public final class InjectedCpuFaults {

    private InjectedCpuFaults() {
    }

    /**
     * Every launch of {@code kernel} in the next context the calling thread opens on the CPU backend throws in thread
     * {@code thread} of block {@code block}, faulting that context as an illegal address faults a GPU's.
     */
    public static void throwInKernelOfNextContext(String kernel, long block, long thread) {
        CpuFaults.armForNextContext().throwInKernel(kernel, block, thread);
    }

    /** Drops a plan armed on the calling thread that no context took (the device's context was open already). */
    public static void disarm() {
        CpuFaults.take();
    }
}
