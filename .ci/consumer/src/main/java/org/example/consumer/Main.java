package org.example.consumer;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.reactive.ReactiveStream;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import reactor.core.publisher.Mono;

/** A reactive pipeline on the best backend present (here the CPU simulator): upload, y = 2x + 1, download. */
public final class Main {

    static final Kernel AXPB = Kernel.named("axpb")
            .param(KernelParam.pointer("data", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    MemorySegment d = t.pointer(0);
                    d.setAtIndex(JAVA_FLOAT, i, 2 * d.getAtIndex(JAVA_FLOAT, i) + 1);
                }
            })
            .build();

    public static void main(String[] args) {
        float[] x = new float[4096];
        for (int i = 0; i < x.length; i++) {
            x[i] = i;
        }
        float[] y = new float[x.length];
        try (DeviceContext ctx = DeviceContext.open(); DeviceFunction axpb = ctx.compile(AXPB)) {
            ReactiveStream rx = ReactiveStream.of(ctx);
            DeviceBuffer d = ctx.allocate(DType.F32, x.length);
            float[] result = rx.copy(HostData.of(x), d)
                    .then(rx.launch(axpb, LaunchConfig.forElements(x.length), d, (long) x.length))
                    .then(rx.copy(d, HostData.of(y)))
                    .then(Mono.fromCallable(() -> y))
                    .block();
            d.close();
            for (int i = 0; i < x.length; i++) {
                if (result[i] != 2 * x[i] + 1) {
                    throw new AssertionError("y[" + i + "] = " + result[i] + ", expected " + (2 * x[i] + 1));
                }
            }
            System.out.println("consumer: " + ctx.api().id() + " reactive pipeline ok, y[0..3] = "
                    + Arrays.toString(Arrays.copyOf(result, 4)));
        }
    }
}
