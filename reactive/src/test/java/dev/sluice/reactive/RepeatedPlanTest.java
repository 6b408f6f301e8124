package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.Kernels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RepeatedPlanTest {

    static DeviceContext ctx;
    static DeviceFunction addOne;
    static DeviceFunction scaleAdd;
    static final LaunchConfig ONE = LaunchConfig.of(1, 1);
    static final Duration WAIT = Duration.ofSeconds(30);

    @BeforeAll
    static void open() {
        ctx = TestDevice.open();
        addOne = ctx.compile(TestDevice.ADD_ONE);
        scaleAdd = ctx.compile(TestDevice.SCALE_ADD);
    }

    @AfterAll
    static void close() {
        ctx.close();
    }

    private static float read(DeviceStream s, DeviceBuffer b) {
        float[] out = new float[1];
        s.enqueueCopy(b, HostData.of(out)).join();
        return out[0];
    }

    @Test
    void eachSubscriptionAfterTheFirstReplaysTheRunAsOneGraph() {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer v = s.enqueueAllocate(DType.F32, 1)) {
            s.enqueueFill(v, 0f);
            DevicePlan plan = DevicePlan.on(s);
            for (int i = 0; i < 50; i++) {
                plan = plan.then(t -> t.enqueueLaunch(addOne, ONE, v, 1L));
            }
            try (RepeatedPlan repeated = plan.repeated()) {
                assertSame(plan, repeated.plan());
                for (int k = 0; k < 5; k++) {
                    StepVerifier.create(repeated.toMono()).verifyComplete();
                }
                assertEquals(250f, read(s, v), "every launch ran once per subscription");
                assertEquals(5, repeated.replays(), "one graph launch per subscription");
                assertEquals(1, repeated.builds(), "the graph is built once, on the first subscription");
                assertEquals(0, repeated.fallbacks());
            }
        }
    }

    @Test
    void aPlanBackAndForthBetweenStreamsReplaysEachRunWithoutRebuilding() {
        try (DeviceStream a = ctx.createStream(); DeviceStream b = ctx.createStream();
                DeviceBuffer x = a.enqueueAllocate(DType.F32, 4); DeviceBuffer y = a.enqueueAllocate(DType.F32, 4);
                DeviceBuffer z = a.enqueueAllocate(DType.F32, 4)) {
            LaunchConfig four = LaunchConfig.forElements(4);
            AtomicInteger round = new AtomicInteger();
            try (RepeatedPlan repeated = DevicePlan.on(a)
                    .then(s -> s.enqueueFill(y, -1f))
                    .then(s -> s.enqueueFill(x, (float) round.get()))                            // x = k
                    .switchTo(b)
                    .then(s -> s.enqueueFill(z, -1f))
                    .then(s -> s.enqueueLaunch(scaleAdd, four, x, y, 4L, 2f, 1f))               // y = 2k + 1
                    .switchTo(a)
                    .then(s -> s.enqueueLaunch(scaleAdd, four, y, z, 4L, 5f, 0f))
                    .then(s -> s.enqueueLaunch(scaleAdd, four, z, z, 4L, 2f, 0f))               // z = 20k + 10
                    .repeated()) {
                for (int k = 1; k <= 4; k++) {
                    round.set(k);
                    repeated.enqueue().join();
                    float[] out = new float[4];
                    a.enqueueCopy(z, HostData.of(out)).join();
                    float[] expected = new float[4];
                    Arrays.fill(expected, 20f * k + 10f);
                    assertArrayEquals(expected, out, "round " + k + ": each run waited for the one before, on the device");
                }
                assertEquals(3, repeated.builds(), "one graph per run, each built once (the fill value is updated in place)");
                assertEquals(12, repeated.replays());
                assertEquals(0, repeated.fallbacks());
            }
        }
    }

    @Test
    void forkBranchesAreRunsOfTheirOwn() {
        try (DeviceStream main = ctx.createStream(); DeviceStream a = ctx.createStream(); DeviceStream b = ctx.createStream();
                DeviceBuffer x = main.enqueueAllocate(DType.F32, 2)) {
            try (RepeatedPlan repeated = DevicePlan.on(main)
                    .then(s -> s.enqueueFill(x, 0f))
                    .then(s -> s.enqueueLaunch(addOne, LaunchConfig.forElements(2), x, 2L))
                    .fork(DevicePlan.on(a).then(s -> s.enqueueLaunch(addOne, ONE, x.slice(0, 1), 1L)),
                            DevicePlan.on(b).then(s -> s.enqueueLaunch(addOne, ONE, x.slice(1, 1), 1L))
                                    .then(s -> s.enqueueLaunch(addOne, ONE, x.slice(1, 1), 1L)))
                    .then(s -> s.enqueueLaunch(addOne, LaunchConfig.forElements(2), x, 2L))
                    .repeated()) {
                for (int k = 0; k < 3; k++) {
                    float[] out = new float[2];
                    repeated.enqueue().join();
                    main.enqueueCopy(x, HostData.of(out)).join();
                    assertArrayEquals(new float[] {3, 4}, out, "round " + k);
                }
                assertEquals(2, repeated.builds(), "the run before the fork and the branch of two steps");
                assertEquals(6, repeated.replays(), "runs of one step are enqueued as the plain plan would");
                assertEquals(0, repeated.fallbacks());
            }
        }
    }

    @Test
    void aStepThatEnqueuesWhatNoGraphDescribesFallsBackWithTheSameResult() {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer v = s.enqueueAllocate(DType.F32, 1)) {
            float[] out = new float[1];
            try (RepeatedPlan repeated = DevicePlan.on(s)
                    .then(t -> t.enqueueCopy(HostData.of(new float[] {5f}), v)) // a Java array: not recorded
                    .then(t -> t.enqueueLaunch(addOne, ONE, v, 1L))
                    .then(t -> t.enqueueCopy(v, HostData.of(out)))
                    .repeated()) {
                for (int k = 0; k < 3; k++) {
                    out[0] = 0;
                    StepVerifier.create(repeated.toMono()).verifyComplete();
                    assertEquals(6f, out[0]);
                }
                assertEquals(3, repeated.fallbacks(), "every subscription's run fell back");
                assertEquals(0, repeated.replays());
            }
        }
    }

    @Test
    void aStepThatThrowsStopsThePlanAfterTheStepsBeforeItRan() {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer v = s.enqueueAllocate(DType.F32, 1)) {
            s.enqueueFill(v, 0f);
            AtomicInteger after = new AtomicInteger();
            try (RepeatedPlan repeated = DevicePlan.on(s)
                    .then(t -> t.enqueueLaunch(addOne, ONE, v, 1L))
                    .then(t -> t.enqueueLaunch(addOne, ONE, v, 1L))
                    .then(t -> t.enqueueCopy(HostData.of(new float[3]), v)) // wrong size: throws at enqueue
                    .then(t -> {
                        after.incrementAndGet();
                        return t.enqueueMarker();
                    })
                    .repeated()) {
                for (int k = 1; k <= 2; k++) {
                    StepVerifier.create(repeated.toMono()).expectError(InvalidArgumentException.class).verify(WAIT);
                    assertEquals(2f * k, read(s, v), "the steps before the failing one ran, as in the plain plan");
                }
                assertEquals(0, after.get(), "the steps after the failing one are not enqueued");
            }
        }
    }

    @Test
    void aStepThatThrowsACheckedExceptionUndeclaredFailsThePlanWithIt() {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer v = s.enqueueAllocate(DType.F32, 1)) {
            s.enqueueFill(v, 0f);
            java.io.IOException thrown = new java.io.IOException("from a step, undeclared");
            try (RepeatedPlan repeated = DevicePlan.on(s)
                    .then(t -> t.enqueueLaunch(addOne, ONE, v, 1L))
                    .then(t -> {
                        throwUnchecked(thrown);
                        return t.enqueueMarker();
                    })
                    .repeated()) {
                StepVerifier.create(repeated.toMono()).expectErrorMatches(e -> e == thrown).verify(WAIT);
                assertEquals(1f, read(s, v), "the step before it ran");
                StepVerifier.create(repeated.toMono()).expectErrorMatches(e -> e == thrown).verify(WAIT);
                assertEquals(2f, read(s, v), "and the stream is not left recording");
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void throwUnchecked(Throwable t) throws T {
        throw (T) t;
    }

    @Test
    void aClosedRepeatedPlanFailsItsSubscriptionsAndThePlanStaysUsable() {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer v = s.enqueueAllocate(DType.F32, 1)) {
            s.enqueueFill(v, 0f);
            DevicePlan plan = DevicePlan.on(s).then(t -> t.enqueueLaunch(addOne, ONE, v, 1L))
                    .then(t -> t.enqueueLaunch(addOne, ONE, v, 1L));
            RepeatedPlan repeated = plan.repeated();
            repeated.enqueue().join();
            assertFalse(repeated.isClosed());
            repeated.close();
            repeated.close(); // idempotent
            assertTrue(repeated.isClosed());
            CompletionException e = assertThrows(CompletionException.class, () -> repeated.enqueue().join());
            assertInstanceOf(ClosedResourceException.class, e.getCause());
            StepVerifier.create(repeated.toMono()).expectError(ClosedResourceException.class).verify(WAIT);
            plan.enqueue().join();
            assertEquals(4f, read(s, v));
        }
    }

    @Test
    void aClosedStreamFailsTheSubscriptionAtItsRun() {
        DeviceStream s = ctx.createStream();
        try (DeviceBuffer v = ctx.allocate(DType.F32, 1); RepeatedPlan repeated = DevicePlan.on(s)
                .then(t -> t.enqueueLaunch(addOne, ONE, v, 1L)).repeated()) {
            repeated.enqueue().join();
            s.close();
            CompletionException e = assertThrows(CompletionException.class, () -> repeated.enqueue().join());
            assertInstanceOf(ClosedResourceException.class, e.getCause());
        }
    }

    @Test
    void concurrentSubscriptionsAllRunAndNoneIsLost() throws Exception {
        try (DeviceStream a = ctx.createStream(); DeviceStream b = ctx.createStream();
                DeviceBuffer x = a.enqueueAllocate(DType.F32, 1); DeviceBuffer y = a.enqueueAllocate(DType.F32, 1)) {
            a.enqueueFill(x, 0f);
            a.enqueueFill(y, 0f).join();
            // a, b, a: two runs on stream a, so that two threads in different runs can meet on one stream.
            try (RepeatedPlan repeated = DevicePlan.on(a)
                    .then(s -> s.enqueueLaunch(addOne, ONE, x, 1L))
                    .then(s -> s.enqueueLaunch(addOne, ONE, x, 1L))
                    .switchTo(b)
                    .then(s -> s.enqueueLaunch(addOne, ONE, y, 1L))
                    .then(s -> s.enqueueLaunch(addOne, ONE, y, 1L))
                    .switchTo(a)
                    .then(s -> s.enqueueLaunch(addOne, ONE, x, 1L))
                    .then(s -> s.enqueueLaunch(addOne, ONE, x, 1L))
                    .repeated()) {
                int threads = 3;
                int each = 40;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> done = new ArrayList<>();
                try (var pool = java.util.concurrent.Executors.newFixedThreadPool(threads)) {
                    for (int t = 0; t < threads; t++) {
                        done.add(pool.submit(() -> {
                            start.await();
                            for (int k = 0; k < each; k++) {
                                repeated.enqueue().join();
                            }
                            return null;
                        }));
                    }
                    start.countDown();
                    for (Future<?> f : done) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                }
                a.synchronize();
                b.synchronize();
                assertEquals(4f * threads * each, read(a, x));
                assertEquals(2f * threads * each, read(a, y));
                assertEquals(3L * threads * each, repeated.replays() + repeated.fallbacks(), "every run replayed or fell back");
            }
        }
    }

    @Test
    void consecutiveGeneratedElementwiseLaunchesFuse() {
        Kernel twice = Kernels.elementwise("rp_twice")
                .input(KernelParam.pointer("x", DType.F32)).output(KernelParam.pointer("y", DType.F32))
                .body("y = 2.0f * x").build();
        Kernel plusThree = Kernels.elementwise("rp_plus_three")
                .input(KernelParam.pointer("x", DType.F32)).output(KernelParam.pointer("y", DType.F32))
                .body("y = x + 3.0f").build();
        int n = 1000;
        try (DeviceFunction f = ctx.compile(twice); DeviceFunction g = ctx.compile(plusThree);
                DeviceStream s = ctx.createStream();
                DeviceBuffer x = s.enqueueAllocate(DType.F32, n); DeviceBuffer t = s.enqueueAllocate(DType.F32, n);
                DeviceBuffer y = s.enqueueAllocate(DType.F32, n)) {
            LaunchConfig config = LaunchConfig.forElements(n);
            AtomicReference<Float> input = new AtomicReference<>(1f);
            DevicePlan plan = DevicePlan.on(s)
                    .then(u -> u.enqueueFill(x, input.get()))
                    .then(u -> u.enqueueLaunch(f, config, x, t, (long) n))
                    .then(u -> u.enqueueLaunch(g, config, t, y, (long) n));
            try (RepeatedPlan fused = plan.repeated(); RepeatedPlan unfused = plan.repeated().fuseElementwise(false)) {
                for (float in : new float[] {1f, 4f}) {
                    input.set(in);
                    fused.enqueue().join();
                    float[] out = new float[n];
                    s.enqueueCopy(y, HostData.of(out)).join();
                    float[] expected = new float[n];
                    Arrays.fill(expected, 2f * in + 3f);
                    assertArrayEquals(expected, out);
                    unfused.enqueue().join();
                    s.enqueueCopy(y, HostData.of(out)).join();
                    assertArrayEquals(expected, out);
                }
                assertEquals(4, fused.fusedLaunches(), "two launches fused on each of two subscriptions");
                assertEquals(0, unfused.fusedLaunches());
                assertEquals(2, fused.replays());
                fused.fuseElementwise(false).enqueue().join(); // switched off after its runs' works exist
                assertEquals(4, fused.fusedLaunches(), "the switch reaches the works already made");
                assertEquals(3, fused.replays());
            }
        }
    }

    @Test
    void closeIsSafeFromManyThreadsAtOnce() throws InterruptedException, ExecutionException {
        try (DeviceStream s = ctx.createStream(); DeviceBuffer v = s.enqueueAllocate(DType.F32, 1)) {
            RepeatedPlan repeated = DevicePlan.on(s).then(t -> t.enqueueLaunch(addOne, ONE, v, 1L)).repeated();
            repeated.enqueue().join();
            List<Thread> closers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                closers.add(Thread.ofPlatform().start(repeated::close));
            }
            for (Thread t : closers) {
                t.join(10_000);
                assertFalse(t.isAlive());
            }
            assertTrue(repeated.isClosed());
            s.synchronize();
        }
    }
}
