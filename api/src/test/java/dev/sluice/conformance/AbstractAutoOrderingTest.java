package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.UnsupportedOnBackendException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Automatic ordering across streams ({@link ContextOptions#autoOrdering()}): an operation on one stream that would race
 * with unfinished work of another on the same bytes waits for it on the device. Each race is made certain, not likely:
 * the first operation is held behind a gate ({@link DeviceStream#waitFor(java.util.concurrent.CompletionStage)}) on
 * stream A, so it cannot run before the gate opens; the second goes on stream B. With ordering on, B's operation must
 * not complete while the gate is closed and sees A's result; with it off (the negative control, {@code ...Off}), B's
 * operation completes with the gate still closed, before A's, and the race shows in the data.
 */
public abstract class AbstractAutoOrderingTest extends ConformanceBase {

    private static final int N = 256;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    /** Copies {@code src} to {@code dst}, declaring {@code src} a read ({@code const int*}) and {@code dst} a write. */
    static final Kernel COPY_IN_OUT = Kernel.named("copy_in_out")
            .param(KernelParam.input("src", DType.I32))
            .param(KernelParam.output("dst", DType.I32))
            .param(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void copy_in_out(const int* src, int* dst, long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) dst[i] = src[i];
                    }
                    """)
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(2)) {
                    MemorySegment src = t.pointer(0);
                    t.pointer(1).setAtIndex(INT, i, src.getAtIndex(INT, i));
                }
            })
            .build();

    // ---------------------------------------------------------------- helpers

    /** The test's context with ordering on (the default), or another one with it off. */
    private DeviceContext context(boolean ordering) {
        return ordering ? ctx : open(ContextOptions.defaults().withAutoOrdering(false));
    }

    /** An I32 buffer of {@link #N} elements set to {@code value}, the setting finished. */
    private DeviceBuffer buffer(DeviceContext c, int value) {
        DeviceBuffer b = closeLater(c.allocate(DType.I32, N));
        await(c.stream().enqueueFill(b, value));
        return b;
    }

    private void copyInOut(DeviceStream s, DeviceBuffer src, DeviceBuffer dst) {
        s.enqueueLaunch(fn(s.context(), COPY_IN_OUT), LaunchConfig.forElements(src.count()), src, dst, src.count());
    }

    private void mulAdd(DeviceStream s, DeviceBuffer v, int mul, int add) {
        s.enqueueLaunch(fn(s.context(), TestKernels.MUL_ADD), LaunchConfig.forElements(v.count()), v, v.count(), mul, add);
    }

    /**
     * Enqueues {@code first} on a new stream A behind a closed gate, then {@code second} on a new stream B of
     * {@code onB}'s context. With ordering on in B's context, asserts that B's operation waits for the gate; with it off,
     * that B's operation finishes while the gate is closed (before A's operation can run). Then opens the gate and waits
     * for both streams. Returns B's stream.
     */
    private DeviceStream race(DeviceContext onA, Consumer<DeviceStream> first, DeviceContext onB,
            Function<DeviceStream, DeviceFuture<?>> second) {
        DeviceStream a = onA.createStream();
        DeviceStream b = onB.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        a.waitFor(gate);
        first.accept(a);
        DeviceFuture<?> f = second.apply(b);
        if (onB.options().autoOrdering()) {
            sleep(Duration.ofMillis(50));
            assertFalse(f.isDone(), "B's operation must wait, on the device, for A's, held behind the gate");
            assertEquals(1, b.automaticWaits(), "one automatic wait, on stream A");
        } else {
            await(f); // completes with the gate closed: the race the negative control needs
            assertEquals(0, b.automaticWaits());
        }
        gate.complete(null);
        await(f);
        a.synchronize();
        b.synchronize();
        return b;
    }

    private DeviceStream race(DeviceContext c, Consumer<DeviceStream> first, Function<DeviceStream, DeviceFuture<?>> second) {
        return race(c, first, c, second);
    }

    /** Runs {@code second} on B while A's {@code first} is held, and asserts B neither waited nor needed to. */
    private void noWait(DeviceContext c, Consumer<DeviceStream> first, Function<DeviceStream, DeviceFuture<?>> second) {
        DeviceStream a = c.createStream();
        DeviceStream b = c.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        a.waitFor(gate);
        first.accept(a);
        DeviceFuture<?> f = second.apply(b);
        await(f); // with the gate closed
        assertEquals(0, b.automaticWaits(), "no automatic wait");
        gate.complete(null);
        a.synchronize();
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(e);
        }
    }

    // ---------------------------------------------------------------- read after write

    /** A kernel (read-write) on A, a download on B: the download must see the kernel's result. */
    private int[] readAfterLaunch(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        int[] out = new int[N];
        race(c, a -> mulAdd(a, x, 1, 1), b -> b.enqueueCopy(x, HostData.of(out)));
        return out;
    }

    @Test
    void downloadWaitsForKernelOfAnotherStream() {
        assertArrayEquals(filled(N, 6), readAfterLaunch(true));
    }

    @Test
    void downloadReadsBeforeKernelOfAnotherStreamWithOrderingOff() {
        assertArrayEquals(filled(N, 5), readAfterLaunch(false), "negative control: the download ran first");
    }

    /** An upload on A, a kernel reading it ({@code const int*}) on B. */
    private int[] launchReadAfterUpload(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        DeviceBuffer y = buffer(c, 0);
        race(c, a -> a.enqueueCopy(HostData.of(filled(N, 7)), x), b -> {
            copyInOut(b, x, y);
            return b.enqueueMarker();
        });
        return readInts(c.stream(), y);
    }

    @Test
    void kernelReadingWaitsForUploadOfAnotherStream() {
        assertArrayEquals(filled(N, 7), launchReadAfterUpload(true));
    }

    @Test
    void kernelReadsBeforeUploadOfAnotherStreamWithOrderingOff() {
        assertArrayEquals(filled(N, 5), launchReadAfterUpload(false), "negative control: the kernel ran first");
    }

    // ---------------------------------------------------------------- write after read

    /** A download on A, a fill of the same buffer on B: the download must see the value before the fill. */
    private int[] fillAfterDownload(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        int[] out = new int[N];
        race(c, a -> a.enqueueCopy(x, HostData.of(out)), b -> b.enqueueFill(x, 9));
        assertArrayEquals(filled(N, 9), readInts(c.stream(), x));
        return out;
    }

    @Test
    void fillWaitsForDownloadOfAnotherStream() {
        assertArrayEquals(filled(N, 5), fillAfterDownload(true));
    }

    @Test
    void fillOverwritesBeforeDownloadOfAnotherStreamWithOrderingOff() {
        assertArrayEquals(filled(N, 9), fillAfterDownload(false), "negative control: the fill ran first");
    }

    /** A kernel reading x on A, a memset of x on B. */
    private int[] memsetAfterLaunchRead(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        DeviceBuffer y = buffer(c, 1);
        race(c, a -> copyInOut(a, x, y), b -> b.enqueueMemset(x, 0));
        return readInts(c.stream(), y);
    }

    @Test
    void memsetWaitsForKernelReadingOnAnotherStream() {
        assertArrayEquals(filled(N, 5), memsetAfterLaunchRead(true));
    }

    @Test
    void memsetClearsBeforeKernelReadsOnAnotherStreamWithOrderingOff() {
        assertArrayEquals(filled(N, 0), memsetAfterLaunchRead(false), "negative control: the memset ran first");
    }

    // ---------------------------------------------------------------- write after write

    /** A fill on A, a read-write kernel on B: B's kernel must apply after the fill. */
    private int[] launchAfterFill(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        race(c, a -> a.enqueueFill(x, 1), b -> {
            mulAdd(b, x, 1, 10);
            return b.enqueueMarker();
        });
        return readInts(c.stream(), x);
    }

    @Test
    void kernelWritingWaitsForFillOfAnotherStream() {
        assertArrayEquals(filled(N, 11), launchAfterFill(true));
    }

    @Test
    void fillOverwritesKernelOfAnotherStreamWithOrderingOff() {
        assertArrayEquals(filled(N, 1), launchAfterFill(false), "negative control: the kernel ran before the fill");
    }

    /** A device-to-device copy into x on A, a fill of x on B. */
    private int[] fillAfterDeviceCopy(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        DeviceBuffer z = buffer(c, 3);
        race(c, a -> a.enqueueCopy(z, x), b -> b.enqueueFill(x, 4));
        return readInts(c.stream(), x);
    }

    @Test
    void fillWaitsForDeviceCopyOfAnotherStream() {
        assertArrayEquals(filled(N, 4), fillAfterDeviceCopy(true));
    }

    @Test
    void deviceCopyOverwritesFillOfAnotherStreamWithOrderingOff() {
        assertArrayEquals(filled(N, 3), fillAfterDeviceCopy(false), "negative control: the fill ran before the copy");
    }

    // ---------------------------------------------------------------- slices

    /** A fill of the first three quarters on A, a download of the second half on B: they overlap in the third quarter. */
    private int[] overlappingSlices(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        int[] out = new int[N / 2];
        race(c, a -> a.enqueueFill(x.slice(0, 3 * N / 4), 1), b -> b.enqueueCopy(x.slice(N / 2, N / 2), HostData.of(out)));
        return out;
    }

    @Test
    void downloadOfOverlappingSliceWaitsForFillOfAnotherStream() {
        int[] expected = filled(N / 2, 5);
        java.util.Arrays.fill(expected, 0, N / 4, 1);
        assertArrayEquals(expected, overlappingSlices(true));
    }

    @Test
    void downloadOfOverlappingSliceRacesWithOrderingOff() {
        assertArrayEquals(filled(N / 2, 5), overlappingSlices(false), "negative control: the download ran first");
    }

    @Test
    void disjointSlicesWrittenByTwoStreamsDoNotWait() {
        DeviceBuffer x = buffer(ctx, 5);
        noWait(ctx, a -> a.enqueueFill(x.slice(0, N / 2), 1), b -> b.enqueueFill(x.slice(N / 2, N / 2), 2));
        int[] expected = filled(N, 2);
        java.util.Arrays.fill(expected, 0, N / 2, 1);
        assertArrayEquals(expected, readInts(ctx.stream(), x));
    }

    @Test
    void wholeBufferWaitsForSliceWrittenByAnotherStream() {
        DeviceBuffer x = buffer(ctx, 5);
        int[] out = new int[N];
        race(ctx, a -> a.enqueueFill(x.slice(N - 1, 1), 8), b -> b.enqueueCopy(x, HostData.of(out)));
        assertEquals(8, out[N - 1]);
        assertEquals(5, out[0]);
    }

    // ---------------------------------------------------------------- pitched 2-D copies

    // A rectangle of 3 rows of 4 elements, 8 apart, from element 16: its extent is elements 16 to 35 (3 * 8 - 4 = 20).

    @Test
    void copy2DWaitsForAWriteOfTheLastElementOfItsRectangleOnAnotherStream() {
        DeviceBuffer x = buffer(ctx, 5);
        int[] out = new int[12];
        race(ctx, a -> a.enqueueFill(x.slice(35, 1), 8), b -> b.enqueueCopy2D(x.slice(16, N - 16), 8, HostData.of(out), 4, 4, 3));
        assertArrayEquals(new int[] {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 8}, out);
    }

    @Test
    void copy2DWaitsForAWriteBetweenItsRowsOnAnotherStream() {
        // conservative: the gap between two rows lies inside the extent, so a write there is waited for too
        DeviceBuffer x = buffer(ctx, 5);
        int[] out = new int[12];
        race(ctx, a -> a.enqueueFill(x.slice(20, 4), 8), b -> b.enqueueCopy2D(x.slice(16, N - 16), 8, HostData.of(out), 4, 4, 3));
        assertArrayEquals(filled(12, 5), out);
    }

    @Test
    void copy2DDoesNotWaitForWritesOutsideItsExtent() {
        DeviceBuffer x = buffer(ctx, 5);
        int[] out = new int[12];
        noWait(ctx, a -> {
            a.enqueueFill(x.slice(0, 16), 1);
            a.enqueueFill(x.slice(36, N - 36), 2);
        }, b -> b.enqueueCopy2D(x.slice(16, N - 16), 8, HostData.of(out), 4, 4, 3));
        assertArrayEquals(filled(12, 5), out);
    }

    @Test
    void downloadWaitsForA2DUploadOfAnotherStream() {
        DeviceBuffer x = buffer(ctx, 5);
        int[] out = new int[N];
        race(ctx, a -> a.enqueueCopy2D(HostData.of(filled(12, 7)), 4, x.slice(16, N - 16), 8, 4, 3),
                b -> b.enqueueCopy(x, HostData.of(out)));
        int[] expected = filled(N, 5);
        for (int row = 0; row < 3; row++) {
            java.util.Arrays.fill(expected, 16 + row * 8, 20 + row * 8, 7);
        }
        assertArrayEquals(expected, out);
    }

    // ---------------------------------------------------------------- what never waits

    @Test
    void readsAfterReadsOnTwoStreamsDoNotWait() {
        DeviceBuffer x = buffer(ctx, 5);
        DeviceBuffer y = buffer(ctx, 0);
        DeviceBuffer w = buffer(ctx, 0);
        int[] out = new int[N];
        noWait(ctx, a -> copyInOut(a, x, y), b -> {
            copyInOut(b, x, w);
            return b.enqueueCopy(x, HostData.of(out));
        });
        assertArrayEquals(filled(N, 5), out);
        assertArrayEquals(filled(N, 5), readInts(ctx.stream(), w));
    }

    @Test
    void operationsOnOtherBuffersDoNotWait() {
        DeviceBuffer x = buffer(ctx, 5);
        DeviceBuffer y = buffer(ctx, 5);
        noWait(ctx, a -> mulAdd(a, x, 2, 0), b -> {
            mulAdd(b, y, 3, 0);
            return b.enqueueFill(y, 1);
        });
    }

    @Test
    void operationsOnOneStreamInsertNoWait() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer x = buffer(ctx, 5);
        DeviceBuffer y = buffer(ctx, 0);
        for (int i = 0; i < 10; i++) {
            mulAdd(s, x, 1, 1);
            copyInOut(s, x, y);
            s.enqueueFill(x.slice(0, 1), 0);
        }
        assertArrayEquals(readInts(s, x), readInts(s, x));
        assertEquals(0, s.automaticWaits());
    }

    @Test
    void finishedWorkOfAnotherStreamIsNotWaitedFor() {
        DeviceBuffer x = buffer(ctx, 5);
        DeviceStream a = ctx.createStream();
        DeviceStream b = ctx.createStream();
        await(a.enqueueFill(x, 1));
        await(b.enqueueFill(x, 2));
        assertEquals(0, b.automaticWaits(), "A's fill had finished: nothing to wait for");
    }

    @Test
    void unorderedViewOptsOut() {
        DeviceBuffer x = buffer(ctx, 5);
        int[] out = new int[N];
        noWait(ctx, a -> mulAdd(a, x, 1, 1), b -> b.enqueueCopy(x.unordered(), HostData.of(out)));
        assertArrayEquals(filled(N, 5), out, "the unordered view's download ran before the kernel it was not ordered after");
        assertFalse(x.unordered().isOrdered());
        assertFalse(x.unordered().slice(0, 1).isOrdered(), "a slice of an unordered view is unordered");
        assertTrue(x.slice(0, 1).isOrdered());
    }

    // ---------------------------------------------------------------- across contexts, allocations, graphs, frees

    /** A fill on a stream of another context, then a peer copy from that buffer on a stream of this one. */
    private int[] peerCopyAfterWrite(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceContext other = open(ContextOptions.defaults().withAutoOrdering(ordering));
        DeviceBuffer remote = buffer(other, 5);
        DeviceBuffer local = buffer(c, 0);
        race(other, a -> a.enqueueFill(remote, 8), c, b -> b.enqueueCopy(remote, local));
        return readInts(c.stream(), local);
    }

    @Test
    void peerCopyWaitsForWriteOnStreamOfOtherContext() {
        assertArrayEquals(filled(N, 8), peerCopyAfterWrite(true));
    }

    @Test
    void peerCopyReadsBeforeWriteOfOtherContextWithOrderingOff() {
        assertArrayEquals(filled(N, 5), peerCopyAfterWrite(false), "negative control: the peer copy ran first");
    }

    private boolean fillOfStreamOrderedAllocationWaits(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceStream a = c.createStream();
        DeviceStream b = c.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        a.waitFor(gate);
        DeviceBuffer x = a.enqueueAllocate(DType.I32, N);
        DeviceFuture<Void> fill = b.enqueueFill(x, 3);
        sleep(Duration.ofMillis(50));
        boolean waited = !fill.isDone();
        gate.complete(null);
        await(fill);
        assertArrayEquals(filled(N, 3), readInts(b, x));
        return waited;
    }

    @Test
    void useOnAnotherStreamWaitsForStreamOrderedAllocation() {
        assertTrue(fillOfStreamOrderedAllocationWaits(true), "the fill must wait for the allocation held behind the gate");
    }

    @Test
    void useOnAnotherStreamDoesNotWaitForAllocationWithOrderingOff() {
        assertFalse(fillOfStreamOrderedAllocationWaits(false), "negative control: the fill ran before the allocation");
    }

    /** A graph that adds 1 to x, launched on B while a fill of x is held on A. */
    private int[] graphAfterFill(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        DeviceGraph g;
        try {
            g = closeLater(c.createStream().capture(s -> mulAdd(s, x, 1, 1)));
        } catch (UnsupportedOnBackendException e) {
            Assumptions.abort("stream capture is not supported on " + c.api().id() + ": " + e.getMessage());
            throw e;
        }
        race(c, a -> a.enqueueFill(x, 20), b -> g.enqueueLaunch(b));
        return readInts(c.stream(), x);
    }

    @Test
    void graphLaunchWaitsForWriteOfAnotherStream() {
        assertArrayEquals(filled(N, 21), graphAfterFill(true));
    }

    @Test
    void graphLaunchRunsBeforeWriteOfAnotherStreamWithOrderingOff() {
        assertArrayEquals(filled(N, 20), graphAfterFill(false), "negative control: the graph ran before the fill");
    }

    /** Frees are ordered after every use whatever the option: a buffer closed while a held download reads it. */
    private void freeAfterHeldRead(boolean ordering) {
        DeviceContext c = context(ordering);
        DeviceBuffer x = buffer(c, 5);
        DeviceStream a = c.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        a.waitFor(gate);
        int[] out = new int[N];
        DeviceFuture<Void> read = a.enqueueCopy(x, HostData.of(out));
        DeviceFuture<Void> free = c.createStream().enqueueFree(x);
        sleep(Duration.ofMillis(50));
        assertFalse(free.isDone(), "the free must wait for the held download");
        gate.complete(null);
        await(read);
        await(free);
        assertArrayEquals(filled(N, 5), out);
    }

    @Test
    void freeWaitsForReadOfAnotherStream() {
        freeAfterHeldRead(true);
    }

    @Test
    void freeWaitsForReadOfAnotherStreamWithOrderingOffToo() {
        freeAfterHeldRead(false);
    }
}
