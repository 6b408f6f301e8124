package dev.sluice.flink;

import static dev.sluice.testing.Attacks.assertRefused;
import static dev.sluice.testing.Attacks.atOnceFromTwoThreads;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.functions.async.CollectionSupplier;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.util.MockStreamingRuntimeContext;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bad arguments and misuse of SluiceAsyncFunction's public calls, without a cluster: the function is opened on a mock
 * runtime context of subtask 0, on the backend of {@link TestBackend}.
 */
class SluiceAsyncFunctionArgumentsTest {

    static final Kernel SQUARE = TestJobs.squareKernel("square_arguments");

    private static final GpuStage<float[], float[]> NOTHING = (lane, in) -> CompletableFuture.completedFuture(in);

    @AfterEach
    void everyContextClosed() throws InterruptedException {
        TestJobs.assertEveryContextClosed();
    }

    private static SluiceAsyncFunction<float[], float[]> square(int lanes) {
        return SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE)
                .input(DType.F32, HostData::of)
                .output(DType.F32, (in, result, n) -> result.toArray(JAVA_FLOAT))
                .returns(float[].class)
                .lanes(lanes)
                .backend(TestBackend.select())
                .build();
    }

    private static SluiceAsyncFunction<float[], float[]> opened(SluiceAsyncFunction<float[], float[]> f) throws Exception {
        f.setRuntimeContext(new MockStreamingRuntimeContext(1, 0));
        f.open(null);
        return f;
    }

    @Test
    void lanesOutsideOneToSixtyFourAreRefusedByEveryWayOfSettingThem() {
        for (int bad : new int[] {0, -1, 65, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertRefused("lanes", () -> SluiceAsyncFunction.of(NOTHING, bad), "value " + bad, "1 to 64");
            assertRefused("lanes", () -> new SluiceAsyncFunction<>(NOTHING, bad, DeviceAssignment.roundRobin(), null),
                    "value " + bad, "1 to 64");
            assertRefused("lanes", () -> SluiceAsyncFunction.kernel(() -> SQUARE).lanes(bad), "value " + bad,
                    "1 to 64");
            assertRefused("lanes", () -> ArrowBatches.kernel(() -> SQUARE).lanes(bad), "value " + bad, "1 to 64");
            assertRefused("sluice.lanes", () -> SluiceOptions.lanes(SluiceOptions.merged(
                    Map.of("sluice.lanes", Integer.toString(bad)), new Configuration())), "value " + bad, "1 to 64");
        }
        assertEquals(64, SluiceAsyncFunction.of(NOTHING, 64).lanes());
        assertEquals(64, SluiceOptions.lanes(SluiceOptions.merged(Map.of("sluice.lanes", "64"), new Configuration())));
    }

    @Test
    void aBlankBackendIsRefusedByTheConstructorAsByItsSetter() {
        for (String blank : new String[] {"", " ", "\t"}) {
            assertRefused("backend", () -> new SluiceAsyncFunction<>(NOTHING, 1, DeviceAssignment.roundRobin(), blank),
                    "names no backend");
            assertRefused("backend", () -> SluiceAsyncFunction.of(NOTHING, 1).backend(blank), "names no backend");
        }
        assertRefused("backend", () -> SluiceAsyncFunction.of(NOTHING, 1).backend(null), "names no backend");
        // null is the default backend in the constructor, as documented
        assertEquals(1, new SluiceAsyncFunction<>(NOTHING, 1, DeviceAssignment.roundRobin(), null).lanes());
    }

    @Test
    void elementsBeforeOpenAreRefusedSayingSo() {
        SluiceAsyncFunction<float[], float[]> f = square(1);
        IllegalStateException invoke = assertThrows(IllegalStateException.class,
                () -> f.asyncInvoke(new float[] {1}, new Result()));
        assertTrue(invoke.getMessage().contains("asyncInvoke before open()"), invoke.getMessage());
        IllegalStateException timeout = assertThrows(IllegalStateException.class,
                () -> f.timeout(new float[] {1}, new Result()));
        assertTrue(timeout.getMessage().contains("timeout before open()"), timeout.getMessage());
    }

    @Test
    void aNullResultFutureIsRefusedAtTheCallWithNothingNumberedOrStarted() throws Exception {
        SluiceAsyncFunction<float[], float[]> f = opened(square(1));
        try {
            assertRefused("resultFuture", () -> f.asyncInvoke(new float[] {1}, null), "null");
            assertRefused("resultFuture", () -> f.timeout(new float[] {1}, null), "null");
            // The one lane is free, and the refused call took no element number.
            Result nullElement = new Result();
            f.asyncInvoke(null, nullElement);
            Throwable failure = nullElement.failure();
            assertInstanceOf(GpuStageException.class, failure);
            assertTrue(failure.getMessage().contains("element 0 of subtask 0"), failure.getMessage());
            Result squared = new Result();
            f.asyncInvoke(new float[] {3}, squared);
            assertArrayEquals(new float[] {9}, squared.value());
        } finally {
            f.close();
        }
    }

    @Test
    void aLaunchShapeGivingNullFailsItsElementNamingTheLaunch() throws Exception {
        SluiceAsyncFunction<float[], float[]> f = opened(SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE)
                .input(DType.F32, HostData::of)
                .output(DType.F32, (in, result, n) -> result.toArray(JAVA_FLOAT))
                .launch(n -> null)
                .lanes(1)
                .backend(TestBackend.select())
                .build());
        try {
            Result r = new Result();
            f.asyncInvoke(new float[] {1, 2}, r);
            Throwable failure = r.failure();
            assertInstanceOf(GpuStageException.class, failure);
            dev.sluice.InvalidArgumentException cause = assertInstanceOf(dev.sluice.InvalidArgumentException.class,
                    failure.getCause());
            assertEquals("launch", cause.argument(), cause.getMessage());
            assertTrue(cause.getMessage().contains("gave null for 2 input elements"), cause.getMessage());
        } finally {
            f.close();
        }
    }

    /** A stage whose {@link GpuStage#kernels()} gives {@code kernels}. */
    private static GpuStage<float[], float[]> withKernels(List<Kernel> kernels) {
        return new GpuStage<>() {
            @Override
            public CompletableFuture<float[]> apply(GpuLane lane, float[] in) {
                return CompletableFuture.completedFuture(in);
            }

            @Override
            public List<Kernel> kernels() {
                return kernels;
            }
        };
    }

    @Test
    void aStageWhoseKernelsAreNullOrHoldANullFailsTheOpenNamingThemAndLeavesNothingOpen() {
        for (List<Kernel> bad : Arrays.asList(null, Arrays.asList(SQUARE, null))) {
            SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of(withKernels(bad), 1)
                    .backend(TestBackend.select());
            assertRefused("kernels", () -> opened(f), "kernels() gave", "List.of() for none");
        }
        // everyContextClosed, after the test: the failed opens closed what they had opened
    }

    @Test
    void oneElementInstanceGivenTwiceIsTrackedPerInvocation() throws Exception {
        // Flink may hand the same instance twice (an immutable type, a map emitting one array for every record).
        List<CompletableFuture<float[]>> held = new java.util.concurrent.CopyOnWriteArrayList<>();
        GpuStage<float[], float[]> stage = (lane, in) -> {
            CompletableFuture<float[]> result = new CompletableFuture<>();
            held.add(result);
            return result;
        };
        SluiceAsyncFunction<float[], float[]> f = opened(SluiceAsyncFunction.of(stage, 1)
                .backend(TestBackend.select()));
        try {
            float[] same = {1};
            Result first = new Result();
            Result second = new Result();
            f.asyncInvoke(same, first); // on the one lane
            f.asyncInvoke(same, second); // waits for it
            f.timeout(same, second);
            String timedOut = second.failure().getMessage();
            assertTrue(timedOut.contains("element 1 of subtask 0") && timedOut.contains("waiting for a lane"), timedOut);
            held.get(0).complete(same);
            assertArrayEquals(same, first.value());
            // The lane is free for the next element: the timed-out one, dropped from the wait, is not started on it.
            Result third = new Result();
            f.asyncInvoke(new float[] {2}, third);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (held.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            held.get(1).complete(new float[] {4});
            assertArrayEquals(new float[] {4}, third.value());
            assertEquals(2, held.size(), "the stage ran the first and the third element only");
        } finally {
            f.close();
        }
    }

    @Test
    void closeIsIdempotentFromSeveralThreadsAndLaterElementsFailClearly() throws Exception {
        SluiceAsyncFunction<float[], float[]> f = opened(square(2));
        Result first = new Result();
        f.asyncInvoke(new float[] {2}, first);
        assertArrayEquals(new float[] {4}, first.value());
        atOnceFromTwoThreads(f::close, 30);
        f.close();
        Result late = new Result();
        f.asyncInvoke(new float[] {1}, late);
        assertTrue(late.failure().getMessage().contains("arrived after the function closed"), late.failure().getMessage());
    }

    @Test
    void aFunctionRoundTripsThroughJavaSerializationAndStaysTyped() throws Exception {
        SluiceAsyncFunction<float[], float[]> built = square(3);
        SluiceAsyncFunction<float[], float[]> copy = InstantiationUtil.clone(built);
        assertEquals(3, copy.lanes());
        assertEquals(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO,
                ((TypedSluiceAsyncFunction<float[], float[]>) copy).getProducedType());
        Result squared = new Result();
        opened(copy).asyncInvoke(new float[] {5}, squared);
        try {
            assertArrayEquals(new float[] {25}, squared.value());
        } finally {
            copy.close();
        }
    }

    /** What Flink's ResultFuture receives: a value, or the failure its supplier throws on the task thread. */
    static final class Result implements ResultFuture<float[]> {
        private final CompletableFuture<float[]> result = new CompletableFuture<>();

        @Override
        public void complete(Collection<float[]> values) {
            result.complete(values.iterator().next());
        }

        @Override
        public void completeExceptionally(Throwable error) {
            result.completeExceptionally(error);
        }

        @Override
        public void complete(CollectionSupplier<float[]> supplier) {
            try {
                complete(supplier.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }

        float[] value() throws Exception {
            return result.get(30, TimeUnit.SECONDS);
        }

        Throwable failure() throws Exception {
            try {
                result.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                return e.getCause();
            }
            throw new AssertionError("the element did not fail");
        }
    }
}
