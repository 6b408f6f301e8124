package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.functions.async.AsyncFunction;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.operators.async.AsyncWaitOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The async operator's checkpoint of its elements in flight, written through {@link ImmutableTypeInfo}'s serializer,
 * restores into a new operator: the state holds the serializer's snapshot as bytes, which the restore reads back by
 * class name, as a restarted TaskManager does.
 */
class ImmutableTypeInfoRestoreTest {

    static final TypeInformation<float[]> FLOATS = PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO;

    /** Holds every element: they stay in flight, so a checkpoint stores them. */
    static final class NeverCompletes implements AsyncFunction<float[], Float> {
        @Override
        public void asyncInvoke(float[] input, ResultFuture<Float> resultFuture) {
        }
    }

    /** The element's sum, at once. */
    static final class Sum implements AsyncFunction<float[], Float> {
        @Override
        public void asyncInvoke(float[] input, ResultFuture<Float> resultFuture) {
            float sum = 0;
            for (float v : input) {
                sum += v;
            }
            resultFuture.complete(List.of(sum));
        }
    }

    static OneInputStreamOperatorTestHarness<float[], Float> harness(AsyncFunction<float[], Float> function,
            TypeInformation<float[]> type) throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new AsyncWaitOperatorFactory<>(function, TimeUnit.MINUTES.toMillis(1), 4,
                        AsyncDataStream.OutputMode.ORDERED),
                type.createSerializer(new SerializerConfigImpl()));
    }

    /** Sums of the elements {@code state} held, restored through an operator of {@code type}. */
    static List<Float> restoredSums(OperatorSubtaskState state, TypeInformation<float[]> type) throws Exception {
        List<Float> sums = new ArrayList<>();
        try (OneInputStreamOperatorTestHarness<float[], Float> restored = harness(new Sum(), type)) {
            restored.initializeState(state);
            restored.open();
            restored.endInput();
            for (Object o : restored.getOutput()) {
                if (o instanceof StreamRecord<?> r) {
                    sums.add((Float) r.getValue());
                }
            }
        }
        return sums;
    }

    static OperatorSubtaskState checkpointOfThreeInFlight(TypeInformation<float[]> type) throws Exception {
        try (OneInputStreamOperatorTestHarness<float[], Float> running = harness(new NeverCompletes(), type)) {
            running.open();
            running.processElement(new float[] {1f, 2f}, 1);
            running.processElement(new float[] {3f}, 2);
            running.processElement(new float[] {4f, 5f, 6f}, 3);
            return running.snapshot(1, 10);
        }
    }

    @Test
    void elementsInFlightRestoreFromACheckpoint() throws Exception {
        OperatorSubtaskState state = checkpointOfThreeInFlight(ImmutableTypeInfo.of(FLOATS));
        assertEquals(List.of(3f, 3f, 15f), restoredSums(state, ImmutableTypeInfo.of(FLOATS)));
    }

    @Test
    void aCheckpointOfThePlainTypeRestoresIntoTheImmutableOne() throws Exception {
        OperatorSubtaskState state = checkpointOfThreeInFlight(FLOATS);
        assertEquals(List.of(3f, 3f, 15f), restoredSums(state, ImmutableTypeInfo.of(FLOATS)));
    }
}
