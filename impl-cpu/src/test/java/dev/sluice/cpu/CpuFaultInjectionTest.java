package dev.sluice.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceException;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceOutOfMemoryException;
import dev.sluice.DeviceStream;
import dev.sluice.Dim;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectWarning;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulator under injected faults ({@link CpuFaults}): a kernel thread that throws (before a barrier too), a
 * failing allocation, a failing copy, a stalled device. Each fault stays inside the context it was injected into,
 * and what a faulted context held is freed when it closes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CpuFaultInjectionTest {

    private static final int THREADS = 64;

    /** Each block sums its threads' indices through shared memory, between two barriers; thread 0 writes the sum. */
    static final Kernel BLOCK_SUM = Kernel.named("block_sum")
            .param(KernelParam.pointer("sums", DType.I64))
            .java(t -> {
                var shared = t.sharedMemory();
                shared.setAtIndex(ValueLayout.JAVA_LONG, t.threadIdxX(), t.threadIdxX());
                t.syncThreads();
                if (t.threadIdxX() == 0) {
                    long sum = 0;
                    for (int i = 0; i < t.blockDim().x(); i++) {
                        sum += shared.getAtIndex(ValueLayout.JAVA_LONG, i);
                    }
                    t.pointer(0).setAtIndex(ValueLayout.JAVA_LONG, t.blockIdxX(), sum);
                }
                t.syncThreads();
            }, true)
            .build();

    /** Like {@link #BLOCK_SUM}, but thread 0 of block 0 throws before it reaches the first barrier. */
    static final Kernel THROW_BEFORE_BARRIER = Kernel.named("throw_before_barrier")
            .param(KernelParam.pointer("sums", DType.I64))
            .java(t -> {
                if (t.blockIdxX() == 0 && t.threadIdxX() == 0) {
                    throw new IllegalStateException("thread 0 gives up before the barrier");
                }
                t.syncThreads();
                t.syncThreads();
            }, true)
            .build();

    /** Does nothing: faults come from the plan. */
    static final Kernel NOTHING = Kernel.named("nothing").param(KernelParam.pointer("p", DType.I64)).java(t -> { }).build();

    private static final List<DeviceContext> opened = new ArrayList<>();

    private static DeviceContext open() {
        DeviceContext c = DeviceContext.open(Api.CPU, 0);
        opened.add(c);
        return c;
    }

    /** Closes what the test opened; a close that hangs (a block that never ends) fails the test instead of the run. */
    @org.junit.jupiter.api.AfterEach
    void closeAll() throws InterruptedException {
        List<DeviceContext> all = List.copyOf(opened);
        opened.clear();
        Thread closer = Thread.ofVirtual().start(() -> all.forEach(DeviceContext::close));
        closer.join(java.time.Duration.ofSeconds(30));
        if (closer.isAlive()) {
            fail("closing " + all + " hung");
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static Throwable awaitFailure(Future<?> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            fail("the future hung: " + f);
        }
        return fail("expected " + f + " to fail");
    }

    private static LaunchConfig blocks(int n) {
        return LaunchConfig.of(Dim.of(n), Dim.of(THREADS)).withSharedMemory(THREADS * 8L);
    }

    private static long[] expectedSums(int blocks) {
        long[] s = new long[blocks];
        Arrays.fill(s, THREADS * (THREADS - 1L) / 2);
        return s;
    }

    /** The launches a context runs correctly, more of them than the simulator has pool threads. */
    private static void assertBarrierKernelsRun(DeviceContext c) throws Exception {
        DeviceStream s = c.createStream();
        int n = 4;
        DeviceBuffer sums = c.allocate(DType.I64, n);
        for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors() + 2; i++) {
            s.enqueueFill(sums, 0L);
            s.enqueueLaunch(c.compile(BLOCK_SUM), blocks(n), sums);
        }
        long[] got = new long[n];
        await(s.enqueueCopy(sums, HostData.of(got)));
        assertArrayEquals(expectedSums(n), got);
    }

    private static void assertKernelFault(Throwable t, Class<? extends Throwable> cause) {
        DeviceException e = assertInstanceOf(DeviceException.class, t, () -> "expected a DeviceException, got " + t);
        assertTrue(e.isSticky(), e.toString());
        Throwable c = e;
        while (c != null && !cause.isInstance(c)) {
            c = c.getCause();
        }
        assertTrue(c != null, () -> "expected a " + cause.getSimpleName() + " among the causes of " + e);
    }

    // ---------------------------------------------------------------- kernels with barriers

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void aThreadThatThrowsBeforeABarrierFailsItsLaunchInsteadOfHangingEveryContext() throws Exception {
        DeviceContext faulting = open();
        DeviceContext bystander = open();
        DeviceBuffer sums = faulting.allocate(DType.I64, 8);
        // More failing launches than the block pool has threads: a block left waiting would take a pool thread each.
        // Streams and kernel first: once the first launch has faulted the context, it refuses every later call.
        int n = 2 * Runtime.getRuntime().availableProcessors() + 2;
        DeviceFunction kernel = faulting.compile(THROW_BEFORE_BARRIER);
        List<DeviceStream> streams = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            streams.add(faulting.createStream());
        }
        List<DeviceFuture<Void>> launches = new ArrayList<>();
        for (DeviceStream s : streams) {
            try {
                launches.add(s.enqueueLaunch(kernel, blocks(8), sums));
            } catch (DeviceException refused) {
                break; // the context faulted already: the launches made so far are the ones that must not hang
            }
        }
        assertKernelFault(awaitFailure(launches.get(0)), IllegalStateException.class);
        assertTrue(faulting.isFaulted());
        for (DeviceFuture<Void> f : launches) {
            assertInstanceOf(DeviceException.class, awaitFailure(f));
        }
        assertFalse(bystander.isFaulted());
        assertBarrierKernelsRun(bystander);
        assertBarrierKernelsRun(open());
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void anInjectedThrowAtAChosenThreadFaultsThatLaunchAndNoOtherContext() throws Exception {
        CpuFaults.armForNextContext().throwInKernel("block_sum", 2, 17);
        DeviceContext faulting = open();
        DeviceContext bystander = open();
        DeviceBuffer sums = faulting.allocate(DType.I64, 4);
        Throwable t = awaitFailure(faulting.stream().enqueueLaunch(faulting.compile(BLOCK_SUM), blocks(4), sums));
        assertKernelFault(t, CpuFaults.InjectedFault.class);
        assertTrue(t.getMessage().contains("block (2, 0, 0) thread (17, 0, 0)"), t.getMessage());
        assertBarrierKernelsRun(bystander);
    }

    @Test
    void aThreadThatReturnsBeforeABarrierNoLongerHoldsTheOthers() throws Exception {
        Kernel earlyExit = Kernel.named("early_exit")
                .param(KernelParam.pointer("out", DType.I32))
                .java(t -> {
                    if (t.threadIdxX() >= 32) {
                        return; // as a bounds check does on a GPU, whose exited threads no longer count at a barrier
                    }
                    t.syncThreads();
                    t.pointer(0).setAtIndex(ValueLayout.JAVA_INT, t.threadIdxX(), 1);
                }, true)
                .build();
        DeviceContext c = open();
        DeviceBuffer out = c.allocate(DType.I32, THREADS);
        c.stream().enqueueFill(out, 0);
        await(c.stream().enqueueLaunch(c.compile(earlyExit), LaunchConfig.of(1, THREADS), out));
        int[] got = new int[THREADS];
        await(c.stream().enqueueCopy(out, HostData.of(got)));
        assertEquals(32, Arrays.stream(got).sum());
    }

    // ---------------------------------------------------------------- memory of faulted contexts

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void closingFaultedContextsFreesAllTheirDeviceMemory() throws Exception {
        long before = CpuMemory.liveBytes();
        for (int i = 0; i < 8; i++) {
            CpuFaults.armForNextContext().throwInKernel("nothing", 0, 0);
            DeviceContext c = DeviceContext.open(Api.CPU, 0);
            try {
                DeviceBuffer big = c.allocate(DType.U8, 64L << 20);
                c.allocateHost(DType.U8, 1 << 20);
                c.stream().enqueueAllocate(DType.I64, 1 << 16);
                assertEquals(before + (64L << 20) + (8L << 16), CpuMemory.liveBytes(), "allocated");
                awaitFailure(c.stream().enqueueLaunch(c.compile(NOTHING), LaunchConfig.of(1, 1), c.allocate(DType.I64, 1)));
                assertTrue(c.isFaulted());
                assertEquals(64L << 20, big.byteSize());
            } finally {
                c.close();
            }
            assertEquals(before, CpuMemory.liveBytes(), "context " + i + " left device memory behind");
        }
    }

    // ---------------------------------------------------------------- allocations, copies, stalls

    @Test
    void anInjectedAllocationFailureIsAnOutOfMemoryThatLeavesTheContextUsable() throws Exception {
        CpuFaults.armForNextContext().failAllocations(1);
        DeviceContext c = open();
        long free = c.memoryInfo().free();
        DeviceOutOfMemoryException e = assertThrows(DeviceOutOfMemoryException.class, () -> c.allocate(DType.I32, 1024));
        assertEquals(4096, e.requestedBytes());
        assertEquals(free, c.memoryInfo().free(), "nothing was allocated");
        assertFalse(c.isFaulted());
        DeviceBuffer b = c.allocate(DType.I32, 4);
        await(c.stream().enqueueCopy(HostData.of(new int[] {1, 2, 3, 4}), b));
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void anInjectedCopyFailureFaultsItsContextOnly() throws Exception {
        long before = CpuMemory.liveBytes();
        CpuFaults.armForNextContext().failCopies(1);
        DeviceContext c = open();
        DeviceContext bystander = open();
        DeviceBuffer b = c.allocate(DType.I32, 4);
        DeviceFuture<Void> copy = c.stream().enqueueCopy(HostData.of(new int[] {1, 2, 3, 4}), b);
        DeviceException e = assertInstanceOf(DeviceException.class, awaitFailure(copy));
        assertEquals("CPU_INJECTED_COPY_FAULT", e.errorName().orElseThrow());
        assertTrue(c.isFaulted());
        DeviceBuffer other = bystander.allocate(DType.I32, 4);
        await(bystander.stream().enqueueCopy(HostData.of(new int[] {5, 6, 7, 8}), other));
        int[] got = new int[4];
        await(bystander.stream().enqueueCopy(other, HostData.of(got)));
        assertArrayEquals(new int[] {5, 6, 7, 8}, got);
        closeAll();
        assertEquals(before, CpuMemory.liveBytes());
    }

    @Test
    void aStalledDeviceCompletesNothingUntilReleased() throws Exception {
        CpuFaults faults = CpuFaults.armForNextContext();
        DeviceContext c = open();
        DeviceStream s = c.createStream();
        DeviceBuffer b = c.allocate(DType.I32, 4);
        await(s.enqueueFill(b, 1));
        List<DeviceFuture<?>> pending = new ArrayList<>();
        try (CpuFaults.Stall stall = faults.stall()) {
            pending.add(s.enqueueFill(b, 2));
            pending.add(c.stream().enqueueMarker());
            pending.add(c.createStream().enqueueFill(b, 3));
            Thread.sleep(200);
            for (DeviceFuture<?> f : pending) {
                assertFalse(f.isDone(), () -> f + " completed on a stalled device");
            }
        }
        for (DeviceFuture<?> f : pending) {
            await(f);
        }
        int[] got = new int[4];
        await(s.enqueueCopy(b, HostData.of(got)));
        assertEquals(4, got.length);
    }

    @Test
    void aPlanReachesOnlyTheNextContextOfItsThread() throws Exception {
        CpuFaults.armForNextContext().failAllocations(1);
        DeviceContext first = open();
        DeviceContext second = open();
        second.allocate(DType.I32, 1).close(); // the plan is the first one's
        assertThrows(DeviceOutOfMemoryException.class, () -> first.allocate(DType.I32, 1));
    }

    // ---------------------------------------------------------------- grid arithmetic

    @Test
    void blockIndicesOfGridsBeyondTwoToTheThirtyOneAreExact() {
        Dim grid = Dim.of(Integer.MAX_VALUE, 65535, 65535);
        long last = grid.volume() - 1;
        assertArrayEquals(new long[] {Integer.MAX_VALUE - 1, 65534, 65534}, GridRun.blockIndex(grid, last));
        assertArrayEquals(new long[] {0, 1, 0}, GridRun.blockIndex(grid, Integer.MAX_VALUE));
        assertArrayEquals(new long[] {0, 0, 1}, GridRun.blockIndex(grid, (long) Integer.MAX_VALUE * 65535));
        assertArrayEquals(new long[] {0, 32768, 0}, GridRun.blockIndex(Dim.of(65536, 32769), 1L << 31));
    }
}
