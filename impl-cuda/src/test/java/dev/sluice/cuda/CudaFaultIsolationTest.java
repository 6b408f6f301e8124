package dev.sluice.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceException;
import dev.sluice.DeviceFuture;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import dev.sluice.conformance.TestKernels;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where a kernel fault on device 0 reaches: a context of device 1 that the driver API made directly, outside
 * Sluice (no pool, staging buffer, thread or cache of Sluice's has touched it), against a Sluice context of device 1.
 * If the raw context stays usable, so must Sluice's: a Sluice context failing then means something of Sluice's
 * shared across devices carried device 0's fault. If the raw context fails too, the driver itself poisoned device 1
 * (it does: on two H200s with driver 580 the raw context returns CUDA_ERROR_ILLEGAL_ADDRESS), and Sluice's context
 * must fail with the same sticky error. A device-fault test: it runs alone in its JVM ({@link FaultTests}), on two devices.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CudaFaultIsolationTest {

    private static final int N = 1024;

    @Test
    void aFaultOnDevice0ReachesASluiceContextOfDevice1OnlyWhereItReachesARawOne() throws Exception {
        FaultTests.gate(true, "aFaultOnDevice0ReachesASluiceContextOfDevice1OnlyWhereItReachesARawOne");
        int count = DeviceContext.deviceCount(Api.CUDA);
        Assumptions.assumeTrue(count >= 2, () -> "needs two CUDA devices; this machine has " + count);

        // A raw context on device 1, made and used on a thread of its own.
        RawContext raw = onNewThread(RawContext::create);
        assertEquals(CUresult.CUDA_SUCCESS, onNewThread(raw::roundTrip), "the raw context works before the fault");

        try (DeviceContext bystander = DeviceContext.open(Api.CUDA, 1, ContextOptions.defaults().withPrimaryContext(false));
             DeviceContext faulty = DeviceContext.open(Api.CUDA, 0, ContextOptions.defaults().withPrimaryContext(false))) {
            int[] values = new int[N];
            for (int i = 0; i < N; i++) {
                values[i] = i * 3 + 1;
            }
            DeviceBuffer before = bystander.allocate(DType.I32, N);
            bystander.stream().enqueueCopy(HostData.of(values), before).get(10, TimeUnit.SECONDS);

            DeviceFuture<Void> fault = faulty.createStream().enqueueLaunch(faulty.compile(TestKernels.FAULT), LaunchConfig.of(1, 1), 1);
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> fault.get(20, TimeUnit.SECONDS));
            assertInstanceOf(DeviceException.class, e.getCause());

            int rawAfter = onNewThread(raw::roundTrip);
            Throwable sluiceAfter = null;
            int[] read = new int[N];
            try {
                bystander.stream().enqueueCopy(before, HostData.of(read)).get(10, TimeUnit.SECONDS);
            } catch (ExecutionException x) {
                sluiceAfter = x.getCause();
            } catch (DeviceException x) { // refused at the enqueue: the driver answered the copy's call with the error
                sluiceAfter = x;
            }
            System.out.println("after a fault on device 0: a raw context of device 1 returns " + CUresult.stringFor(rawAfter)
                    + "; Sluice's context of device 1 " + (sluiceAfter == null ? "works" : "fails with " + sluiceAfter));
            if (rawAfter == CUresult.CUDA_SUCCESS) {
                if (sluiceAfter != null) {
                    throw new AssertionError("the driver left device 1 usable, but Sluice's context of device 1 failed: something of"
                            + " Sluice's shared across devices carried device 0's fault", sluiceAfter);
                }
                assertArrayEquals(values, read, "device 1's memory is intact");
                assertFalse(bystander.isFaulted());
            } else {
                // The driver poisoned device 1 as well (driver 580 on two H200s does: the error is the process's, as its
                // documentation says). Then Sluice's context must fail the same way: a sticky device fault, no hang.
                DeviceException de = assertInstanceOf(DeviceException.class, sluiceAfter,
                        "the driver poisoned device 1, so Sluice's context of it must fail as a device fault");
                assertTrue(de.isSticky(), de::toString);
                assertEquals(CUresult.stringFor(rawAfter), de.errorName().orElse(""), "the same error as the raw context's");
            }
        } finally {
            onNewThread(raw::destroy);
        }
    }

    private static <T> T onNewThread(java.util.concurrent.Callable<T> body) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable x) {
                result.completeExceptionally(x);
            }
        });
        T r = result.get(30, TimeUnit.SECONDS);
        t.join();
        return r;
    }

    /** A context of device 1 made with the driver API, with a 4 KiB buffer. Every call returns a CUresult. */
    private record RawContext(CUcontext context, CUdeviceptr buffer) {

        static RawContext create() {
            check(JCudaDriver.cuInit(0), "cuInit");
            CUdevice d = new CUdevice();
            check(JCudaDriver.cuDeviceGet(d, 1), "cuDeviceGet");
            CUcontext c = new CUcontext();
            check(JCudaDriver.cuCtxCreate(c, 0, d), "cuCtxCreate");
            CUdeviceptr p = new CUdeviceptr();
            check(JCudaDriver.cuMemAlloc(p, 4L * N), "cuMemAlloc");
            check(JCudaDriver.cuCtxPopCurrent(new CUcontext()), "cuCtxPopCurrent"); // cuCtxCreate made it current
            return new RawContext(c, p);
        }

        /** Writes, reads back and checks N ints, synchronously; the first failing call's result. */
        int roundTrip() {
            int r = JCudaDriver.cuCtxPushCurrent(context);
            if (r != CUresult.CUDA_SUCCESS) {
                return r;
            }
            try {
                int[] out = new int[N];
                for (int i = 0; i < N; i++) {
                    out[i] = 7 * i;
                }
                r = JCudaDriver.cuMemcpyHtoD(buffer, Pointer.to(out), 4L * N);
                if (r != CUresult.CUDA_SUCCESS) {
                    return r;
                }
                int[] in = new int[N];
                r = JCudaDriver.cuMemcpyDtoH(Pointer.to(in), buffer, 4L * N);
                if (r == CUresult.CUDA_SUCCESS && !java.util.Arrays.equals(in, out)) {
                    throw new AssertionError("the raw context read back other values than it wrote");
                }
                return r;
            } finally {
                JCudaDriver.cuCtxPopCurrent(new CUcontext());
            }
        }

        Void destroy() {
            JCudaDriver.cuCtxPushCurrent(context);
            JCudaDriver.cuMemFree(buffer);
            JCudaDriver.cuCtxPopCurrent(new CUcontext());
            JCudaDriver.cuCtxDestroy(context);
            return null;
        }

        private static void check(int r, String call) {
            if (r != CUresult.CUDA_SUCCESS) {
                throw new IllegalStateException(call + " failed: " + CUresult.stringFor(r));
            }
        }
    }
}
