package dev.sluice;

/**
 * The Java implementation of a kernel, run by the CPU backend once per thread of the grid. Blocks run in
 * parallel across the cores; the threads of one block run one after another, unless the kernel was
 * declared with {@link Kernel.Builder#java(JavaKernel, boolean) barriers}, in which case they run
 * concurrently so that {@link KernelThread#syncThreads()} behaves like {@code __syncthreads()}.
 *
 * <p>An exception thrown by the kernel is a device fault: the launch's future and every later one on the
 * context complete exceptionally with a {@link DeviceException} carrying it.
 */
@FunctionalInterface
public interface JavaKernel {

    /** Runs the kernel for one thread of the grid. */
    void run(KernelThread thread);
}
