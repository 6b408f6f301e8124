package dev.sluice;

import java.lang.foreign.MemorySegment;

/**
 * What a {@link JavaKernel} sees of its thread: indices, dims, arguments and shared memory, named after
 * CUDA's built-ins. Valid only during the call; do not keep it.
 */
public interface KernelThread {

    /** This thread's x index within its block ({@code threadIdx.x}), 0 to {@code blockDim().x() - 1}. */
    int threadIdxX();

    /** This thread's y index within its block ({@code threadIdx.y}), 0 to {@code blockDim().y() - 1}. */
    int threadIdxY();

    /** This thread's z index within its block ({@code threadIdx.z}), 0 to {@code blockDim().z() - 1}. */
    int threadIdxZ();

    /** The x index of this thread's block within the grid ({@code blockIdx.x}), 0 to {@code gridDim().x() - 1}. */
    int blockIdxX();

    /** The y index of this thread's block within the grid ({@code blockIdx.y}), 0 to {@code gridDim().y() - 1}. */
    int blockIdxY();

    /** The z index of this thread's block within the grid ({@code blockIdx.z}), 0 to {@code gridDim().z() - 1}. */
    int blockIdxZ();

    /** Threads per block in each dimension ({@code blockDim}), as given by the launch's {@link LaunchConfig}. */
    Dim blockDim();

    /** Blocks in the grid in each dimension ({@code gridDim}), as given by the launch's {@link LaunchConfig}. */
    Dim gridDim();

    /** blockIdx.x * blockDim.x + threadIdx.x, as a long so that large grids do not overflow. */
    default long globalIdX() {
        return (long) blockIdxX() * blockDim().x() + threadIdxX();
    }

    /** blockIdx.y * blockDim.y + threadIdx.y, as a long so that large grids do not overflow. */
    default long globalIdY() {
        return (long) blockIdxY() * blockDim().y() + threadIdxY();
    }

    /** blockIdx.z * blockDim.z + threadIdx.z, as a long so that large grids do not overflow. */
    default long globalIdZ() {
        return (long) blockIdxZ() * blockDim().z() + threadIdxZ();
    }

    /**
     * The device memory of pointer argument {@code index}, from the buffer's first element to its end.
     * Accesses outside it throw, like an illegal address on a GPU.
     */
    MemorySegment pointer(int index);

    /**
     * Scalar argument {@code index}, converted as Java's {@code (int)} cast would from its declared type;
     * {@code index} counts every argument of the launch, pointers included. Throws
     * {@link IllegalArgumentException} if that argument is a pointer.
     */
    int intArg(int index);

    /**
     * Scalar argument {@code index} (counting every argument, pointers included) as a {@code long}: integers
     * sign- or zero-extended as their type is signed or not, floating-point values truncated toward zero.
     */
    long longArg(int index);

    /** Scalar argument {@code index} (counting every argument, pointers included) converted to {@code float}. */
    float floatArg(int index);

    /** Scalar argument {@code index} (counting every argument, pointers included) converted to {@code double}. */
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
