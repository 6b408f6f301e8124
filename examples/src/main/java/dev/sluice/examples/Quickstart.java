package dev.sluice.examples;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/** The README's sample: copy → kernel → copy on one stream, with the result handled by a future. Prints {@code y[0] = 2.0}. */
public final class Quickstart {

    /** {@code v[i] *= a}: CUDA C++ for NVRTC and hiprtc, and the same in Java for the CPU backend. */
    static final Kernel SCALE = Kernel.named("scale")
            .params(KernelParam.pointer("v", DType.F32), KernelParam.scalar("n", DType.I64), KernelParam.scalar("a", DType.F32))
            .cudaSource("""
                    extern "C" __global__ void scale(float* v, long long n, float a) {
                        long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x;
                        if (i < n) v[i] *= a;
                    }""")
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    t.pointer(0).setAtIndex(JAVA_FLOAT, i, t.floatArg(2) * t.pointer(0).getAtIndex(JAVA_FLOAT, i));
                }
            })
            .build();

    private Quickstart() {
    }

    public static void main(String[] args) {
        try (DeviceContext ctx = DeviceContext.open()) {
            run(ctx);
        }
    }

    static void run(DeviceContext ctx) {
        Examples.printDevice(ctx);
        // --- the README's sample, from here
        float[] x = new float[1 << 20];
        float[] y = new float[x.length];
        Arrays.fill(x, 1.0f);
        try (DeviceStream stream = ctx.createStream(); DeviceFunction scale = ctx.compile(SCALE)) {
            DeviceBuffer d = stream.enqueueAllocate(DType.F32, x.length);     // every enqueue returns at once
            stream.enqueueCopy(HostData.of(x), d);                             // host → device
            stream.enqueueLaunch(scale, LaunchConfig.forElements(x.length), d, x.length, 2.0f);
            CompletableFuture<Void> printed = stream.enqueueCopy(d, HostData.of(y)) // device → host: its future completes
                    .thenRunAsync(() -> System.out.println("y[0] = " + y[0])); // when y holds the result
            d.close();                                                         // freed in stream order, after the copy
            printed.join();
        }
        // --- to here
    }
}
