package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveStreamTest {

    static DeviceContext ctx;
    static DeviceFunction scaleAdd;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
        scaleAdd = ctx.compile(TestDevice.SCALE_ADD);
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    /** The stream's position: the sequence of a marker enqueued now (itself one operation). */
    private static long position(DeviceStream s) {
        return s.enqueueMarker().sequence();
    }

    @Test
    void monoIsColdAndEnqueuesOncePerSubscription() {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer b = s.enqueueAllocate(DType.F32, 16)) {
            ReactiveStream rx = ReactiveStream.of(s);
            long p0 = position(s);
            Mono<Void> fill = rx.fill(b, 1f);
            assertEquals(p0 + 1, position(s), "creating the Mono enqueued something");
            StepVerifier.create(fill).verifyComplete();
            StepVerifier.create(fill).verifyComplete();
            assertEquals(p0 + 1 + 2 + 1, position(s), "two subscriptions, two fills");
        }
    }

    @Test
    void copyLaunchCopyGivesTheKernelsResult() {
        ReactiveStream rx = ReactiveStream.of(ctx.createStream());
        float[] in = {1, 2, 3, 4, 5};
        float[] out = new float[5];
        Mono<float[]> flow = Mono.usingWhen(rx.allocate(DType.F32, 5).zipWith(rx.allocate(DType.F32, 5)),
                bufs -> rx.copy(HostData.of(in), bufs.getT1())
                        .then(rx.launch(scaleAdd, LaunchConfig.forElements(5), bufs.getT1(), bufs.getT2(), 5L, 2f, 1f))
                        .then(rx.copy(bufs.getT2(), HostData.of(out)))
                        .thenReturn(out),
                bufs -> Mono.fromRunnable(() -> {
                    bufs.getT1().close();
                    bufs.getT2().close();
                }));
        StepVerifier.create(flow).assertNext(r -> assertArrayEquals(new float[] {3, 5, 7, 9, 11}, r)).verifyComplete();
        rx.stream().close();
    }

    @Test
    void copy2DMovesATileInAndOutAndSignalsBadPitchesAsOnError() {
        ReactiveStream rx = ReactiveStream.of(ctx.createStream());
        float[] image = new float[4 * 6];
        for (int i = 0; i < image.length; i++) {
            image[i] = i;
        }
        float[] out = new float[2 * 3];
        try (DeviceBuffer tile = ctx.allocate(DType.F32, 6)) {
            // the 3 x 2 tile at row 1, column 2 of a 6-wide image
            StepVerifier.create(rx.copy2D(HostData.of(image, 8, 16), 6, tile, 3, 3, 2)
                    .then(rx.copy2D(tile, 3, HostData.of(out), 3, 3, 2))).verifyComplete();
            assertArrayEquals(new float[] {8, 9, 10, 14, 15, 16}, out);
            long p0 = position(rx.stream());
            StepVerifier.create(rx.copy2D(tile, 2, HostData.of(out), 3, 3, 2)).expectError(InvalidArgumentException.class).verify();
            assertEquals(p0 + 1, position(rx.stream()), "nothing enqueued for the refused copy");
        }
        rx.stream().close();
    }

    @Test
    void signalsArriveOnTheCompletionThread() {
        ReactiveStream rx = ReactiveStream.of(ctx.stream());
        CompletableFuture<Void> gate = new CompletableFuture<>();
        AtomicReference<String> thread = new AtomicReference<>();
        Mono<Void> gated = rx.waitFor(gate).doOnSuccess(v -> thread.set(Thread.currentThread().getName()));
        StepVerifier.create(gated)
                .then(() -> gate.complete(null))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertTrue(thread.get().startsWith(SluiceBlockHoundIntegration.COMPLETION_THREAD_PREFIX), thread.get());
    }

    @Test
    void badArgumentIsSignalledAsOnErrorWithNothingEnqueued() {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer b = s.enqueueAllocate(DType.F32, 4)) {
            ReactiveStream rx = ReactiveStream.of(s);
            long p0 = position(s);
            StepVerifier.create(rx.copy(HostData.of(new float[3]), b)).expectError(InvalidArgumentException.class).verify();
            assertEquals(p0 + 1, position(s));
        }
    }

    @Test
    void cancellingTheMonoNeitherCancelsTheFutureNorStopsTheWork() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        try (DeviceStream s = ctx.createStream(); DeviceBuffer b = s.enqueueAllocate(DType.F32, 3)) {
            try {
                s.waitFor(gate);
                float[] src = {7, 8, 9};
                DeviceFuture<Void> copy = s.enqueueCopy(HostData.of(src), b);
                StepVerifier.create(DeviceMonos.from(copy)).thenCancel().verify();
                assertFalse(copy.isCancelled());
                float[] back = new float[3];
                DeviceFuture<Void> read = s.enqueueCopy(b, HostData.of(back));
                gate.complete(null);
                read.get(10, TimeUnit.SECONDS);
                assertFalse(copy.isCompletedExceptionally());
                assertArrayEquals(src, back);
            } finally {
                gate.complete(null); // never leave a stream gated: closing it would wait forever
            }
        }
    }

    @Test
    void subscriptionCancelledInOnSubscribeEnqueuesNothing() {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer b = s.enqueueAllocate(DType.F32, 4)) {
            long p0 = position(s);
            ReactiveStream.of(s).fill(b, 3f).subscribe(new reactor.core.publisher.BaseSubscriber<Void>() {
                @Override
                protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
                    cancel();
                }
            });
            assertEquals(p0 + 1, position(s));
        }
    }

    @Test
    void allocationCancelledBeforeDeliveryIsClosed() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        try (DeviceStream s = ctx.createStream()) {
            try {
                s.waitFor(gate);
                CompletableFuture<DeviceBuffer> released = new CompletableFuture<>();
                Mono<DeviceBuffer> alloc = DeviceMonos.enqueue(() -> s.enqueueAllocate(DType.F32, 64).ready(), b -> {
                    b.close();
                    released.complete(b);
                });
                // Subscribed (so enqueued) without demand, cancelled before the allocation is even ready.
                reactor.core.Disposable subscription = alloc.subscribe(b -> { }, e -> { }, () -> { }, sub -> { });
                subscription.dispose();
                gate.complete(null);
                DeviceBuffer b = released.get(10, TimeUnit.SECONDS);
                assertTrue(b.isClosed());
            } finally {
                gate.complete(null);
            }
        }
    }

    @Test
    void closingABufferTheDeviceStillUsesDefersItsFreeUntilTheUseHasFinished() throws Exception {
        // What the reactive layer relies on when a cancelled Mono's buffers are closed: DeviceBuffer.close()
        // frees in its home stream's order, after a device-side wait for uses on other streams.
        CompletableFuture<Void> gate = new CompletableFuture<>();
        try (DeviceStream home = ctx.createStream(); DeviceStream user = ctx.createStream()) {
            try {
                long bytes = 4L << 16;
                DeviceBuffer b = home.enqueueAllocate(DType.F32, 1 << 16);
                home.enqueueFill(b, 3f).get(10, TimeUnit.SECONDS);
                long free1 = ctx.memoryInfo().free();
                user.waitFor(gate);
                float[] back = new float[1 << 16];
                Mono<Void> read = ReactiveStream.of(user).copy(b, HostData.of(back));
                read.subscribe().dispose(); // enqueued, then cancelled: only the signals stop
                DeviceFuture<Void> readAgain = user.enqueueCopy(b, HostData.of(back));
                b.close();
                Thread.sleep(50);
                if (ctx.api() == dev.sluice.Api.CPU) {
                    // (Other tests' small buffers may be freed meanwhile: compare against this buffer's size.)
                    assertTrue(ctx.memoryInfo().free() - free1 < bytes, "freed while a stream may still read it");
                }
                gate.complete(null);
                readAgain.get(10, TimeUnit.SECONDS);
                assertEquals(3f, back[back.length - 1]);
                home.enqueueMarker().get(10, TimeUnit.SECONDS);
                if (ctx.api() == dev.sluice.Api.CPU) {
                    assertTrue(ctx.memoryInfo().free() - free1 >= bytes, "not freed once the use had finished");
                }
            } finally {
                gate.complete(null);
            }
        }
    }

    @Test
    void allocateEmitsAnUsableBuffer() {
        ReactiveStream rx = ReactiveStream.of(ctx.stream());
        DeviceBuffer b = rx.allocate(DType.F32, 8).block(Duration.ofSeconds(10));
        assertNotNull(b);
        float[] back = new float[8];
        rx.fill(b, 4f).then(rx.copy(b, HostData.of(back))).block(Duration.ofSeconds(10));
        assertEquals(4f, back[7]);
        b.close();
    }

    @Test
    void waitForAnotherStreamsFutureOrdersOnTheDevice() {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        try (DeviceStream s1 = ctx.createStream(); DeviceStream s2 = ctx.createStream();
                DeviceBuffer b = s1.enqueueAllocate(DType.F32, 3)) {
            try {
                s1.waitFor(gate);
                DeviceFuture<Void> upload = s1.enqueueCopy(HostData.of(new float[] {1, 2, 3}), b);
                float[] back = new float[3];
                ReactiveStream rx2 = ReactiveStream.of(s2);
                Mono<float[]> read = rx2.waitFor(upload).then(rx2.copy(b, HostData.of(back))).thenReturn(back);
                StepVerifier.create(read)
                        .expectSubscription()
                        .expectNoEvent(Duration.ofMillis(50)) // s2 waits for s1, which waits for the gate
                        .then(() -> gate.complete(null))
                        .assertNext(r -> assertArrayEquals(new float[] {1, 2, 3}, r))
                        .verifyComplete();
            } finally {
                gate.complete(null);
            }
        }
    }

    @Test
    void hostFunctionFailureIsSignalled() {
        ReactiveStream rx = ReactiveStream.of(ctx.stream());
        StepVerifier.create(rx.hostFunction(() -> {
            throw new IllegalStateException("host side");
        })).expectErrorMessage("host side").verify(Duration.ofSeconds(10));
        StepVerifier.create(rx.marker()).verifyComplete(); // the stream goes on
    }

    @Test
    void recordAndWaitForEvent() {
        try (DeviceStream s1 = ctx.createStream(); DeviceStream s2 = ctx.createStream(); var ev = ctx.createEvent()) {
            StepVerifier.create(ReactiveStream.of(s1).record(ev).then(ReactiveStream.of(s2).waitFor(ev))).verifyComplete();
        }
    }
}
