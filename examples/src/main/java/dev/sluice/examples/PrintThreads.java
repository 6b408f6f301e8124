package dev.sluice.examples;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.Dim;
import dev.sluice.Kernel;
import dev.sluice.KernelThread;
import dev.sluice.LaunchConfig;

/**
 * Mojo's {@code print_threads.mojo} (GPU programming fundamentals): a grid of 2×2×1 blocks of 4×4×2 threads in
 * which each of the 128 threads prints its block index, thread index and global index, then "Done". The lines come in
 * no particular order, as on a GPU:
 *
 * <pre>
 * block_idx: [ 0 1 0 ]	thread_idx: [ 0 0 0 ]	global_idx: [ 0 4 0 ]	calculated global_idx: [ 0 4 0 ]
 * ...
 * block_idx: [ 1 1 0 ]	thread_idx: [ 3 3 1 ]	global_idx: [ 7 7 1 ]	calculated global_idx: [ 7 7 1 ]
 * Done
 * </pre>
 *
 * On CUDA and HIP the lines come from device {@code printf}; on the CPU backend the Java implementation prints
 * the same line with {@code System.out}. Mojo's {@code global_idx} is CUDA C++'s
 * {@code blockIdx * blockDim + threadIdx}, {@link KernelThread#globalIdX()} in Java.
 */
public final class PrintThreads {

    static final Dim GRID = Dim.of(2, 2, 1);
    static final Dim BLOCK = Dim.of(4, 4, 2);

    static final Kernel PRINT_THREADS = Kernel.named("print_threads")
            .cudaSource("""
                    extern "C" __global__ void print_threads() {
                        // CUDA C++ has no global_idx: it is blockIdx * blockDim + threadIdx in each dimension.
                        unsigned int gx = blockIdx.x * blockDim.x + threadIdx.x;
                        unsigned int gy = blockIdx.y * blockDim.y + threadIdx.y;
                        unsigned int gz = blockIdx.z * blockDim.z + threadIdx.z;
                        printf("block_idx: [ %u %u %u ]\\tthread_idx: [ %u %u %u ]\\tglobal_idx: [ %u %u %u ]"
                               "\\tcalculated global_idx: [ %u %u %u ]\\n",
                               blockIdx.x, blockIdx.y, blockIdx.z,
                               threadIdx.x, threadIdx.y, threadIdx.z,
                               gx, gy, gz,
                               blockDim.x * blockIdx.x + threadIdx.x,
                               blockDim.y * blockIdx.y + threadIdx.y,
                               blockDim.z * blockIdx.z + threadIdx.z);
                    }
                    """)
            .java(t -> System.out.println(line(t)))
            .build();

    private PrintThreads() {
    }

    /** The line one thread prints, in the format of Mojo's {@code print(...)} of the page. */
    static String line(KernelThread t) {
        Dim blockDim = t.blockDim();
        return "block_idx: [ " + t.blockIdxX() + " " + t.blockIdxY() + " " + t.blockIdxZ()
                + " ]\tthread_idx: [ " + t.threadIdxX() + " " + t.threadIdxY() + " " + t.threadIdxZ()
                + " ]\tglobal_idx: [ " + t.globalIdX() + " " + t.globalIdY() + " " + t.globalIdZ()
                + " ]\tcalculated global_idx: [ " + (blockDim.x() * t.blockIdxX() + t.threadIdxX())
                + " " + (blockDim.y() * t.blockIdxY() + t.threadIdxY())
                + " " + (blockDim.z() * t.blockIdxZ() + t.threadIdxZ()) + " ]";
    }

    public static void main(String[] args) {
        try (DeviceContext ctx = DeviceContext.open()) {
            run(ctx);
        }
    }

    static void run(DeviceContext ctx) {
        Examples.printDevice(ctx);
        try (DeviceFunction printThreads = ctx.compile(PRINT_THREADS)) {
            ctx.stream().enqueueLaunch(printThreads, LaunchConfig.of(GRID, BLOCK));
            ctx.synchronize();
        }
        if (ctx.api() != Api.CPU) {
            Examples.flushNativeStdout(); // device printf went to the C library's stdout: let it out before "Done"
        }
        System.out.println("Done");
    }
}
