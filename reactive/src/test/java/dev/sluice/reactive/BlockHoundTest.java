package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * BlockHound is live in this JVM (JDK 25, with -XX:+AllowRedefinitionToAddDeleteMethods) and knows
 * Sluice's blocking calls and non-blocking threads; so every other test of the module also checks that
 * nothing it runs blocks a Reactor thread or a completion thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BlockHoundTest {

    static DeviceContext ctx;
    static DeviceBuffer buffer;

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
        buffer = ctx.allocate(DType.F32, 4);
    }

    @AfterAll
    static void close() {
        buffer.close();
        ctx.close();
    }

    private static void expectBlockingError(Mono<?> mono, String method) {
        StepVerifier.create(mono)
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof BlockingOperationError, e.toString());
                    // BlockHound names instance methods Class#method and static ones Class.method.
                    assertTrue(e.getMessage().replace('#', '.').contains(method.replace('#', '.')), e.getMessage());
                })
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void blockHoundIsInstalledOnThisJdk() {
        expectBlockingError(Mono.fromRunnable(() -> {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }).subscribeOn(Schedulers.parallel()), "sleep");
    }

    @Test
    void syncFacadeIsBlockingOnParallelThreads() {
        expectBlockingError(Mono.fromRunnable(() -> ctx.sync().fill(buffer, 1f)).subscribeOn(Schedulers.parallel()),
                "dev.sluice.SyncStream#await");
    }

    @Test
    void streamAndContextSynchronizeAreBlockingOnParallelThreads() {
        expectBlockingError(Mono.fromRunnable(() -> ctx.stream().synchronize()).subscribeOn(Schedulers.parallel()),
                "dev.sluice.DeviceStream#synchronize");
        expectBlockingError(Mono.fromRunnable(() -> ctx.synchronize()).subscribeOn(Schedulers.parallel()),
                "dev.sluice.DeviceContext#synchronize");
    }

    @Test
    void mapToHostIsBlockingOnParallelThreads() {
        expectBlockingError(Mono.fromRunnable(() -> buffer.mapToHost().close()).subscribeOn(Schedulers.parallel()),
                "dev.sluice.DeviceBuffer#mapToHost");
    }

    @Test
    void syncFacadeOnTheCompletionThreadIsReportedInsteadOfDeadlocking() {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        ReactiveStream rx = ReactiveStream.of(ctx.stream());
        // Runs in the completion of a future, on sluice-completion-*: a wait there would wait for itself. SyncStream
        // refuses it before BlockHound sees a wait.
        Mono<Void> bad = rx.waitFor(gate).then(Mono.fromRunnable(() -> ctx.sync().fill(buffer, 2f)));
        StepVerifier.create(bad)
                .then(() -> gate.complete(null))
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof IllegalStateException, e.toString());
                    assertTrue(e.getMessage().contains("completion thread"), e.getMessage());
                })
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void aRepeatedPlanWaitingForAnotherSubscriptionsTurnIsNotReportedAsBlocking() throws Exception {
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean holdOnce = new AtomicBoolean(true);
        try (DeviceStream s = ctx.createStream(); DeviceBuffer b = ctx.allocate(DType.F32, 4);
                RepeatedPlan plan = DevicePlan.on(s).then(t -> {
                    if (holdOnce.compareAndSet(true, false)) {
                        inStep.countDown();
                        awaitQuietly(release); // holds the run's turn, as a long step would
                    }
                    return t.enqueueFill(b, 4f);
                }).then(t -> t.enqueueFill(b, 5f)).repeated()) { // two steps: a run of one is not recorded
            CompletableFuture<Void> first = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> plan.enqueue().whenComplete((v, e) -> first.complete(null)));
            assertTrue(inStep.await(10, TimeUnit.SECONDS));
            Thread.ofPlatform().start(() -> {
                awaitQuietly(new CountDownLatch(1), 100); // so that the second subscription really waits its turn
                release.countDown();
            });
            StepVerifier.create(plan.toMono().subscribeOn(Schedulers.parallel())).verifyComplete();
            first.get(10, TimeUnit.SECONDS);
        } finally {
            release.countDown();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        awaitQuietly(latch, 10_000);
    }

    private static void awaitQuietly(CountDownLatch latch, long millis) {
        try {
            latch.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void blockingCallsStayAllowedOnBoundedElastic() {
        StepVerifier.create(Mono.fromRunnable(() -> ctx.sync().fill(buffer, 3f)).subscribeOn(Schedulers.boundedElastic()))
                .verifyComplete();
    }
}
