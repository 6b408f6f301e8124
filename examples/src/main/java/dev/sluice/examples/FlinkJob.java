package dev.sluice.examples;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.sluice.DType;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.flink.SluiceAsyncFunction;
import dev.sluice.kernel.Kernels;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.windowing.AllWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.GlobalWindow;
import org.apache.flink.util.Collector;

/**
 * A Flink job with a GPU stage, on an embedded Flink cluster: a bounded source of numbers, batched into arrays by a count
 * window, {@code y = x * x + 0.5 x + 1} on the device through a {@link SluiceAsyncFunction} ({@code unorderedWait},
 * capacity its lanes, as docs/flink.md advises), and a last stage that checks every value against the host's
 * computation and counts what it checked in Flink accumulators; prints one line. Arguments:
 * {@code [batches [floats per batch [parallelism]]]}, 64, 4096 and 2 by default. The subtasks share their device's
 * context (with one device, every subtask is on it).
 */
public final class FlinkJob {

    /** {@code y = x * x + 0.5 x + 1} for every element; takes (x, y, n), the arguments the builder's stage passes. */
    static final Kernel QUADRATIC = Kernels.elementwise("quadratic")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = x * x + 0.5f * x + 1.0f")
            .build();

    private FlinkJob() {
    }

    /** The host's computation the device's results are checked against. */
    static float quadratic(float x) {
        return x * x + 0.5f * x + 1.0f;
    }

    /** A batch and the device's result for it. */
    public record Result(float[] input, float[] output) {
    }

    public static void main(String[] args) throws Exception {
        int batches = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
        int parallelism = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        System.out.println(run(batches, size, parallelism));
    }

    /** Runs the job and returns its summary; a value that differs from the host's fails the job, naming it. */
    static String run(int batches, int size, int parallelism) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a wrong value ends the run at once
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);

        // One record per number, batched upstream: a launch per record would cost more than the work.
        DataStream<float[]> arrays = env.fromSequence(0, (long) batches * size - 1)
                .map(i -> (i % 1000) / 8f).returns(Float.class)
                .countWindowAll(size).apply(new ToArray())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .name("batch"); // Flink's generated name is longer than its metrics take, which it warns about

        SluiceAsyncFunction<float[], Result> gpu = SluiceAsyncFunction.<float[], Result>kernel(() -> QUADRATIC)
                .input(DType.F32, HostData::of)
                .output(DType.F32, (in, y, n) -> new Result(in, y.toArray(JAVA_FLOAT)))
                .lanes(4)
                .build();
        DataStream<Result> results = AsyncDataStream
                .unorderedWait(arrays, gpu, 30, TimeUnit.SECONDS, gpu.lanes())
                .returns(TypeInformation.of(Result.class))
                .name("GPU stage");

        results.process(new CheckOnHost()).name("check on the host").sinkTo(new DiscardingSink<>());

        long start = System.nanoTime();
        JobExecutionResult done = env.execute("FlinkJob");
        double seconds = (System.nanoTime() - start) / 1e9;
        long checkedBatches = done.getAccumulatorResult(CheckOnHost.BATCHES);
        long checkedValues = done.getAccumulatorResult(CheckOnHost.VALUES);
        return String.format(Locale.ROOT, "FlinkJob: %d batches of %d floats through y = x * x + 0.5 x + 1 on the"
                + " device, parallelism %d, 4 lanes a subtask: %d values checked against the host, all equal (%.1f s)",
                checkedBatches, size, parallelism, checkedValues, seconds);
    }

    /** The numbers of a count window as one array. */
    static final class ToArray implements AllWindowFunction<Float, float[], GlobalWindow> {
        @Override
        public void apply(GlobalWindow window, Iterable<Float> values, Collector<float[]> out) {
            int n = 0;
            for (Float ignored : values) {
                n++;
            }
            float[] batch = new float[n];
            int i = 0;
            for (Float v : values) {
                batch[i++] = v;
            }
            out.collect(batch);
        }
    }

    /**
     * Checks each value of a result against {@link #quadratic} on the host, within a relative 1e-5 (a GPU may fuse the
     * multiply and add, rounding once where the host rounds twice); counts batches and values in accumulators.
     */
    static final class CheckOnHost extends ProcessFunction<Result, Void> {
        static final String BATCHES = "batches checked";
        static final String VALUES = "values checked";
        private final LongCounter batches = new LongCounter();
        private final LongCounter values = new LongCounter();

        @Override
        public void open(OpenContext openContext) {
            getRuntimeContext().addAccumulator(BATCHES, batches);
            getRuntimeContext().addAccumulator(VALUES, values);
        }

        @Override
        public void processElement(Result r, Context ctx, Collector<Void> out) {
            if (r.output().length != r.input().length) {
                throw new IllegalStateException(r.output().length + " results for a batch of " + r.input().length);
            }
            for (int i = 0; i < r.input().length; i++) {
                float expected = quadratic(r.input()[i]);
                if (Math.abs(r.output()[i] - expected) > 1e-5f * Math.max(1f, Math.abs(expected))) {
                    throw new IllegalStateException("value " + i + " of a batch: x = " + r.input()[i] + ", the device"
                            + " gave " + r.output()[i] + ", the host " + expected);
                }
            }
            batches.add(1);
            values.add(r.input().length);
        }
    }
}
