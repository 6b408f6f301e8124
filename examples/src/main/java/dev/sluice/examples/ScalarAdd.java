package dev.sluice.examples;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import java.lang.foreign.MemorySegment;

/**
 * Mojo's {@code scalar_add.mojo} (GPU programming fundamentals): fill a host buffer with 0 to 19, copy it to
 * the device, add 20 to every element in a kernel, copy it back. After the line naming the device, it prints
 * what the Mojo page documents:
 *
 * <pre>
 * Original host buffer: HostBuffer([0.0, 1.0, 2.0, ..., 19.0])
 * Modified host buffer: HostBuffer([20.0, 21.0, 22.0, ..., 39.0])
 * </pre>
 *
 * Where the Mojo program stops without a GPU, this one runs on the CPU backend.
 */
public final class ScalarAdd {

    static final int NUM_ELEMENTS = 20;

    /** Adds {@code scalar} to each of the {@code size} elements of {@code vector} in place, one thread per element. */
    static final Kernel SCALAR_ADD = Kernel.named("scalar_add")
            .param(KernelParam.pointer("vector", DType.F32))
            .param(KernelParam.scalar("size", DType.I64))
            .param(KernelParam.scalar("scalar", DType.F32))
            .cudaSource("""
                    extern "C" __global__ void scalar_add(float* vector, long long size, float scalar) {
                        // The global index of this thread: block index * threads per block + index within the block.
                        long long idx = (long long) blockIdx.x * blockDim.x + threadIdx.x;
                        // The grid may hold more threads than there are elements.
                        if (idx < size) {
                            vector[idx] += scalar;
                        }
                    }
                    """)
            .java(t -> {
                long idx = t.globalIdX();
                if (idx < t.longArg(1)) {
                    MemorySegment vector = t.pointer(0);
                    vector.setAtIndex(JAVA_FLOAT, idx, vector.getAtIndex(JAVA_FLOAT, idx) + t.floatArg(2));
                }
            })
            .build();

    private ScalarAdd() {
    }

    public static void main(String[] args) {
        // Device 0 of the best backend present, or the one named by -Dsluice.api / SLUICE_API.
        try (DeviceContext ctx = DeviceContext.open()) {
            run(ctx);
        }
    }

    static void run(DeviceContext ctx) {
        Examples.printDevice(ctx);
        DeviceStream stream = ctx.stream();
        try (HostBuffer hostBuffer = ctx.allocateHost(DType.F32, NUM_ELEMENTS);
                DeviceBuffer deviceBuffer = stream.enqueueAllocate(DType.F32, NUM_ELEMENTS);
                DeviceFunction scalarAdd = ctx.compile(SCALAR_ADD)) {
            // Pinned host memory is ready at once: fill it with 0, 1, ..., 19 (Mojo's iota).
            for (int i = 0; i < NUM_ELEMENTS; i++) {
                hostBuffer.setFloat(i, i);
            }
            System.out.println("Original host buffer: " + hostBuffer);

            // Copy in, add 20.0 with one block of NUM_ELEMENTS threads, copy back: three operations in stream order.
            stream.enqueueCopy(hostBuffer, deviceBuffer);
            stream.enqueueLaunch(scalarAdd, LaunchConfig.of(1, NUM_ELEMENTS), deviceBuffer, NUM_ELEMENTS, 20.0f);
            stream.enqueueCopy(deviceBuffer, hostBuffer)
                    .join(); // the last future of the stream: when it completes, everything before it has finished

            System.out.println("Modified host buffer: " + hostBuffer);
        }
    }
}
