package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.HostBufferPool;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;

/** A pipeline's staging from a pool the caller shares: reused by lanes opened after others were released, left open. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PipelineStagingPoolTest {

    private static DeviceContext ctx;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    private static float[] chunk(int i) {
        float[] c = new float[1024];
        java.util.Arrays.fill(c, i);
        return c;
    }

    /** Waits until every staging buffer is back in the pool and reusable (lanes give theirs back once closed). */
    private static void awaitAllBack(HostBufferPool pool) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (pool.takenBuffers() > 0 || pool.reusableBytes() < pool.heldBytes()) {
            assertTrue(System.nanoTime() < deadline, "staging never came back: " + pool);
            Thread.sleep(1);
        }
    }

    @Test
    void lanesOpenedAfterOthersWereReleasedReuseTheirStagingFromTheSharedPool() throws Exception {
        try (HostBufferPool shared = HostBufferPool.of(ctx, 16 << 20)) {
            // One lane: lanes open as chunks arrive, so how many of two a round opens depends on timing, and a round that
            // opened more than the first would pin the difference.
            GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(1).chunkElements(1024, DType.F32).inPlace()
                    .keepLanes(false).stagingPool(shared).stage((lane, in, out) -> null).build(Chunks.floats());
            long pinned = 0;
            for (int round = 0; round < 3; round++) {
                List<float[]> out = p.process(Flux.range(0, 12).map(PipelineStagingPoolTest::chunk)).collectList()
                        .block(Duration.ofSeconds(30));
                assertEquals(12, out.size());
                IntStream.range(0, 12).forEach(i -> assertArrayEquals(chunk(i), out.get(i)));
                awaitAllBack(shared);
                if (round == 0) {
                    pinned = shared.allocations();
                    assertTrue(pinned > 0, shared::toString);
                }
            }
            assertEquals(pinned, shared.allocations(), "later rounds pinned nothing: " + shared);
            assertTrue(shared.reuses() >= pinned, shared::toString);
            p.close();
            p.released().get(30, TimeUnit.SECONDS);
            assertFalse(shared.isClosed(), "the caller's pool is the caller's to close");
            assertEquals(0, shared.takenBuffers());
        }
    }

    @Test
    void aPipelinesOwnPoolIsClosedWhenItIsReleased() throws Exception {
        GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(1).chunkElements(1024, DType.F32).inPlace()
                .stage((lane, in, out) -> null).build(Chunks.floats());
        assertEquals(3, p.process(Flux.range(0, 3).map(PipelineStagingPoolTest::chunk)).count().block(Duration.ofSeconds(30)));
        HostBufferPool own = p.stagingPools().ownPool(ctx);
        assertTrue(own != null && !own.isClosed(), String.valueOf(own));
        p.close();
        p.released().get(30, TimeUnit.SECONDS);
        assertTrue(own.isClosed());
        assertEquals(0, own.heldBytes(), "its buffers freed: " + own);
    }
}
