package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Memory that repeated work's body has recorded an operation on is in use from the moment the operation is recorded,
 * though nothing reaches the device before the body returns: {@link HostBuffer#whenIdle()} asked in the body waits for
 * the operation to run, a {@code close()} in the body lets it run and frees the memory after it (as for an operation
 * enqueued before the close), and a body that throws drops its uses and lets the memory go. A pool that reuses memory
 * once it is idle (as the Arrow allocator's does) must never see it idle early.
 */
public abstract class AbstractRepeatedWorkMemoryTest extends ConformanceBase {

    private static final int N = 256;

    private RepeatedWork work(DeviceStream s) {
        return closeLater(s.repeatedWork());
    }

    private static void fill(HostBuffer h, int from) {
        for (int k = 0; k < N; k++) {
            h.setInt(k, from + k);
        }
    }

    private static int[] read(HostBuffer h) {
        int[] out = new int[N];
        for (int k = 0; k < N; k++) {
            out[k] = h.getInt(k);
        }
        return out;
    }

    /** Completes {@code reused} after writing {@code value} over {@code h}, as a pool's next user would, once idle. */
    private static CompletableFuture<Void> reuseWhenIdle(CompletionStage<Void> idle, HostBuffer h, int value) {
        return idle.thenRun(() -> {
            for (int k = 0; k < N; k++) {
                h.setInt(k, value);
            }
        }).toCompletableFuture();
    }

    @Test
    void pinnedMemoryARecordedUploadReadsIsNotIdleUntilTheUploadHasRun() {
        DeviceStream s = ctx.createStream();
        HostBuffer h = closeLater(ctx.allocateHost(DType.I32, N));
        DeviceBuffer d = closeLater(ctx.allocate(DType.I32, N));
        RepeatedWork w = work(s);
        for (int call = 0; call < 3; call++) {
            fill(h, 1 + call);
            List<CompletableFuture<Void>> reused = new ArrayList<>();
            await(w.enqueue(c -> {
                c.enqueueCopy(h, d);
                CompletionStage<Void> idle = h.whenIdle();
                assertFalse(idle.toCompletableFuture().isDone(), "idle while a recorded upload has not even been submitted");
                reused.add(reuseWhenIdle(idle, h, 999));
            }));
            await(reused.getFirst());
            assertArrayEquals(iota(N, 1 + call), readInts(s, d), "call " + call + ": the upload read the data it was given");
        }
        assertEquals(0, w.fallbacks(), "asking whenIdle() in the body does not stop the work replaying");
    }

    @Test
    void pinnedMemoryARecordedDownloadWritesIsNotIdleUntilTheDownloadHasRun() {
        DeviceStream s = ctx.createStream();
        HostBuffer h = closeLater(ctx.allocateHost(DType.I32, N));
        DeviceBuffer d = closeLater(intBuffer(ctx, filled(N, 5)));
        RepeatedWork w = work(s);
        List<CompletableFuture<Void>> reused = new ArrayList<>();
        DeviceFuture<Void> call = w.enqueue(c -> {
            c.enqueueCopy(d, h);
            reused.add(reuseWhenIdle(h.whenIdle(), h, 7));
        });
        await(call);
        await(reused.getFirst());
        assertArrayEquals(filled(N, 7), read(h), "the next user's data is not overwritten by the recorded download");
        CompletionStage<Void> after = h.whenIdle();
        await(after.toCompletableFuture());
    }

    @Test
    void whenIdleAskedAfterTheBodyWaitsForItsRecordedCopies() {
        DeviceStream s = ctx.createStream();
        HostBuffer h = closeLater(ctx.allocateHost(DType.I32, N));
        DeviceBuffer d = closeLater(intBuffer(ctx, filled(N, 3)));
        RepeatedWork w = work(s);
        DeviceFuture<Void> call = w.enqueue(c -> c.enqueueCopy(d, h));
        CompletableFuture<Void> reused = reuseWhenIdle(h.whenIdle(), h, 11);
        await(call);
        await(reused);
        assertArrayEquals(filled(N, 11), read(h));
    }

    @Test
    void hostMemoryClosedInTheBodyIsUploadedFromAndDownloadedIntoBeforeItIsFreed() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = closeLater(ctx.allocate(DType.I32, N));
        DeviceBuffer copied = closeLater(ctx.allocate(DType.I32, N));
        RepeatedWork w = work(s);
        HostBuffer source = ctx.allocateHost(DType.I32, N);
        fill(source, 40);
        HostBuffer target = ctx.allocateHost(DType.I32, N);
        List<DeviceFuture<?>> recorded = new ArrayList<>();
        await(w.enqueue(c -> {
            recorded.add(c.enqueueCopy(source, d));
            source.close(); // after the upload was recorded: it still runs, then the memory is freed
            recorded.add(c.enqueueCopy(d, target));
            recorded.add(c.enqueueCopy(target, copied)); // what the download wrote, read back before the free
            target.close();
        }));
        for (DeviceFuture<?> f : recorded) {
            assertTrue(f.isDone() && !f.isCompletedExceptionally(), "every recorded operation ran: " + f);
        }
        assertArrayEquals(iota(N, 40), readInts(s, d), "the upload read the closed buffer's data before its free");
        assertArrayEquals(iota(N, 40), readInts(s, copied), "the download wrote the closed buffer before its free");
        await(source.whenReleased().toCompletableFuture());
        await(target.whenReleased().toCompletableFuture());
        assertEquals(0, w.fallbacks(), "closing host buffers in the body does not stop the work replaying");
    }

    @Test
    void deviceMemoryClosedInTheBodyIsFreedAfterTheRecordedWorkUsedIt() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        AtomicLong freed = new AtomicLong();
        DeviceListener.Registration listening = ctx.addListener(new DeviceListener() {
            @Override
            public void memoryFreed(DeviceContext context, long bytes) {
                freed.addAndGet(bytes);
            }
        });
        try {
            RepeatedWork w = work(s);
            DeviceBuffer result = closeLater(intBuffer(ctx, filled(N, 0)));
            for (int call = 0; call < 3; call++) {
                DeviceBuffer onOther = other.enqueueAllocate(DType.I32, N); // freed on another stream
                await(other.enqueueFill(onOther, 2));
                DeviceBuffer onThis = s.enqueueAllocate(DType.I32, N);               // freed on the recording stream
                long before = freed.get();
                await(w.enqueue(c -> {
                    c.enqueueFill(onThis, 5);
                    c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), onOther, (long) N, 3, 1); // 2 * 3 + 1
                    c.enqueueCopy(onOther, result);
                    onOther.close();
                    c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), result, (long) N, 1, 0);
                    c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), onThis, (long) N, 2, 0);
                    c.enqueueCopy(onThis.slice(0, 1), result.slice(0, 1));
                    onThis.close();
                }));
                int[] expected = filled(N, 7);
                expected[0] = 10;
                assertArrayEquals(expected, readInts(s, result), "call " + call + " used both buffers before their frees");
                other.synchronize();
                s.synchronize();
                assertEquals(before + 2L * N * 4, freed.get(), "call " + call + ": both buffers freed after it");
            }
            assertEquals(0, w.fallbacks(), "closing buffers in the body does not stop the work replaying");
        } finally {
            listening.close();
        }
    }

    @Test
    void anExplicitFreeOnAnotherStreamSubmitsTheRecordedWorkFirst() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        RepeatedWork w = work(s);
        DeviceBuffer result = closeLater(intBuffer(ctx, filled(N, 0)));
        DeviceBuffer b = other.enqueueAllocate(DType.I32, N);
        await(other.enqueueFill(b, 4));
        List<DeviceFuture<?>> freedAt = new ArrayList<>();
        await(w.enqueue(c -> {
            c.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), b, (long) N, 2, 0);
            c.enqueueCopy(b, result);
            freedAt.add(other.enqueueFree(b)); // ordered after what the body recorded on b
        }));
        await(freedAt.getFirst());
        assertArrayEquals(filled(N, 8), readInts(s, result));
        assertEquals(1, w.fallbacks(), "the free made the call run as plain enqueues");
    }

    @Test
    void aBodyThatThrowsDropsItsUsesAndTheMemoryIsReleased() {
        DeviceStream s = ctx.createStream();
        RepeatedWork w = work(s);
        HostBuffer h = ctx.allocateHost(DType.I32, N);
        HostBuffer kept = closeLater(ctx.allocateHost(DType.I32, N));
        DeviceBuffer d = s.enqueueAllocate(DType.I32, N);
        List<CompletionStage<Void>> idle = new ArrayList<>();
        List<DeviceFuture<?>> recorded = new ArrayList<>();
        IllegalStateException thrown = new IllegalStateException("the body gave up");
        Exception e = assertThrows(Exception.class, () -> w.enqueue(c -> {
            recorded.add(c.enqueueCopy(h, d));
            recorded.add(c.enqueueCopy(d, kept));
            idle.add(kept.whenIdle());
            h.close();
            d.close();
            throw thrown;
        }));
        assertSame(thrown, e);
        for (DeviceFuture<?> f : recorded) {
            assertInstanceOf(IllegalStateException.class, awaitFailure(f), "a dropped operation fails its future");
        }
        await(idle.getFirst().toCompletableFuture());
        await(h.whenReleased().toCompletableFuture());
        assertTrue(d.isClosed());
        assertEquals(0, w.replays(), "nothing of the call ran");
        DeviceBuffer next = closeLater(intBuffer(ctx, filled(N, 9)));
        await(w.enqueue(c -> c.enqueueCopy(next, kept)));
        assertArrayEquals(filled(N, 9), read(kept), "the work and the memory it kept are usable after the throw");
    }
}
