package dev.sluice.arrow;

import static dev.sluice.testing.Attacks.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.ClosedResourceException;
import dev.sluice.DeviceContext;
import dev.sluice.InvalidArgumentException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * Every public call of {@link ArrowPipeline} and its builder with bad arguments, closed objects, calls after close and
 * concurrent closes: a bad argument is refused at the call by an {@link InvalidArgumentException} naming it, its value
 * and the limit; nothing leaks (Arrow's leak check when the allocator closes after each test).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArrowPipelineArgumentsTest extends PinnedArrowTest {

    private ArrowPipeline.Builder fma() {
        return ArrowPipeline.builder(ctx, pinned).lanes(2).capacity(1000, 64 * 1024).passThrough("name")
                .output(Field.nullable("y", ArrowPipelineTest.FLOAT)).kernel(ArrowPipelineTest.FMA)
                .kernel(ArrowPipelineTest.VALIDITY).stage(ArrowPipelineTest.FMA_STAGE);
    }

    @Test
    void aNullPublisherIsRefusedNamingBatches() {
        try (ArrowPipeline p = fma().build()) {
            assertRefused("batches", () -> p.process(null), "must not be null");
            assertRefused("batches", () -> p.processUnordered(null), "must not be null");
        }
    }

    @Test
    void aClosedAllocatorIsRefusedNamingIt() {
        RootAllocator closed = factory.newRootAllocator(1 << 20);
        closed.close();
        assertRefused("allocator", () -> ArrowPipeline.builder(ctx, closed), "is closed");
    }

    @Test
    void anAllocatorThatCannotHoldAByteIsRefusedNamingItsLimit() {
        try (RootAllocator none = factory.newRootAllocator(0)) {
            assertRefused("allocator", () -> ArrowPipeline.builder(ctx, none), "limit 0");
        }
    }

    @Test
    void aNullOrClosedContextIsRefusedNamingIt() {
        assertRefused("context", () -> ArrowPipeline.builder(null, pinned), "must not be null");
        DeviceContext other = DeviceContext.open(Api.CPU, 0);
        other.close();
        assertRefused("context", () -> ArrowPipeline.builder(other, pinned), "is closed");
    }

    @Test
    void anAllocatorOfAnotherContextIsRefusedSayingSoEvenOnTheSameDevice() {
        assertRefused("allocator", () -> ArrowPipeline.builder(ctx, plain), "is not an allocator of a PinnedAllocationFactory");
        // A second context of the same device prints as the first does: the message must still tell them apart.
        try (DeviceContext other = DeviceContext.open(Api.CPU, 0);
                PinnedAllocationFactory otherFactory = PinnedAllocationFactory.of(other);
                RootAllocator otherPinned = otherFactory.newRootAllocator(1 << 20)) {
            assertRefused("allocator", () -> ArrowPipeline.builder(ctx, otherPinned),
                    "another context of the same device");
        }
    }

    @Test
    void builderSizesOutsideTheirLimitsAreRefusedNamingValueAndLimit() {
        ArrowPipeline.Builder b = ArrowPipeline.builder(ctx, pinned);
        assertRefused("lanes", () -> b.lanes(0), "0", "1 to 64");
        assertRefused("lanes", () -> b.lanes(65), "65", "1 to 64");
        assertRefused("lanes", () -> b.lanes(Integer.MIN_VALUE), String.valueOf(Integer.MIN_VALUE));
        assertRefused("maxRows", () -> b.capacity(0, 1024), "0", "at least 1");
        assertRefused("maxRows", () -> b.capacity(Integer.MIN_VALUE, 1024), String.valueOf(Integer.MIN_VALUE));
        assertRefused("maxBatchBytes", () -> b.capacity(10, 63), "63", "at least 64");
        assertRefused("maxBatchBytes", () -> b.capacity(10, Long.MIN_VALUE), String.valueOf(Long.MIN_VALUE));
        assertRefused("field", () -> b.output(null), "must not be null");
        assertRefused("column", () -> b.passThrough(null), "must not be null");
        b.output(Field.nullable("y", ArrowPipelineTest.FLOAT));
        assertRefused("field", () -> b.output(Field.nullable("y", ArrowPipelineTest.FLOAT)), "already has a column y");
        assertRefused("column", () -> b.passThrough("y"), "already has a column y");
        assertRefused("field", () -> b.output(Field.nullable("big", new ArrowType.Decimal(38, 2, 128))), "Decimal");
    }

    @Test
    void aBatchSizeNoDeviceCanHoldIsRefusedAtBuildNamingTheDevicesMemory() {
        long total = ctx.memoryInfo().total();
        // Long.MAX_VALUE once overflowed the result's capacity, which then held only 64 bytes.
        for (long bytes : new long[] {Long.MAX_VALUE, Long.MAX_VALUE / 2, total}) {
            ArrowPipeline.Builder b = fma().capacity(1000, bytes);
            assertRefused("maxBatchBytes", b::build, String.valueOf(bytes), String.valueOf(total));
        }
        ArrowPipeline.Builder rows = fma().capacity(Integer.MAX_VALUE, 64 * 1024)
                .output(Field.nullable("z", new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)));
        if ((long) Integer.MAX_VALUE * 12 > total / 2) {
            assertRefused("maxRows", rows::build, String.valueOf(Integer.MAX_VALUE), String.valueOf(total));
        }
    }

    @Test
    void closeIsIdempotentAndSafeFromTwoThreadsAtOnce() throws Exception {
        ArrowPipeline p = fma().build();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] closers = new Thread[2];
        Throwable[] failures = new Throwable[2];
        for (int t = 0; t < 2; t++) {
            int k = t;
            closers[t] = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    p.close();
                } catch (Throwable e) {
                    failures[k] = e;
                }
            });
        }
        start.countDown();
        for (Thread t : closers) {
            t.join(10_000);
        }
        assertEquals(List.of(), java.util.Arrays.stream(failures).filter(java.util.Objects::nonNull).toList());
        p.close();
        assertTrue(p.isClosed());
        p.released().orTimeout(10, TimeUnit.SECONDS).join();
    }

    @Test
    void subscribingAfterCloseFailsTheFluxAndKeepsNoReferenceToTheBatch() {
        ArrowPipeline p = fma().build();
        p.close();
        try (VectorSchemaRoot batch = ArrowPipelineTest.batch(pinned, 0, 10)) {
            StepVerifier.create(p.process(Flux.just(batch)))
                    .expectErrorSatisfies(e -> assertInstanceOf(ClosedResourceException.class, e))
                    .verify(Duration.ofSeconds(30));
            StepVerifier.create(p.processUnordered(Flux.just(batch)))
                    .expectErrorSatisfies(e -> assertInstanceOf(ClosedResourceException.class, e))
                    .verify(Duration.ofSeconds(30));
        }
        p.released().orTimeout(10, TimeUnit.SECONDS).join();
    }

    @Test
    void subscribingTwiceRunsTheBatchesOncePerSubscription() {
        try (VectorSchemaRoot batch = ArrowPipelineTest.batch(pinned, 0, 10); ArrowPipeline p = fma().build()) {
            Flux<VectorSchemaRoot> results = p.process(Flux.just(batch, batch));
            for (int s = 0; s < 2; s++) {
                List<VectorSchemaRoot> got = results.collectList().block(Duration.ofSeconds(30));
                assertEquals(2, got.size());
                got.forEach(r -> {
                    assertEquals(10, r.getRowCount());
                    r.close();
                });
            }
        }
    }

    @Test
    void cancellingBeforeAnyRequestReleasesEverything() {
        try (VectorSchemaRoot batch = ArrowPipelineTest.batch(pinned, 0, 10); ArrowPipeline p = fma().build()) {
            StepVerifier.create(p.process(Flux.just(batch, batch, batch)), 0).thenCancel().verify(Duration.ofSeconds(30));
            p.close();
            p.released().orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    @Test
    void aStageThatClosesItsViewsFreesNoLaneMemory() {
        // The stage's batches are views of the lane's buffers, "nothing to close": closing them must not free the lane's.
        ArrowPipeline.Stage closing = (lane, in, out) -> {
            var last = ArrowPipelineTest.FMA_STAGE.enqueue(lane, in, out);
            in.close();
            out.close();
            return last;
        };
        List<VectorSchemaRoot> inputs = new java.util.ArrayList<>();
        for (int k = 0; k < 6; k++) {
            inputs.add(ArrowPipelineTest.batch(pinned, k, 100));
        }
        try (ArrowPipeline p = fma().stage(closing).build()) {
            List<VectorSchemaRoot> results = p.process(Flux.fromIterable(inputs)).collectList().block(Duration.ofSeconds(30));
            assertEquals(6, results.size());
            for (int k = 0; k < 6; k++) {
                try (VectorSchemaRoot r = results.get(k)) {
                    org.apache.arrow.vector.Float4Vector y = (org.apache.arrow.vector.Float4Vector) r.getVector("y");
                    org.apache.arrow.vector.Float4Vector b = (org.apache.arrow.vector.Float4Vector) inputs.get(k).getVector("b");
                    org.apache.arrow.vector.Float4Vector a = (org.apache.arrow.vector.Float4Vector) inputs.get(k).getVector("a");
                    for (int i = 0; i < 100; i++) {
                        if (!a.isNull(i)) {
                            assertEquals(a.get(i) * b.get(i) + 1, y.get(i), 1e-5f, "batch " + k + " row " + i);
                        }
                    }
                }
            }
        } finally {
            inputs.forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void aClosedRootAsInputFailsTheFluxNamingTheBatch() {
        VectorSchemaRoot closed = ArrowPipelineTest.batch(pinned, 0, 10);
        closed.close();
        try (ArrowPipeline p = fma().build()) {
            StepVerifier.create(p.process(Flux.just(closed)))
                    .expectErrorSatisfies(e -> {
                        InvalidArgumentException iae = assertInstanceOf(InvalidArgumentException.class, e);
                        assertEquals("batch", iae.argument(), e.getMessage());
                        assertTrue(e.getMessage().contains("has 0 values but the batch has 10 rows"), e.getMessage());
                    })
                    .verify(Duration.ofSeconds(30));
        }
    }
}
