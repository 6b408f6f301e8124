package dev.sluice.flink;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one-kernel builder with several inputs and outputs and a scalar argument, its results' type declared to Flink,
 * and the description of elements in messages. Jobs on an embedded cluster of one TaskManager with 2 slots.
 */
class KernelStageTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .build());

    /** {@code sum[i] = a * x[i] + y[i]}, {@code product[i] = x[i] * y[i]}: (x, y, sum, product, long n, float a). */
    static final Kernel AXPY_AND_PRODUCT = Kernel.named("axpy_and_product")
            .param(KernelParam.pointer("x", DType.F32))
            .param(KernelParam.pointer("y", DType.F32))
            .param(KernelParam.pointer("sum", DType.F32))
            .param(KernelParam.pointer("product", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .param(KernelParam.scalar("a", DType.F32))
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(4)) {
                    float x = t.pointer(0).getAtIndex(JAVA_FLOAT, i);
                    float y = t.pointer(1).getAtIndex(JAVA_FLOAT, i);
                    t.pointer(2).setAtIndex(JAVA_FLOAT, i, t.floatArg(5) * x + y);
                    t.pointer(3).setAtIndex(JAVA_FLOAT, i, x * y);
                }
            })
            .build();

    @AfterEach
    void everyContextClosed() throws InterruptedException {
        TestJobs.assertEveryContextClosed();
    }

    /** y is x reversed; the result is sum followed by product. */
    private static SluiceAsyncFunction<float[], float[]> twoInTwoOut(float a) {
        return SluiceAsyncFunction.<float[], float[]>kernel(() -> AXPY_AND_PRODUCT)
                .input(DType.F32, HostData::of)
                .input(DType.F32, x -> HostData.of(reversed(x)))
                .outputs(KernelStageTest::concatenated, DType.F32, DType.F32)
                .scalar((x, n) -> a)
                .returns(float[].class)
                .lanes(2)
                .build();
    }

    private static float[] reversed(float[] x) {
        float[] r = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            r[i] = x[x.length - 1 - i];
        }
        return r;
    }

    private static float[] concatenated(float[] in, List<MemorySegment> outputs, long[] counts) {
        float[] r = new float[(int) (counts[0] + counts[1])];
        MemorySegment.copy(outputs.get(0), JAVA_FLOAT, 0, r, 0, (int) counts[0]);
        MemorySegment.copy(outputs.get(1), JAVA_FLOAT, 0, r, (int) counts[0], (int) counts[1]);
        return r;
    }

    @Test
    void severalInputsOutputsAndAScalarWithTheTypeDeclaredToFlink() throws Exception {
        StreamExecutionEnvironment env = TestJobs.environment(2);
        List<float[]> data = new ArrayList<>();
        for (int b = 0; b < 6; b++) {
            data.add(new float[] {b, b + 1, b + 2});
        }
        SluiceAsyncFunction<float[], float[]> f = twoInTwoOut(2f);
        assertInstanceOf(ResultTypeQueryable.class, f, "the builder's returns(...) makes the function declare its type");
        // No .returns(...) on the operator: Flink takes the type from the function.
        DataStream<float[]> out = AsyncDataStream.orderedWait(
                env.fromData(data, PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO).setParallelism(1), f, 30,
                TimeUnit.SECONDS, f.lanes());
        assertEquals(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO, out.getType());
        List<float[]> results = new ArrayList<>();
        try (CloseableIterator<float[]> it = out.executeAndCollect()) {
            it.forEachRemaining(results::add);
        }
        assertEquals(6, results.size());
        // Two subtasks: each keeps its order, the collected stream interleaves them. sum[0] = 3b + 2 orders them.
        results.sort(java.util.Comparator.comparingDouble(r -> r[0]));
        for (int b = 0; b < 6; b++) {
            float[] x = data.get(b);
            float[] y = reversed(x);
            float[] r = results.get(b);
            for (int i = 0; i < 3; i++) {
                assertEquals(2f * x[i] + y[i], r[i], "sum " + i + " of batch " + b);
                assertEquals(x[i] * y[i], r[3 + i], "product " + i + " of batch " + b);
            }
        }
    }

    @Test
    void aFunctionStaysTypedThroughItsSettingsAndUntypedWithoutReturns() {
        SluiceAsyncFunction<float[], float[]> typed = twoInTwoOut(1f).backend("cpu").fatalOnStickyFault(false)
                .assignment(DeviceAssignment.fixed(0));
        assertEquals(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO,
                ((ResultTypeQueryable<?>) typed).getProducedType());
        SluiceAsyncFunction<float[], float[]> untyped = SluiceAsyncFunction.of((lane, in) -> null, 1);
        assertFalse(untyped instanceof ResultTypeQueryable, "Flink would ask it for a type it does not know");
        assertInstanceOf(ResultTypeQueryable.class, untyped.returns(float[].class));
    }

    @Test
    void theBuilderRefusesAnOutputsCallWithoutTypes() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> SluiceAsyncFunction.<float[], float[]>kernel(() -> AXPY_AND_PRODUCT)
                        .outputs((in, outs, counts) -> in));
        assertTrue(e.getMessage().contains("types"), e.getMessage());
    }

    @Test
    void elementsAreNamedByNumberAndSubtaskThenTypeAndSize() {
        assertEquals("element 17 of subtask 2 (float[4096])", Elements.describe(2, 17, new float[4096]));
        assertEquals("an element of subtask 0 (float[4096])", Elements.describe(0, Elements.UNKNOWN, new float[4096]),
                "a number no longer known is left out, not made up");
        assertEquals("element 0 of subtask 1 (null)", Elements.describe(1, 0, null));
        assertEquals("float[][2]", Elements.content(new float[2][3]));
        assertTrue(Elements.content(HostData.of(new float[8])).endsWith(" of 32 bytes"),
                Elements.content(HostData.of(new float[8])));
        assertEquals("ArrayList of 3 elements", Elements.content(new ArrayList<>(List.of(1, 2, 3))));
        assertEquals("String of 5 chars", Elements.content("hello"));
        assertEquals("Point[x=1]", Elements.content(new Point(1)), "its text names its type");
        assertEquals("Opaque #7", Elements.content(new Opaque()), "its type, then its text");
    }

    @Test
    void aBadScalarFailsItsElementNamingTheScalarAndTheElement() throws Exception {
        StreamExecutionEnvironment env = TestJobs.environment(1);
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.<float[], float[]>kernel(() -> AXPY_AND_PRODUCT)
                .input(DType.F32, HostData::of)
                .input(DType.F32, HostData::of)
                .outputs(KernelStageTest::concatenated, DType.F32, DType.F32)
                .scalar((x, n) -> "two")
                .returns(float[].class)
                .build();
        DataStream<float[]> out = AsyncDataStream.orderedWait(
                env.fromData(List.of(new float[] {1, 2}), PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO), f, 30,
                TimeUnit.SECONDS, f.lanes());
        Exception e = assertThrows(Exception.class, () -> {
            try (CloseableIterator<float[]> it = out.executeAndCollect()) {
                it.forEachRemaining(r -> { });
            }
        });
        String why = org.apache.flink.util.ExceptionUtils.stringifyException(e);
        assertTrue(why.contains("the stage failed on element 0 of subtask 0 (float[2]) on device ")
                && why.contains("scalar 0 of 1 is a String"), why);
    }

    /** A class whose text does not name it. */
    static final class Opaque {
        @Override
        public String toString() {
            return "#7";
        }
    }

    /** A record, whose text starts with its type's name. */
    record Point(int x) {
    }
}
