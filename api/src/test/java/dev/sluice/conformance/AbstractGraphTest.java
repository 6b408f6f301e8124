package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Api;
import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceStream;
import dev.sluice.LaunchConfig;
import dev.sluice.UnsupportedOnBackendException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Graph capture and replay. A backend that cannot capture throws {@link UnsupportedOnBackendException} and
 * the tests are skipped with that reason, except on the CPU backend, which must capture.
 */
public abstract class AbstractGraphTest extends ConformanceBase {

    private DeviceGraph captureOrSkip(DeviceStream s, Consumer<DeviceStream> body) {
        try {
            return closeLater(s.capture(body));
        } catch (UnsupportedOnBackendException e) {
            if (target().api() == Api.CPU) {
                fail("the CPU backend must support stream capture", e);
            }
            Assumptions.abort("stream capture is not supported on " + s.context().backendName() + ": " + e.getMessage());
            throw e;
        }
    }

    @Test
    void capturedWorkRunsOnlyWhenTheGraphIsLaunched() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(64, 1));
        List<DeviceFuture<?>> during = new ArrayList<>();
        DeviceGraph g = captureOrSkip(s, c -> {
            during.add(c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), v, 64L, 2, 0));
            during.add(c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.forElements(64), v, 64L, 1, 1));
        });
        for (DeviceFuture<?> f : during) {
            assertInstanceOf(IllegalStateException.class, awaitFailure(f), "captured operations do not run at capture");
        }
        assertArrayEquals(filled(64, 1), readInts(s, v), "capturing runs nothing");
        await(g.enqueueLaunch(s));
        assertArrayEquals(filled(64, 3), readInts(s, v), "one replay: 1 * 2 + 1");
        g.enqueueLaunch(s);
        g.enqueueLaunch(s);
        assertArrayEquals(filled(64, 15), readInts(s, v), "two more replays: 3 -> 7 -> 15");
    }

    @Test
    void graphReplaysOnAnyStreamOfItsContextInThatStreamsOrder() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(16, 0));
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.of(1, 16), v, 16L, 1, 4));
        other.enqueueFill(v, 10);
        g.enqueueLaunch(other);
        other.enqueueLaunch(fn(TestKernels.MUL_ADD), LaunchConfig.of(1, 16), v, 16L, 3, 0);
        assertArrayEquals(filled(16, 42), readInts(other, v), "(10 + 4) * 3");
    }

    @Test
    void capturedCopiesAndFillsReplay() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer a = intBuffer(ctx, iota(8, 0));
        DeviceBuffer b = intBuffer(ctx, filled(8, 0));
        DeviceGraph g = captureOrSkip(s, c -> {
            c.enqueueCopy(a, b);
            c.enqueueFill(a.slice(0, 4), -1);
        });
        assertArrayEquals(filled(8, 0), readInts(s, b));
        await(g.enqueueLaunch(s));
        assertArrayEquals(iota(8, 0), readInts(s, b));
        assertArrayEquals(new int[] {-1, -1, -1, -1, 4, 5, 6, 7}, readInts(s, a));
    }

    @Test
    void hostGatesAreRefusedDuringCaptureAndTheStreamRecovers() {
        DeviceStream s = ctx.createStream();
        captureOrSkip(s, c -> c.enqueueMarker()); // skips where capture is unsupported
        assertThrows(IllegalStateException.class, () -> s.capture(c -> c.waitFor(new CompletableFuture<Void>())));
        assertThrows(IllegalStateException.class, () -> s.capture(c -> c.enqueueHostFunction(() -> { })));
        assertStreamUsable(s);
    }

    @Test
    void nestedCaptureIsRefused() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = ctx.allocate(DType.I32, 4);
        assertThrows(IllegalStateException.class, () -> captureOrSkip(s, c -> {
            c.enqueueFill(v, 1);
            c.capture(inner -> { });
        }));
        assertStreamUsable(s);
    }

    @Test
    void graphOfAnotherContextOrClosedIsRejected() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = ctx.allocate(DType.I32, 4);
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueFill(v, 1));
        DeviceContext other = open(ContextOptions.defaults());
        DeviceStream os = other.createStream();
        var e = assertRejected(dev.sluice.InvalidArgumentException.class, os, () -> g.enqueueLaunch(os), "stream", "another context");
        assertTrue(e.argument().equals("stream"));
        g.close();
        assertRejected(ClosedResourceException.class, s, () -> g.enqueueLaunch(s), "closed");
    }

    @Test
    void aBufferClosedWhileAReplayIsPendingIsFreedOnlyAfterItAndLaterReplaysAreRefused() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer src = intBuffer(ctx, filled(1 << 16, 4));
        DeviceBuffer dst = intBuffer(ctx, filled(1 << 16, 0));
        DeviceFunction copy = fn(TestKernels.COPY_I32);
        DeviceGraph g = captureOrSkip(s, c -> c.enqueueLaunch(copy, LaunchConfig.forElements(1 << 16), src, dst, (long) (1 << 16)));
        fn(TestKernels.SLOW_FILL);
        slowFill(s, ctx.allocate(DType.I32, 1), 1, java.time.Duration.ofMillis(300)); // the replay waits behind this
        DeviceFuture<Void> replay = g.enqueueLaunch(s);
        src.close(); // must wait for the replay, which reads it
        List<DeviceBuffer> reuse = new ArrayList<>();
        for (int k = 0; k < 4; k++) { // memory freed early would come back here and be overwritten
            DeviceBuffer b = ctx.stream().enqueueAllocate(DType.I32, 1 << 16);
            ctx.stream().enqueueFill(b, 9);
            reuse.add(b);
        }
        await(replay);
        assertArrayEquals(filled(1 << 16, 4), readInts(s, dst), "the replay read src as it was");
        assertFalse(ctx.isFaulted());
        assertThrows(dev.sluice.ClosedResourceException.class, () -> g.enqueueLaunch(s), "a replay after src was closed");
        reuse.forEach(DeviceBuffer::close);
    }
}
