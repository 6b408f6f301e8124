package dev.sluice.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.CompilationException;
import dev.sluice.ContextFlag;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceException;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceStream;
import dev.sluice.Dim;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.Limit;
import dev.sluice.WaitStrategy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * CUDA-specific promises beyond the conformance suite: NVRTC and its cache, built-in kernels, staging of
 * unpinned copies, host gates, the BLOCKING wait strategy, fault isolation, graphs, launch options. Skipped,
 * with the probe's reason, where no CUDA device is present.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CudaBackendTest {

    static final Kernel ADD_ONE = Kernel.named("add_one")
            .param(KernelParam.pointer("v", DType.I32))
            .param(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void add_one(int* v, long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) v[i] += 1;
                    }
                    """)
            .build();

    static final Kernel SPIN = Kernel.named("spin")
            .param(KernelParam.pointer("v", DType.I32))
            .param(KernelParam.scalar("cycles", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void spin(int* v, long long cycles) {
                        long long start = clock64();
                        while (clock64() - start < cycles) { }
                        v[0] = 42;
                    }
                    """)
            .build();

    static final Kernel BAD_ADDRESS = Kernel.named("bad_address")
            .param(KernelParam.scalar("p", DType.U64))
            .cudaSource("""
                    extern "C" __global__ void bad_address(unsigned long long p) {
                        *((volatile int*) p) = 1;
                    }
                    """)
            .build();

    static final Kernel SHARED = Kernel.named("big_shared")
            .param(KernelParam.pointer("out", DType.I32))
            .param(KernelParam.scalar("n", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void big_shared(int* out, int n) {
                        extern __shared__ int s[];
                        for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = i;
                        __syncthreads();
                        if (threadIdx.x == 0) out[0] = s[n - 1];
                    }
                    """)
            .build();

    static final Kernel CLUSTER = Kernel.named("cluster_rank")
            .param(KernelParam.pointer("out", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void cluster_rank(int* out) {
                        unsigned int r;
                        asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
                        if (threadIdx.x == 0) out[blockIdx.x] = (int) r;
                    }
                    """)
            .build();

    private DeviceContext ctx;

    /** Skips the test, with the probe's reason, where no CUDA device is present. */
    static void requireDevice() {
        Assumptions.assumeTrue(DeviceContext.deviceCount(Api.CUDA) > 0,
                () -> "no CUDA device here; " + DeviceContext.detect().strip().replace('\n', ' '));
    }

    @BeforeEach
    void open(org.junit.jupiter.api.TestInfo info) {
        requireDevice();
        String method = info.getTestMethod().map(java.lang.reflect.Method::getName).orElse("");
        FaultTests.gate(method.startsWith("fault"), method);
        ctx = DeviceContext.open(Api.CUDA, 0);
    }

    @AfterEach
    void close() {
        if (ctx != null) {
            ctx.close();
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    @Test
    void primaryContextTakesFlagsOnlyWhenNoOtherSluiceContextUsesItWithOthers() throws Exception {
        java.util.Set<ContextFlag> before = ctx.contextFlags();
        ContextFlag other = before.contains(ContextFlag.SCHEDULE_SPIN) ? ContextFlag.SCHEDULE_YIELD : ContextFlag.SCHEDULE_SPIN;
        ContextOptions withOther = ContextOptions.defaults().withContextFlags(other);
        dev.sluice.InvalidArgumentException e = assertThrows(dev.sluice.InvalidArgumentException.class,
                () -> DeviceContext.open(Api.CUDA, 0, withOther));
        assertTrue(e.getMessage().contains("contextFlags") && e.getMessage().contains("in use by 1"), e.getMessage());
        assertEquals(before, ctx.contextFlags(), "the refused open changed nothing");
        ctx.close();
        ctx = null;
        jcuda.driver.CUdevice d = new jcuda.driver.CUdevice();
        jcuda.driver.JCudaDriver.cuDeviceGet(d, 0);
        int[] flags = new int[1];
        jcuda.driver.JCudaDriver.cuDevicePrimaryCtxGetState(d, flags, new int[1]);
        try (DeviceContext c = DeviceContext.open(Api.CUDA, 0, withOther)) {
            assertEquals(java.util.Set.of(other), c.contextFlags());
            DeviceBuffer b = c.allocate(DType.I32, 1000);
            c.stream().enqueueFill(b, 41);
            c.stream().enqueueLaunch(c.compile(ADD_ONE), LaunchConfig.forElements(1000), b, 1000L);
            int[] out = new int[1000];
            await(c.stream().enqueueCopy(b, HostData.of(out)));
            assertEquals(42, out[999]);
        } finally {
            // the primary context is the process's: give the next tests the flags it had
            jcuda.driver.JCudaDriver.cuDevicePrimaryCtxSetFlags(d, flags[0] & 0xff & ~0x8);
        }
    }

    /**
     * Device memory is the same after contexts are opened, used (device, stream-ordered and pinned allocations,
     * staged heap copies, a kernel, events) and closed without closing their buffers: closing frees everything,
     * on the primary context and on contexts of their own. One round first, so that caches filled once (compiled
     * modules, the memory pool's first reservation) do not count.
     */
    @Test
    void contextsOpenedUsedAndClosedLeaveNoDeviceMemoryBehind() throws Exception {
        useAndClose(true);
        useAndClose(false);
        ctx.synchronize();
        long before = ctx.memoryInfo().free();
        for (int i = 0; i < 8; i++) {
            useAndClose(i % 2 == 0);
        }
        ctx.synchronize(); // the memory pool gives freed memory back to the device at a synchronize
        long after = ctx.memoryInfo().free();
        long lost = before - after;
        assertTrue(lost < (32L << 20), "device memory free fell by " + (lost >> 20) + " MiB over 8 contexts ("
                + (before >> 20) + " MiB before, " + (after >> 20) + " MiB after)");
    }

    private static void useAndClose(boolean primary) throws Exception {
        try (DeviceContext c = DeviceContext.open(Api.CUDA, 0, ContextOptions.defaults().withPrimaryContext(primary))) {
            DeviceStream s = c.createStream();
            DeviceBuffer device = c.allocate(DType.F32, 16L << 20);
            DeviceBuffer ordered = s.enqueueAllocate(DType.I32, 1 << 20);
            HostBuffer pinned = c.allocateHost(DType.F32, 4L << 20);
            float[] heap = new float[8 << 20];
            s.enqueueCopy(HostData.of(heap), device.slice(0, heap.length));
            s.enqueueCopy(device.slice(0, heap.length), HostData.of(heap));
            s.enqueueCopy(device.slice(0, pinned.count()), pinned);
            s.enqueueFill(ordered, 1);
            s.enqueueLaunch(c.compile(ADD_ONE), LaunchConfig.forElements(1 << 20), ordered, (long) (1 << 20));
            s.enqueueRecord(c.createEvent());
            await(s.enqueueCopy(ordered.slice(0, 1), HostData.of(new int[1])));
            // buffers, stream and event deliberately left open: closing the context frees them
        }
    }

    /**
     * Work another library enqueues on {@link DeviceStream#nativeHandle()} (here a driver memset, as cuBLAS would
     * enqueue a kernel) runs in the stream's order between Sluice's operations, and a marker enqueued after it
     * completes after it.
     */
    @Test
    void anotherLibrarysWorkOnTheNativeStreamRunsInStreamOrder() throws Exception {
        DeviceStream s = ctx.createStream();
        int n = 1 << 20;
        DeviceBuffer b = ctx.allocate(DType.I32, n);
        s.enqueueFill(b, 1);
        s.enqueueLaunch(ctx.compile(SPIN), LaunchConfig.of(1, 1), b, 200_000_000L); // about 0.1 s, then b[0] = 42
        Cu.check(Cu.memsetAsync(b.address(), 4, 7, n, s.nativeHandle()), "cuMemsetD32Async on the native stream");
        DeviceFuture<Void> marker = s.enqueueMarker();
        assertFalse(marker.isDone(), "the marker is behind the spinning kernel and the memset");
        s.enqueueLaunch(ctx.compile(ADD_ONE), LaunchConfig.forElements(n), b, (long) n);
        int[] out = new int[n];
        await(s.enqueueCopy(b, HostData.of(out)));
        assertTrue(marker.isDone());
        for (int i = 0; i < n; i += 1021) {
            assertEquals(8, out[i], "element " + i + ": the memset ran after the kernel and before the add");
        }
        assertEquals(8, out[0], "the memset overwrote the spinning kernel's 42");
        assertEquals(Cu.ctxGetCurrent(), ctx.nativeHandle(), "the context this thread's Sluice calls made current");
    }

    @Test
    void sourceCompilesToCubinLaunchesAndHasPtx() throws Exception {
        DeviceFunction f = ctx.compile(ADD_ONE);
        DeviceBuffer b = ctx.allocate(DType.I32, 1000);
        DeviceStream s = ctx.stream();
        s.enqueueFill(b, 41);
        s.enqueueLaunch(f, LaunchConfig.forElements(1000), b, 1000L);
        int[] out = new int[1000];
        await(s.enqueueCopy(b, HostData.of(out)));
        for (int v : out) {
            assertEquals(42, v);
        }
        String ptx = f.assembly().orElseThrow();
        assertTrue(ptx.contains(".entry add_one"), ptx);
    }

    @Test
    void compiledKernelsAreCachedOnDisk() throws Exception {
        Path dir = Files.createTempDirectory("sluice-cache");
        String before = System.getProperty("sluice.cache.dir");
        System.setProperty("sluice.cache.dir", dir.toString());
        try {
            Kernel k = Kernel.named("cached_kernel").param(KernelParam.pointer("v", DType.I32))
                    .cudaSource("extern \"C\" __global__ void cached_kernel(int* v) { v[0] = 7; }").build();
            ctx.compile(k);
            long files;
            try (var l = Files.list(dir.resolve("cuda"))) {
                files = l.filter(p -> !p.toString().endsWith(".tmp")).count();
            }
            assertTrue(files >= 1, "the compiled image is in the cache");
            long t0 = System.nanoTime();
            DeviceFunction again = ctx.compile(k);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            DeviceBuffer b = ctx.allocate(DType.I32, 1);
            ctx.stream().enqueueLaunch(again, LaunchConfig.of(1, 1), b);
            int[] out = new int[1];
            await(ctx.stream().enqueueCopy(b, HostData.of(out)));
            assertEquals(7, out[0]);
            System.out.println("second compile (from cache) took " + ms + " ms");
        } finally {
            if (before == null) {
                System.clearProperty("sluice.cache.dir");
            } else {
                System.setProperty("sluice.cache.dir", before);
            }
        }
    }

    @Test
    void compileErrorCarriesTheLog() {
        Kernel bad = Kernel.named("broken").cudaSource("extern \"C\" __global__ void broken() { this is not C++ }").build();
        CompilationException e = assertThrows(CompilationException.class, () -> ctx.compile(bad));
        assertFalse(e.log().isBlank(), e.getMessage());
    }

    @Test
    void ptxFormLoadsAndRuns() throws Exception {
        String ptx = ctx.compile(ADD_ONE).assembly().orElseThrow();
        Kernel fromPtx = Kernel.named("add_one").param(KernelParam.pointer("v", DType.I32)).param(KernelParam.scalar("n", DType.I64))
                .ptx(ptx).build();
        DeviceFunction f = ctx.compile(fromPtx);
        DeviceBuffer b = ctx.allocate(DType.I32, 4);
        ctx.stream().enqueueFill(b, 1);
        ctx.stream().enqueueLaunch(f, LaunchConfig.of(1, 32), b, 4L);
        int[] out = new int[4];
        await(ctx.stream().enqueueCopy(b, HostData.of(out)));
        assertArrayEquals(new int[] {2, 2, 2, 2}, out);
    }

    @Test
    void fillsOfEveryWidthIncluding64Bit() throws Exception {
        DeviceStream s = ctx.stream();
        DeviceBuffer l = ctx.allocate(DType.I64, 100_003);
        s.enqueueFill(l, 0x0123_4567_89AB_CDEFL);
        long[] out = new long[100_003];
        await(s.enqueueCopy(l, HostData.of(out)));
        for (long v : out) {
            assertEquals(0x0123_4567_89AB_CDEFL, v);
        }
        DeviceBuffer d = ctx.allocate(DType.F64, 17);
        s.enqueueFill(d, 2.5);
        double[] dd = new double[17];
        await(s.enqueueCopy(d, HostData.of(dd)));
        assertEquals(2.5, dd[16]);
        DeviceBuffer h = ctx.allocate(DType.I16, 9);
        s.enqueueFill(h, (short) -2);
        short[] hh = new short[9];
        await(s.enqueueCopy(h, HostData.of(hh)));
        assertEquals(-2, hh[8]);
    }

    @Test
    void largeHeapAndPageableCopiesRoundTripInOrder() throws Exception {
        int n = 5_000_000; // 20 MB: several staging chunks
        int[] src = new int[n];
        for (int i = 0; i < n; i++) {
            src[i] = i * 3;
        }
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, n);
        s.enqueueCopy(HostData.of(src), b);
        s.enqueueLaunch(ctx.compile(ADD_ONE), LaunchConfig.forElements(n), b, (long) n);
        int[] back = new int[n];
        await(s.enqueueCopy(b, HostData.of(back)));
        for (int i = 0; i < n; i += 9973) {
            assertEquals(i * 3 + 1, back[i]);
        }
        assertEquals((n - 1) * 3 + 1, back[n - 1]);
        try (Arena a = Arena.ofShared()) {
            MemorySegment pageable = a.allocate(4L * n, 64);
            await(s.enqueueCopy(b, HostData.of(pageable)));
            assertEquals(4, pageable.getAtIndex(ValueLayout.JAVA_INT, 1));
            pageable.setAtIndex(ValueLayout.JAVA_INT, 0, 99);
            await(s.enqueueCopy(HostData.of(pageable), b));
            int[] one = new int[n];
            await(s.enqueueCopy(b, HostData.of(one)));
            assertEquals(99, one[0]);
        }
    }

    @Test
    void pinnedAndRegisteredCopies() throws Exception {
        HostBuffer h = ctx.allocateHost(DType.F32, 1 << 20);
        h.segment().setAtIndex(ValueLayout.JAVA_FLOAT, 5, 3.5f);
        DeviceBuffer d = ctx.allocate(DType.F32, 1 << 20);
        await(ctx.stream().enqueueCopy(h, d));
        try (Arena a = Arena.ofShared()) {
            MemorySegment seg = a.allocate(4L << 20, 4096);
            HostBuffer reg = ctx.registerHost(seg, DType.F32);
            await(ctx.stream().enqueueCopy(d, reg));
            assertEquals(3.5f, seg.getAtIndex(ValueLayout.JAVA_FLOAT, 5));
            reg.close();
        }
        h.close();
    }

    @Test
    void streamWaitsForAHostStageWithoutBlockingAThread() throws Exception {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 1);
        s.enqueueFill(b, 0);
        CompletableFuture<String> stage = new CompletableFuture<>();
        DeviceFuture<Void> gate = s.waitFor(stage);
        s.enqueueFill(b, 5);
        int[] out = new int[1];
        DeviceFuture<Void> read = s.enqueueCopy(b, HostData.of(out));
        Thread.sleep(200);
        assertFalse(read.isDone(), "the stream must wait for the stage");
        stage.complete("go");
        await(read);
        assertTrue(gate.isDone());
        assertEquals(5, out[0]);
    }

    @Test
    void blockingWaitStrategyCompletesFutures() throws Exception {
        try (DeviceContext c = DeviceContext.open(Api.CUDA, 0, ContextOptions.defaults().withWaitStrategy(WaitStrategy.BLOCKING))) {
            DeviceBuffer b = c.allocate(DType.I32, 1);
            DeviceFuture<Void> f = c.stream().enqueueLaunch(c.compile(SPIN), LaunchConfig.of(1, 1), b, 100_000_000L);
            await(f);
            int[] out = new int[1];
            await(c.stream().enqueueCopy(b, HostData.of(out)));
            assertEquals(42, out[0]);
        }
    }

    /**
     * A fault fails the pending futures with the driver's sticky error, and later calls fail fast. On CUDA the
     * error stays in every context of every device for the rest of the process (the driver's rule for an illegal
     * address), so opening another context afterwards fails too, with a message that says to restart.
     */
    @Test
    void faultFailsPendingFuturesAndLaterOpensExplainTheProcessIsPoisoned() throws Exception {
        ctx.close();
        ctx = null;
        DeviceContext isolated = DeviceContext.open(Api.CUDA, 0, ContextOptions.defaults().withPrimaryContext(false));
        try {
            DeviceStream s = isolated.stream();
            DeviceFuture<Void> bad = s.enqueueLaunch(isolated.compile(BAD_ADDRESS), LaunchConfig.of(1, 1), 8L);
            DeviceFuture<Void> after = s.enqueueMarker();
            ExecutionException e = assertThrows(ExecutionException.class, () -> after.get(30, TimeUnit.SECONDS));
            DeviceException de = assertInstanceOf(DeviceException.class, e.getCause());
            assertTrue(de.isSticky());
            assertTrue(de.errorName().orElse("").startsWith("CUDA_ERROR_"), de.getMessage());
            assertTrue(bad.isCompletedExceptionally());
            assertThrows(DeviceException.class, () -> s.enqueueMarker(), "later calls fail fast");
        } finally {
            isolated.close();
        }
        DeviceException later = assertThrows(DeviceException.class, () -> DeviceContext.open(Api.CUDA, 0).close());
        assertTrue(later.getMessage().contains("restart"), later.getMessage());
    }

    @Test
    void dynamicSharedMemoryAbove48KiB() throws Exception {
        int bytes = 96 * 1024;
        DeviceBuffer out = ctx.allocate(DType.I32, 1);
        ctx.stream().enqueueLaunch(ctx.compile(SHARED), LaunchConfig.of(1, 256).withSharedMemory(bytes), out, bytes / 4);
        int[] o = new int[1];
        await(ctx.stream().enqueueCopy(out, HostData.of(o)));
        assertEquals(bytes / 4 - 1, o[0]);
    }

    @Test
    void clusterLaunchThroughLaunchKernelEx() throws Exception {
        Assumptions.assumeTrue(ctx.computeCapability().major() >= 9, "clusters need compute capability 9.0");
        DeviceBuffer out = ctx.allocate(DType.I32, 8);
        ctx.stream().enqueueLaunch(ctx.compile(CLUSTER), LaunchConfig.of(8, 32).withCluster(Dim.of(4)), out);
        int[] o = new int[8];
        await(ctx.stream().enqueueCopy(out, HostData.of(o)));
        assertArrayEquals(new int[] {0, 1, 2, 3, 0, 1, 2, 3}, o);
    }

    @Test
    void graphReplaysCapturedWork() throws Exception {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 256);
        s.enqueueFill(b, 0);
        DeviceFunction f = ctx.compile(ADD_ONE);
        DeviceGraph g = s.capture(st -> {
            st.enqueueLaunch(f, LaunchConfig.of(1, 256), b, 256L);
            st.enqueueLaunch(f, LaunchConfig.of(1, 256), b, 256L);
        });
        for (int i = 0; i < 5; i++) {
            g.enqueueLaunch(s);
        }
        int[] out = new int[256];
        await(s.enqueueCopy(b, HostData.of(out)));
        assertEquals(10, out[255]);
        g.close();
    }

    @Test
    void limitsAndPriorities() {
        long stack = ctx.limit(Limit.STACK_SIZE);
        assertTrue(stack > 0);
        ctx.setLimit(Limit.PRINTF_FIFO_SIZE, 4 << 20);
        assertTrue(ctx.limit(Limit.PRINTF_FIFO_SIZE) >= 4 << 20);
        var range = ctx.streamPriorityRange();
        assertTrue(range.greatest() <= range.least());
        try (DeviceStream high = ctx.createStream(dev.sluice.StreamOptions.defaults().withPriority(range.greatest()))) {
            assertEquals(range.greatest(), high.priority());
            assertTrue(ctx.memoryInfo().total() > 0);
        }
    }

    @Test
    void streamOrderedAllocationAndFree() throws Exception {
        DeviceStream s = ctx.createStream();
        for (int i = 0; i < 50; i++) {
            DeviceBuffer b = s.enqueueAllocate(DType.I32, 1 << 16);
            s.enqueueFill(b, i);
            int[] out = new int[1];
            DeviceFuture<Void> r = s.enqueueCopy(b.slice(100, 1), HostData.of(out));
            s.enqueueFree(b);
            await(r);
            assertEquals(i, out[0]);
        }
        DeviceBuffer sync = ctx.allocate(DType.I32, 16);
        s.enqueueFree(sync); // memory from the synchronous allocate, freed in a stream's order
        await(s.enqueueMarker());
    }
}
