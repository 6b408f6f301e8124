package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Elements declared with {@link ImmutableTypeInfo} reach a chained {@link SluiceAsyncFunction} as the very arrays the
 * map before it emitted, where Flink copies elements of the plain {@code float[]} type (in the async operator with
 * object reuse on, between the chained operators with it off). The embedded cluster runs in the test's JVM, so the
 * stage can look its input up among the emitted arrays by identity.
 */
class ImmutableTypeInfoJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(1)
            .build());

    static final int ELEMENTS = 24;
    static final int SIZE = 1000;

    /** The arrays the map emitted, by identity. */
    static final Set<float[]> EMITTED = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    /** Elements the stage got as an emitted array itself, and as another (a copy). */
    static final AtomicInteger SAME = new AtomicInteger();
    static final AtomicInteger COPIED = new AtomicInteger();

    @AfterEach
    void everyContextClosed() throws InterruptedException {
        TestJobs.assertEveryContextClosed();
    }

    /** Element {@code b}: {@code [b, b + 1/8, ...]} of {@link #SIZE} floats. */
    static float[] element(long b) {
        float[] e = new float[SIZE];
        for (int i = 0; i < SIZE; i++) {
            e[i] = b + i / 8f;
        }
        return e;
    }

    @ParameterizedTest(name = "immutable {0}, object reuse {1}")
    @CsvSource({"true, true", "true, false", "false, true", "false, false"})
    void immutableElementsReachTheFunctionUncopied(boolean immutable, boolean objectReuse) throws Exception {
        EMITTED.clear();
        SAME.set(0);
        COPIED.set(0);
        StreamExecutionEnvironment env = TestJobs.environment(1);
        if (objectReuse) {
            env.getConfig().enableObjectReuse();
        } else {
            env.getConfig().disableObjectReuse();
        }
        TypeInformation<float[]> type = immutable
                ? ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                : PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO;
        // Source, map and async operator all of parallelism 1: one chain, so no network edge serializes the elements.
        DataStream<float[]> elements = env.fromSequence(0, ELEMENTS - 1)
                .map(b -> {
                    float[] e = element(b);
                    EMITTED.add(e);
                    return e;
                })
                .returns(type);
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> {
            (EMITTED.contains(in) ? SAME : COPIED).incrementAndGet();
            return SluiceAsyncFunctionTest.square(lane, in);
        }, 2);
        List<float[]> out = new ArrayList<>();
        try (CloseableIterator<float[]> it = AsyncDataStream.orderedWait(elements, f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .executeAndCollect()) {
            it.forEachRemaining(out::add);
        }

        assertEquals(ELEMENTS, out.size());
        for (int b = 0; b < ELEMENTS; b++) {
            float[] expected = element(b);
            for (int i = 0; i < SIZE; i++) {
                expected[i] *= expected[i];
            }
            assertArrayEquals(expected, out.get(b), "element " + b);
        }
        assertEquals(ELEMENTS, EMITTED.size());
        if (immutable) {
            assertEquals(List.of(ELEMENTS, 0), List.of(SAME.get(), COPIED.get()),
                    "[elements the stage got uncopied, copied]");
        } else {
            assertEquals(List.of(0, ELEMENTS), List.of(SAME.get(), COPIED.get()),
                    "[elements the stage got uncopied, copied]: Flink copies the plain type");
        }
    }
}
