package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@code enqueueHostFunction}: host code in stream order, after the work before it and before the work after it. */
public abstract class AbstractHostFunctionTest extends ConformanceBase {

    @Test
    void hostFunctionRunsAfterThePrecedingWork() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(DType.I32, 32);
        HostBuffer h = ctx.allocateHost(DType.I32, 32);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> slow = slowFill(s, d, 11, Duration.ofMillis(200));
        DeviceFuture<Void> download = s.enqueueCopy(d, h);
        AtomicReference<int[]> seen = new AtomicReference<>();
        AtomicReference<Boolean> precedingDone = new AtomicReference<>();
        DeviceFuture<Void> host = s.enqueueHostFunction(() -> {
            precedingDone.set(slow.isDone() && download.isDone());
            int[] v = new int[32];
            for (int i = 0; i < 32; i++) {
                v[i] = h.getInt(i);
            }
            seen.set(v);
        });
        gate.complete(null);
        await(host);
        assertArrayEquals(filled(32, 11), seen.get(), "the host function sees the download enqueued before it");
        assertEquals(Boolean.TRUE, precedingDone.get(), "the futures of the preceding work have completed");
    }

    @Test
    void hostFunctionRunsBeforeTheLaterWork() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = intBuffer(ctx, filled(16, 0));
        HostBuffer h = ctx.allocateHost(DType.I32, 16);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        AtomicReference<DeviceFuture<Void>> later = new AtomicReference<>();
        AtomicReference<Boolean> laterDoneWhileRunning = new AtomicReference<>();
        s.enqueueHostFunction(() -> {
            try {
                Thread.sleep(150);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (int i = 0; i < 16; i++) {
                h.setInt(i, 40 + i);
            }
            laterDoneWhileRunning.set(later.get().isDone());
        });
        later.set(s.enqueueCopy(h, d));
        gate.complete(null);
        await(later.get());
        assertEquals(Boolean.FALSE, laterDoneWhileRunning.get(), "work after the host function waits for it");
        assertArrayEquals(iota(16, 40), readInts(s, d), "the upload after the host function sees what it wrote");
    }

    @Test
    void hostFunctionsRunInStreamOrderOffTheCallersThread() {
        DeviceStream s = ctx.createStream();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
        DeviceFuture<Void> last = null;
        for (int i = 0; i < 50; i++) {
            int k = i;
            last = s.enqueueHostFunction(() -> {
                order.add(k);
                threads.add(Thread.currentThread());
            });
        }
        await(last);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            expected.add(i);
        }
        assertEquals(expected, order);
        for (Thread t : threads) {
            assertNotSame(Thread.currentThread(), t, "host functions run off the caller's thread");
            assertTrue(!t.getName().startsWith("sluice-completion-"), "host functions must not run on the completion thread");
        }
    }

    @Test
    void throwingHostFunctionFailsItsFutureAndTheStreamContinues() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer d = ctx.allocate(DType.I32, 8);
        IllegalArgumentException boom = new IllegalArgumentException("host step failed");
        DeviceFuture<Void> host = s.enqueueHostFunction(() -> {
            throw boom;
        });
        DeviceFuture<Void> fill = s.enqueueFill(d, 5);
        assertSame(boom, awaitFailure(host));
        await(fill);
        assertArrayEquals(filled(8, 5), readInts(s, d));
        assertStreamUsable(s);
    }

    @Test
    void hostFunctionMayEnqueueAndWaitForOtherWork() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        DeviceBuffer d = intBuffer(ctx, filled(8, 0));
        AtomicReference<int[]> seen = new AtomicReference<>();
        await(s.enqueueHostFunction(() -> {
            other.enqueueFill(d, 6);
            seen.set(readInts(other, d));
        }));
        assertArrayEquals(filled(8, 6), seen.get());
    }

    @Test
    void waitingInAHostFunctionForLaterWorkOfItsOwnStreamIsRefused() {
        // That work waits until the host function returns: join() used to wait for ever, wedging the stream.
        DeviceStream s = ctx.createStream();
        CompletableFuture<DeviceFuture<Void>> later = new CompletableFuture<>();
        AtomicReference<DeviceFuture<Void>> self = new AtomicReference<>();
        List<Throwable> refusals = Collections.synchronizedList(new ArrayList<>());
        DeviceFuture<Void> host = s.enqueueHostFunction(() -> {
            DeviceFuture<Void> after = later.join();
            for (DeviceFuture<Void> f : List.of(after, self.get())) {
                try {
                    f.get(10, TimeUnit.SECONDS); // a timeout where the wait is not refused: the test fails, not hangs
                } catch (Throwable t) {
                    refusals.add(t);
                }
            }
            if (refusals.stream().allMatch(t -> t instanceof IllegalStateException)) {
                try {
                    after.join();
                } catch (Throwable t) {
                    refusals.add(t);
                }
            }
        });
        self.set(host);
        later.complete(s.enqueueMarker());
        await(host);
        assertEquals(3, refusals.size(), refusals.toString());
        for (Throwable t : refusals) {
            assertTrue(t instanceof IllegalStateException && t.getMessage().contains("host function of the same stream"),
                    t.toString());
        }
        assertStreamUsable(s);
    }

    @Test
    void closingTheContextRunsAPendingHostFunctionAndTheWorkAfterIt() {
        // A host function's turn is a wait that ends by itself: close() waits for all work, so it must not drop it as
        // it drops work held behind a stage that never completes.
        DeviceContext c = open(ContextOptions.defaults());
        DeviceStream s = c.createStream();
        DeviceBuffer d = intBuffer(c, filled(16, 0));
        slowFill(s, d, 7, Duration.ofMillis(100)); // the function's turn comes after the close has begun
        AtomicBoolean ran = new AtomicBoolean();
        DeviceFuture<Void> host = s.enqueueHostFunction(() -> ran.set(true));
        int[] out = filled(16, -1);
        DeviceFuture<Void> download = s.enqueueCopy(d, HostData.of(out));
        c.close();
        assertTrue(ran.get(), "the host function ran before close() returned");
        assertTrue(host.isDone() && !host.isCompletedExceptionally(), host.toString());
        assertTrue(download.isDone() && !download.isCompletedExceptionally(), download.toString());
        assertArrayEquals(filled(16, 7), out, "the work after the host function ran");
        assertFalse(c.isFaulted());
    }
}
