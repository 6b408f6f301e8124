package dev.sluice.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceException;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectWarning;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Backend-specific checks of the simulator; the shared promises are in the conformance suite. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CpuBackendSmokeTest {

    static final Kernel SCALAR_ADD = Kernel.named("scalar_add")
            .params(KernelParam.pointer("vector", DType.F32), KernelParam.scalar("size", DType.I64),
                    KernelParam.scalar("scalar", DType.F32))
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    var v = t.pointer(0);
                    v.setAtIndex(ValueLayout.JAVA_FLOAT, i, v.getAtIndex(ValueLayout.JAVA_FLOAT, i) + t.floatArg(2));
                }
            })
            .build();

    @Test
    void theContextSaysHowItsFuturesLearnCompletionUntilItIsClosed() {
        DeviceContext ctx = DeviceContext.open(Api.CPU, 0);
        assertTrue(ctx.completion().contains("host memory"), ctx.completion());
        ctx.close();
        assertThrows(dev.sluice.ClosedResourceException.class, ctx::completion);
    }

    @Test
    void scalarAddRunsOverTheGridAndCopiesBack() throws Exception {
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            DeviceStream s = ctx.stream();
            float[] in = new float[1000];
            for (int i = 0; i < in.length; i++) {
                in[i] = i;
            }
            DeviceBuffer d = s.enqueueAllocate(DType.F32, in.length);
            s.enqueueCopy(HostData.of(in), d);
            DeviceFunction f = ctx.compile(SCALAR_ADD);
            DeviceFuture<Void> launched = s.enqueueLaunch(f, LaunchConfig.forElements(in.length), d, (long) in.length, 20f);
            HostBuffer h = ctx.allocateHost(DType.F32, in.length);
            DeviceFuture<Void> back = s.enqueueCopy(d, h);
            back.get(10, TimeUnit.SECONDS);
            assertTrue(launched.isDone());
            for (int i = 0; i < in.length; i++) {
                assertEquals(i + 20f, h.getFloat(i));
            }
            assertTrue(launched.sequence() < back.sequence());
        }
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void throwingKernelFaultsTheContext() {
        Kernel boom = Kernel.named("boom").java(t -> {
            throw new IllegalStateException("boom");
        }).build();
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            DeviceFunction f = ctx.compile(boom);
            DeviceFuture<Void> launch = ctx.stream().enqueueLaunch(f, LaunchConfig.of(1, 1));
            Exception e = assertThrows(Exception.class, () -> launch.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof DeviceException, e.toString());
            boolean carried = false;
            for (Throwable x = e.getCause(); x != null; x = x.getCause()) {
                carried |= x instanceof IllegalStateException && "boom".equals(x.getMessage());
            }
            assertTrue(carried, "the kernel's own exception is in the cause chain of " + e.getCause());
            assertThrows(DeviceException.class, () -> ctx.stream().enqueueMarker());
        }
        try (DeviceContext other = DeviceContext.open(Api.CPU, 0)) {
            float[] x = {1, 2, 3};
            DeviceBuffer d = other.allocate(DType.F32, 3);
            other.sync().copy(HostData.of(x), d);
            assertArrayEquals(x, other.sync().toFloatArray(d));
        }
    }
}
