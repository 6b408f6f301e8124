package dev.sluice.flink;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.Kernels;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/flink.md's snippets, written out as a new user would from the page: the functions and the job graph they make
 * (the jobs themselves run in SluiceAsyncFunctionTest and ArrowBatchesTest).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlinkSnippetsTest {

    static final Kernel SQUARE = TestJobs.squareKernel("snippet_square");
    static final Kernel KERNEL = Kernels.elementwise("plus_one")
            .output(KernelParam.pointer("v", DType.F32))
            .body("v = v + 1.0f")
            .build();
    static final Kernel FMA = Kernels.elementwise("fma_ab1")
            .input(KernelParam.pointer("a", DType.F32))
            .input(KernelParam.pointer("b", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = a * b + 1.0f")
            .build();

    @Test
    void kernelAndStageSnippetsBuildAJob() {
        StreamExecutionEnvironment env = TestJobs.environment(1);
        DataStream<float[]> batches = env.fromData(new float[] {1, 2, 3}, new float[] {4})
                .returns(ImmutableTypeInfo.of(float[].class));                     // new arrays, never written again
        SluiceAsyncFunction<float[], float[]> square = SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE)
                .input(DType.F32, HostData::of)                                       // the element's host data
                .output(DType.F32, (in, result, n) -> result.toArray(JAVA_FLOAT))     // the result, from pinned staging
                .returns(float[].class)                                               // so no .returns() below
                .lanes(4)
                .build();
        DataStream<float[]> squared = AsyncDataStream.orderedWait(batches, square, 30, TimeUnit.SECONDS, square.lanes());
        assertEquals(float[].class, squared.getType().getTypeClass(), "returns(...) on the builder gives Flink OUT");
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> {
            DeviceBuffer d = lane.deviceBuffer(0, DType.F32, in.length);   // the lane's, reused across elements
            HostBuffer staging = lane.staging(0, DType.F32, in.length);    // pinned, the lane's
            DeviceStream s = lane.stream();
            s.enqueueCopy(HostData.of(in), d);
            s.enqueueLaunch(lane.function(KERNEL), LaunchConfig.forElements(in.length), d, (long) in.length);
            return s.enqueueCopy(d, staging).thenApply(v -> staging.segment().toArray(JAVA_FLOAT));
        }, 4);
        AsyncDataStream.orderedWait(squared, f, 30, TimeUnit.SECONDS, f.lanes()).returns(float[].class);
        SluiceAsyncFunction<float[], float[]> copied = SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE)
                .inputBytes(DType.F32, MemorySegment::ofArray)
                .output(DType.F32, (in, result, n) -> result.toArray(JAVA_FLOAT))
                .build();
        assertEquals(4, copied.lanes(), "lanes() on the client: the builder's, or 4");
    }

    @Test
    void arrowSnippetBuilds() {
        SluiceAsyncFunction<ArrowBatch, ArrowBatch> fma = ArrowBatches.kernel(() -> FMA)   // y = a*b + 1, written once
                .columns("a", "b")                                                     // the kernel's inputs, in its order
                .output(Field.nullable("y", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
                .passThrough("id")                                                     // input columns the result keeps
                .lanes(4)
                .build();
        assertEquals(4, fma.lanes());
        assertEquals(4, SluiceAsyncFunction.of((lane, in) -> null).lanes());
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> ArrowBatches.kernel(() -> FMA).closeTimeout(java.time.Duration.ofHours(2)));
        assertEquals("closeTimeout", e.argument(), "0 to 1 h");
    }
}
