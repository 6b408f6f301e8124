package dev.sluice.hip;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * The C structs that HIP's graph-node calls take, laid out field by field as {@code hip/hip_runtime_api.h} declares them
 * (natural alignment, the same on x86-64 and AArch64); {@code HipHeadersTest} checks every field's offset and each
 * struct's size against the header. Unlike {@code hipDeviceProp_t} these two kept their layout from HIP 4.3 to HIP 6.
 * The runtime copies a struct (and the kernel arguments it points to) during the call, so it may live in a confined
 * arena that closes after it.
 */
final class HipApiNodeParams {

    private HipApiNodeParams() {
    }

    /** {@code dim3}: three {@code uint32_t}. */
    static final StructLayout DIM3 = MemoryLayout.structLayout(JAVA_INT.withName("x"), JAVA_INT.withName("y"),
            JAVA_INT.withName("z"));

    /** {@code hipKernelNodeParams}: blockDim, extra, func, gridDim, kernelParams, sharedMemBytes. */
    static final StructLayout KERNEL = MemoryLayout.structLayout(
            DIM3.withName("blockDim"), MemoryLayout.paddingLayout(4),
            ADDRESS.withName("extra"),
            ADDRESS.withName("func"),
            DIM3.withName("gridDim"), MemoryLayout.paddingLayout(4),
            ADDRESS.withName("kernelParams"),
            JAVA_INT.withName("sharedMemBytes"), MemoryLayout.paddingLayout(4)).withName("hipKernelNodeParams");

    /** {@code hipMemsetParams}: dst, elementSize, height, pitch, value, width. */
    static final StructLayout MEMSET = MemoryLayout.structLayout(
            ADDRESS.withName("dst"),
            JAVA_INT.withName("elementSize"), MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("height"),
            JAVA_LONG.withName("pitch"),
            JAVA_INT.withName("value"), MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("width")).withName("hipMemsetParams");

    private static final long BLOCK_DIM = KERNEL.byteOffset(groupElement("blockDim"));
    private static final long EXTRA = KERNEL.byteOffset(groupElement("extra"));
    private static final long FUNC = KERNEL.byteOffset(groupElement("func"));
    private static final long GRID_DIM = KERNEL.byteOffset(groupElement("gridDim"));
    private static final long KERNEL_PARAMS = KERNEL.byteOffset(groupElement("kernelParams"));
    private static final long SHARED_MEM_BYTES = KERNEL.byteOffset(groupElement("sharedMemBytes"));
    private static final long DST = MEMSET.byteOffset(groupElement("dst"));
    private static final long ELEMENT_SIZE = MEMSET.byteOffset(groupElement("elementSize"));
    private static final long HEIGHT = MEMSET.byteOffset(groupElement("height"));
    private static final long PITCH = MEMSET.byteOffset(groupElement("pitch"));
    private static final long VALUE = MEMSET.byteOffset(groupElement("value"));
    private static final long WIDTH = MEMSET.byteOffset(groupElement("width"));

    /**
     * A {@code hipKernelNodeParams} in {@code arena}: {@code function} a {@code hipFunction_t} of
     * {@code hipModuleGetFunction}, {@code kernelParams} the address of the {@code void*} array of the arguments (never
     * null: HIP wants either it or {@code extra}), no {@code extra}.
     */
    static MemorySegment kernel(Arena arena, long function, int gridX, int gridY, int gridZ, int blockX, int blockY,
            int blockZ, int sharedMemBytes, long kernelParams) {
        MemorySegment p = arena.allocate(KERNEL); // zeroed: extra and the padding
        dim3(p, BLOCK_DIM, blockX, blockY, blockZ);
        p.set(JAVA_LONG, EXTRA, 0);
        p.set(JAVA_LONG, FUNC, function);
        dim3(p, GRID_DIM, gridX, gridY, gridZ);
        p.set(JAVA_LONG, KERNEL_PARAMS, kernelParams);
        p.set(JAVA_INT, SHARED_MEM_BYTES, sharedMemBytes);
        return p;
    }

    private static void dim3(MemorySegment p, long offset, int x, int y, int z) {
        p.set(JAVA_INT, offset, x);
        p.set(JAVA_INT, offset + 4, y);
        p.set(JAVA_INT, offset + 8, z);
    }

    /** A {@code hipMemsetParams} in {@code arena} of one row: {@code width} elements of {@code elementSize} bytes. */
    static MemorySegment memset(Arena arena, long destination, int elementSize, int value, long width) {
        MemorySegment p = arena.allocate(MEMSET);
        p.set(JAVA_LONG, DST, destination);
        p.set(JAVA_INT, ELEMENT_SIZE, elementSize);
        p.set(JAVA_LONG, HEIGHT, 1);
        p.set(JAVA_LONG, PITCH, 0); // unused for one row
        p.set(JAVA_INT, VALUE, value);
        p.set(JAVA_LONG, WIDTH, width);
        return p;
    }
}
