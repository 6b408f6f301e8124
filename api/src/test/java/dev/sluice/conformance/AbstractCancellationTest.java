package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Cancelling a future is for its observers only: the operation still runs, and nothing it uses is freed, or handed out
 * again, before the device has finished it. Each test cancels an operation that is still waiting to run, closes the
 * memory it uses, then allocates and writes memory of the same size so that memory freed too early would be reused and
 * overwritten (on CUDA a stream-ordered allocation of the same size gets the freed block back), and checks the data the
 * cancelled operation produced. On the CPU simulator memory freed early faults the kernel instead.
 */
public abstract class AbstractCancellationTest extends ConformanceBase {

    private static final int N = 1 << 20;
    private static final Duration BUSY = Duration.ofMillis(500);

    @Test
    void cancellingAKernelAndClosingItsInputOnAnotherStreamFreesNothingBeforeTheKernelRuns() {
        DeviceStream home = closeLater(ctx.createStream());
        DeviceStream other = closeLater(ctx.createStream());
        DeviceBuffer src = home.enqueueAllocate(DType.I32, N);
        DeviceBuffer dst = home.enqueueAllocate(DType.I32, N);
        home.enqueueFill(src, 1);
        home.enqueueFill(dst, 0);
        home.synchronize();

        DeviceFunction copyI32 = fn(TestKernels.COPY_I32); // compiled before the slow kernel starts: loading may wait for it
        fn(TestKernels.SLOW_FILL);
        DeviceBuffer busy = closeLater(ctx.allocate(DType.I32, 1));
        slowFill(other, busy, 3, BUSY); // holds `other` for half a second
        DeviceFuture<Void> copy = other.enqueueLaunch(copyI32, LaunchConfig.forElements(N), src, dst, (long) N);
        assertTrue(copy.cancel(false), "a pending operation's future can be cancelled");
        assertTrue(copy.isCancelled());
        src.close();

        List<DeviceBuffer> reuse = overwriteFreshBuffers(home, 7);
        other.synchronize();
        home.synchronize();
        assertArrayEquals(filled(N, 1), readInts(home, dst), "the cancelled kernel must still read src as it was");
        assertFalse(ctx.isFaulted());
        reuse.forEach(DeviceBuffer::close);
        dst.close();
    }

    @Test
    void cancellingACopyFromPinnedMemoryAndClosingItKeepsTheMemoryForTheCopy() {
        DeviceStream other = closeLater(ctx.createStream());
        HostBuffer pinned = ctx.allocateHost(DType.I32, N);
        for (long i = 0; i < N; i++) {
            pinned.segment().setAtIndex(ValueLayout.JAVA_INT, i, 5);
        }
        DeviceBuffer dst = closeLater(ctx.allocate(DType.I32, N));
        fn(TestKernels.SLOW_FILL);
        DeviceBuffer busy = closeLater(ctx.allocate(DType.I32, 1));
        slowFill(other, busy, 3, BUSY);
        DeviceFuture<Void> upload = other.enqueueCopy(pinned, dst);
        assertTrue(upload.cancel(false));
        pinned.close();

        List<HostBuffer> reuse = new ArrayList<>();
        for (int k = 0; k < 4; k++) { // pinned memory freed early would likely come back here
            HostBuffer h = ctx.allocateHost(DType.I32, N);
            for (long i = 0; i < N; i++) {
                h.segment().setAtIndex(ValueLayout.JAVA_INT, i, 9);
            }
            reuse.add(h);
        }
        other.synchronize();
        assertArrayEquals(filled(N, 5), readInts(ctx.stream(), dst), "the cancelled copy must still read the pinned memory as it was");
        assertFalse(ctx.isFaulted());
        reuse.forEach(HostBuffer::close);
    }

    @Test
    void cancellingHeldWorkAndClosingItsBufferKeepsTheBufferUntilTheWorkHasRun() {
        DeviceStream held = closeLater(ctx.createStream());
        DeviceBuffer src = ctx.allocate(DType.I32, N);
        DeviceBuffer dst = closeLater(ctx.allocate(DType.I32, N));
        await(ctx.stream().enqueueFill(src, 1));
        await(ctx.stream().enqueueFill(dst, 0));

        DeviceFunction copyI32 = fn(TestKernels.COPY_I32);
        CompletableFuture<Void> stage = new CompletableFuture<>();
        held.waitFor(stage); // everything after this waits for the stage
        DeviceFuture<Void> copy = held.enqueueLaunch(copyI32, LaunchConfig.forElements(N), src, dst, (long) N);
        assertTrue(copy.cancel(false));
        src.close();

        List<DeviceBuffer> reuse = overwriteFreshBuffers(ctx.stream(), 7);
        stage.complete(null);
        held.synchronize();
        ctx.synchronize();
        assertArrayEquals(filled(N, 1), readInts(ctx.stream(), dst), "the held kernel must still read src as it was");
        assertFalse(ctx.isFaulted());
        reuse.forEach(DeviceBuffer::close);
    }

    @Test
    void aCancelledFutureStillOrdersAWaitOfAnotherStream() {
        DeviceStream first = closeLater(ctx.createStream());
        DeviceStream second = closeLater(ctx.createStream());
        DeviceBuffer out = closeLater(ctx.allocate(DType.I32, 16));
        fn(TestKernels.SLOW_FILL);
        DeviceFuture<Void> slow = slowFill(first, out, 4, Duration.ofMillis(200));
        assertTrue(slow.cancel(false));
        second.waitFor(slow);
        int[] seen = readInts(second, out);
        assertArrayEquals(filled(16, 4), seen, "the wait on the cancelled future still waited for its kernel");
        assertInstanceOf(CancellationException.class, awaitFailure(slow));
    }

    /** Allocates and fills, on {@code s}, buffers of the size of those the tests free, so early reuse overwrites them. */
    private static List<DeviceBuffer> overwriteFreshBuffers(DeviceStream s, int value) {
        List<DeviceBuffer> bs = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            DeviceBuffer b = s.enqueueAllocate(DType.I32, N);
            s.enqueueFill(b, value);
            bs.add(b);
        }
        return bs;
    }
}
