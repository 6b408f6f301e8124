package dev.sluice;

import java.lang.foreign.MemorySegment;

/**
 * What a {@link JavaKernel} sees of its thread: indices, dims, arguments and shared memory, named after
 * CUDA's built-ins. Valid only during the call; do not keep it.
 */
public interface KernelThread {

    int threadIdxX();

    int threadIdxY();

    int threadIdxZ();

    int blockIdxX();

    int blockIdxY();

    int blockIdxZ();

    Dim blockDim();

    Dim gridDim();

    /** blockIdx.x * blockDim.x + threadIdx.x, as a long so that large grids do not overflow. */
    default long globalIdX() {
        return (long) blockIdxX() * blockDim().x() + threadIdxX();
    }

    default long globalIdY() {
        return (long) blockIdxY() * blockDim().y() + threadIdxY();
    }

    default long globalIdZ() {
        return (long) blockIdxZ() * blockDim().z() + threadIdxZ();
    }

    /**
     * The device memory of pointer argument {@code index}, from the buffer's first element to its end.
     * Accesses outside it throw, like an illegal address on a GPU.
     */
    MemorySegment pointer(int index);

    int intArg(int index);

    long longArg(int index);

    float floatArg(int index);

    double doubleArg(int index);

    /** The block's dynamic shared memory ({@link LaunchConfig#sharedMemoryBytes()} bytes), shared by its threads. */
    MemorySegment sharedMemory();

    /**
     * Waits until every thread of the block has reached this call. Only for kernels declared with
     * barriers; otherwise throws {@link IllegalStateException}. A thread that has returned no longer counts (as on
     * a GPU); once a thread of the block has thrown, this throws {@link IllegalStateException} in every other thread,
     * so that the block ends and the launch fails with the first thread's exception.
     */
    void syncThreads();
}
