package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.LaunchConfig;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A pipeline's host scheduler that goes away while a subscription runs: the subscription ends with an error (never
 * stalls), and every lane and buffer it held is released.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostSchedulerLossTest {

    static DeviceContext ctx;
    static DeviceFunction scaleAdd;
    static DeviceFunction delay;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
        scaleAdd = ctx.compile(TestDevice.SCALE_ADD);
        delay = ctx.compile(TestDevice.DELAY);
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    private static GpuPipeline<float[], float[]> pipeline(Scheduler host) {
        return GpuPipeline.builder(ctx).lanes(3).chunkElements(1024, DType.F32)
                .hostScheduler(host)
                .stage((lane, in, out) -> {
                    lane.stream().enqueueLaunch(delay, LaunchConfig.of(1, 1), 2_000L);
                    return lane.stream().enqueueLaunch(scaleAdd, LaunchConfig.forElements(lane.elements()), in, out,
                            lane.elements(), 2f, 1f);
                })
                .build(Chunks.floats());
    }

    private static Flux<float[]> chunks(int n) {
        return Flux.range(0, n).map(i -> new float[1024]);
    }

    /** Lanes released without closing the pipeline: a failed scheduler's lanes are not kept. */
    private static void assertLanesReleased(GpuPipeline<?, ?> p, long freeBefore) throws Exception {
        PipelineMetrics m = p.metrics();
        TestDevice.awaitReleased(m);
        assertTrue(m.lanesOpened() > 0, m.toString());
        assertEquals(0, m.inFlight(), m.toString());
        assertEquals(m.deviceAllocations(), m.deviceReleases(), "every device buffer freed: " + m);
        assertEquals(m.hostAllocations(), m.hostReleases(), "every pinned buffer freed: " + m);
        TestDevice.closeAndAwaitReleased(p);
        if (ctx.api() == dev.sluice.Api.CPU) {
            ctx.synchronize();
            assertEquals(freeBefore, ctx.memoryInfo().free(), "device memory back to where it was");
        }
    }

    @Test
    void disposingTheHostSchedulerMidRunEndsTheFluxWithAnErrorAndReleasesTheLanes() throws Exception {
        long freeBefore = ctx.memoryInfo().free();
        Scheduler host = Schedulers.newSingle("doomed-host");
        GpuPipeline<float[], float[]> p = pipeline(host);
        StepVerifier.create(p.process(chunks(500)))
                .expectNextCount(5)
                .then(host::dispose)
                .thenConsumeWhile(r -> true)
                .expectErrorMatches(e -> e instanceof RejectedExecutionException)
                .verify(Duration.ofSeconds(20));
        assertTrue(p.metrics().chunksStarted() < 500, "the run was cut short: " + p.metrics());
        assertLanesReleased(p, freeBefore);
    }

    /**
     * The scheduler accepts the drain task, then drops it unrun (its executor shut down with the task queued) and
     * no event comes after: only a check of the scheduler itself can end the subscription.
     */
    @Test
    void aDrainTaskDroppedByTheSchedulerDoesNotStallTheSubscription() throws Exception {
        long freeBefore = ctx.memoryInfo().free();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                r -> new Thread(r, "doomed-executor"));
        Scheduler host = Schedulers.fromExecutorService(executor);
        GpuPipeline<float[], float[]> p = pipeline(host);
        CountDownLatch blocking = new CountDownLatch(1);
        StepVerifier.create(p.process(chunks(3)), 0)
                .then(() -> {
                    // Occupy the executor so that drain tasks queue behind this one, then let all 3 chunks finish
                    // (their completions queue drain tasks) and drop the queue with the executor.
                    executor.execute(() -> {
                        try {
                            blocking.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                })
                .thenRequest(3)
                .then(() -> {
                    // Until a drain task waits behind the blocking one (a fixed wait was too short on a loaded host).
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (executor.getQueue().isEmpty() && System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                })
                .then(() -> assertFalse(executor.shutdownNow().isEmpty(), "a drain task was queued and is dropped"))
                .thenConsumeWhile(r -> true)
                .expectErrorMatches(e -> e instanceof RejectedExecutionException)
                .verify(Duration.ofSeconds(20));
        assertLanesReleased(p, freeBefore);
    }

    @Test
    void aSubscriptionAfterTheSchedulerIsGoneFailsAndLeavesNothingBehind() throws Exception {
        long freeBefore = ctx.memoryInfo().free();
        Scheduler host = Schedulers.newSingle("gone-host");
        GpuPipeline<float[], float[]> p = pipeline(host); // a scheduler disposed already is refused by the builder
        host.dispose();
        StepVerifier.create(p.process(chunks(10)))
                .thenConsumeWhile(r -> true)
                .expectError(RejectedExecutionException.class)
                .verify(Duration.ofSeconds(20));
        TestDevice.awaitReleased(p.metrics());
        TestDevice.closeAndAwaitReleased(p);
        if (ctx.api() == dev.sluice.Api.CPU) {
            ctx.synchronize();
            assertEquals(freeBefore, ctx.memoryInfo().free(), "device memory back to where it was");
        }
    }
}
