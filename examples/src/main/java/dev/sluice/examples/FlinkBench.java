package dev.sluice.examples;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.SluiceProperties;
import dev.sluice.flink.DeviceAssignment;
import dev.sluice.flink.GpuLane;
import dev.sluice.flink.GpuStage;
import dev.sluice.flink.ImmutableTypeInfo;
import dev.sluice.flink.SluiceAsyncFunction;
import dev.sluice.kernel.Kernels;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.DeviceLane;
import dev.sluice.reactive.GpuPipeline;
import java.io.Serial;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.accumulators.LongMinimum;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import reactor.core.publisher.Flux;

/**
 * Throughput of a GPU stage in a Flink job against the plain {@link GpuPipeline}, in one process on the same load:
 * {@code --batches} batches of {@code --floats} floats, each uploaded, run through an elementwise kernel of
 * {@value SpinLoad#FMAS_PER_PASS} dependent FMAs per element ({@link Kernels#elementwise}, written once) {@code --work} times
 * in place, and downloaded into a new {@code float[]}. Transfer-bound with little work, compute-bound with much: each
 * setting of {@code --work} (a comma-separated list) is measured in turn, and first timed alone on device 0 (one
 * batch's copies, one batch's launches) to say which bound it is.
 *
 * <p>The ways, each over one device and over two (where {@code --devices} allows):
 * <ul>
 * <li><b>pipeline</b>: a {@link GpuPipeline} of {@code --lanes} lanes per device, {@code float[]} chunks
 * ({@link Chunks#floats()}), results unordered ({@link GpuPipeline#processUnordered});
 * <li><b>flink pP</b>: a job on an embedded {@link MiniCluster} (one TaskManager of 4 slots, started once): a parallel
 * source of batch numbers, each subtask handing out its own pre-filled arrays, a {@link SluiceAsyncFunction} of
 * {@code --lanes} lanes per subtask through {@code unorderedWait} (capacity: the lanes) at parallelism P = 1, 2 and 4,
 * on device 0 ({@link DeviceAssignment#fixed}) or on devices 0 and 1 by subtask (P = 2 and 4), then a check of every
 * result and a discarding sink, all chained, with object reuse (no copy of an array between operators; Flink's async
 * operator still copies each element it takes, through the element type's serializer, on the subtask's thread);
 * <li><b>flink p1 immutable</b>: the same job at parallelism 1 on one device, its arrays declared
 * {@link ImmutableTypeInfo} (never written once emitted), which Flink hands on without that copy.
 * </ul>
 * Both copy each array into the lane's pinned staging and read the result out of it into a new array, on the lanes'
 * copy threads for batches of 1 MiB or more (as the pipeline does by default), so that neither is held to one thread's
 * memory copies. A run of the pipeline is timed from its subscription to its last result; a run of the job from its first
 * batch handed out by the source to its last result checked (the job's deployment, its functions' opening and closing
 * are left out: they are the job's {@code job ms}, printed beside). Every way runs once to warm up, then {@code --runs}
 * times, the order of the ways rotating run by run; the figures are medians. Every result is checked: its first and
 * last value against the host's computation of its batch, and the count and the batches' numbers summed.
 *
 * <p>Prints a table per setting and {@code key=value} lines ({@code flinkbench_work<W>_...}): each way's median
 * milliseconds, and throughput ratios, {@code flink_p1_1gpu_over_pipeline_1gpu} (the Flink job on one device against
 * the plain pipeline), {@code flink_2gpu_over_1gpu} (the best of the job over two devices against the best over one),
 * and the others the table's rows give. Options (defaults for the CPU simulator, then for a GPU):
 * <pre>
 * --api cpu|cuda|hip   the backend (default: sluice.api, SLUICE_API, else the best present)
 * --batches N          batches per run (32; 256)
 * --floats M           floats per batch (4096; 1048576)
 * --work W[,W...]      passes of the kernel per batch (1; 1,128): W x 128 dependent FMAs per element
 * --runs K             timed runs of each way (3; 5)
 * --devices D          1 or 2 (2 where the backend has two; the CPU simulator is given two)
 * --lanes L            lanes per device (pipeline) and per subtask (Flink) (2; 4)
 * </pre>
 * On the CPU simulator its figures say nothing of GPUs: it is the smoke test of the benchmark. See docs/flink.md.
 */
public final class FlinkBench {

    /** Slots of the embedded TaskManager: the highest parallelism measured. */
    private static final int SLOTS = 4;


    /** The options, resolved: see the class comment. */
    record Options(Api api, int batches, int floats, List<Integer> work, int runs, int devices, int lanes) {
    }

    /** One way of running the load: the pipeline ({@code parallelism} 0) or the Flink job, over 1 or 2 devices. */
    record Way(String key, String name, int devices, int parallelism, boolean immutable) {
        Way(String key, String name, int devices, int parallelism) {
            this(key, name, devices, parallelism, false);
        }

        boolean flink() {
            return parallelism > 0;
        }
    }

    /** One run's times: what throughput is measured on, and for the Flink job the whole job's. */
    record Timing(double ms, double jobMs) {
    }

    private FlinkBench() {
    }

    public static void main(String[] args) throws Exception {
        // Each subtask logs its device at INFO: hundreds of lines over the runs, on stderr. Kept for warnings.
        Logger flinkLog = Logger.getLogger("dev.sluice.flink");
        flinkLog.setLevel(Level.WARNING);
        run(args).forEach(System.out::println);
    }

    /** Runs the benchmark; returns the lines it prints. */
    static List<String> run(String[] args) throws Exception {
        Options o = options(args);
        List<String> out = new ArrayList<>();
        List<DeviceContext> contexts = new ArrayList<>();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        MiniClusterConfiguration cluster = new MiniClusterConfiguration.Builder().setConfiguration(conf)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(SLOTS).build();
        try (MiniCluster flink = new MiniCluster(cluster)) {
            for (int d = 0; d < o.devices(); d++) {
                contexts.add(DeviceContext.open(o.api(), d));
            }
            flink.start();
            List<float[]> pool = pool(o.floats());
            out.add(String.format(Locale.ROOT, "flinkbench_devices=%s", String.join(" | ",
                    contexts.stream().map(DeviceContext::name).toList())));
            for (int work : o.work()) {
                measure(o, work, contexts, flink, pool, out);
            }
        } finally {
            for (DeviceContext c : contexts) {
                c.close();
            }
        }
        return out;
    }

    /** One setting of {@code --work}: the probe of its bound, every way, the table and the ratios. */
    private static void measure(Options o, int work, List<DeviceContext> contexts, MiniCluster flink, List<float[]> pool,
            List<String> out) throws Exception {
        String key = "flinkbench_work" + work + "_";
        double[] probe = probe(contexts.get(0), o.floats(), work);
        List<Way> ways = ways(o.devices());
        Map<Way, GpuPipeline<float[], float[]>> pipelines = new LinkedHashMap<>();
        Map<Way, List<Timing>> timings = new LinkedHashMap<>();
        try {
            for (Way w : ways) {
                if (!w.flink()) {
                    pipelines.put(w, pipeline(contexts.subList(0, w.devices()), o, work));
                }
                runOnce(w, o, work, pool, pipelines, flink); // warm-up
                timings.put(w, new ArrayList<>());
            }
            for (int r = 0; r < o.runs(); r++) {
                for (int i = 0; i < ways.size(); i++) {
                    Way w = ways.get((i + r) % ways.size()); // each run starts with another way
                    timings.get(w).add(runOnce(w, o, work, pool, pipelines, flink));
                }
            }
        } finally {
            pipelines.values().forEach(GpuPipeline::close);
        }

        Map<String, Double> ms = new LinkedHashMap<>();
        double bytes = 2.0 * o.batches() * o.floats() * Float.BYTES;
        out.add(String.format(Locale.ROOT, "%n%s: %d batches of %d floats (%s), %d x %d dependent FMAs per element,"
                + " %d lane(s) a device or subtask, median of %d run(s)", o.api().id(), o.batches(), o.floats(),
                size((long) o.floats() * Float.BYTES), work, SpinLoad.FMAS_PER_PASS, o.lanes(), o.runs()));
        out.add(String.format(Locale.ROOT, "one batch alone on device 0: copies %.3f ms, kernels %.3f ms: %s-bound",
                probe[0], probe[1], probe[1] > probe[0] ? "compute" : "transfer"));
        out.add(String.format(Locale.ROOT, "%-22s %7s %11s %10s %11s %13s %8s", "way", "devices", "parallelism", "median ms",
                "batches/s", "GB/s in+out", "job ms"));
        for (Way w : ways) {
            double median = median(timings.get(w).stream().mapToDouble(Timing::ms).toArray());
            double job = median(timings.get(w).stream().mapToDouble(Timing::jobMs).toArray());
            ms.put(w.key(), median);
            out.add(String.format(Locale.ROOT, "%-22s %7d %11s %10.1f %11.1f %13.2f %8s", w.name(), w.devices(),
                    w.flink() ? Integer.toString(w.parallelism()) : "-", median, o.batches() / median * 1e3,
                    bytes / median / 1e6, w.flink() ? String.format(Locale.ROOT, "%.1f", job) : "-"));
        }
        out.add(key + "copies_ms_per_batch=" + format(probe[0]));
        out.add(key + "kernels_ms_per_batch=" + format(probe[1]));
        out.add(key + "bound=" + (probe[1] > probe[0] ? "compute" : "transfer"));
        for (Map.Entry<String, Double> e : ms.entrySet()) {
            out.add(key + e.getKey() + "_ms=" + format(e.getValue()));
        }
        // Throughput ratios: the time of the way below the line over the time of the way above it.
        for (String[] r : ratios(o.devices())) {
            out.add(key + r[0] + "_over_" + r[1] + "=" + format(ms.get(r[1]) / ms.get(r[0])));
        }
        if (o.devices() > 1) {
            double best1 = Math.min(ms.get("flink_p1_1gpu"), Math.min(ms.get("flink_p2_1gpu"), ms.get("flink_p4_1gpu")));
            double best2 = Math.min(ms.get("flink_p2_2gpu"), ms.get("flink_p4_2gpu"));
            out.add(key + "flink_2gpu_over_1gpu=" + format(best1 / best2));
        }
        out.add(key + "batches=" + o.batches());
        out.add(key + "floats=" + o.floats());
        out.add(key + "fmas_per_element=" + (long) work * SpinLoad.FMAS_PER_PASS);
        out.add(key + "lanes=" + o.lanes());
        out.add(key + "runs=" + o.runs());
    }

    /** The ways, pipeline first; those over two devices only where there are two. */
    static List<Way> ways(int devices) {
        List<Way> ways = new ArrayList<>();
        ways.add(new Way("pipeline_1gpu", "pipeline", 1, 0));
        if (devices > 1) {
            ways.add(new Way("pipeline_2gpu", "pipeline", 2, 0));
        }
        for (int p : new int[] {1, 2, 4}) {
            ways.add(new Way("flink_p" + p + "_1gpu", "flink p" + p, 1, p));
        }
        ways.add(new Way("flink_p1_immutable_1gpu", "flink p1 immutable", 1, 1, true));
        if (devices > 1) {
            for (int p : new int[] {2, 4}) { // at parallelism 1 the one subtask has one device
                ways.add(new Way("flink_p" + p + "_2gpu", "flink p" + p, 2, p));
            }
        }
        return ways;
    }

    /** Pairs {numerator way, denominator way} of the throughput ratios printed. */
    private static List<String[]> ratios(int devices) {
        List<String[]> r = new ArrayList<>();
        for (int p : new int[] {1, 2, 4}) {
            r.add(new String[] {"flink_p" + p + "_1gpu", "pipeline_1gpu"});
        }
        r.add(new String[] {"flink_p1_immutable_1gpu", "pipeline_1gpu"});
        if (devices > 1) {
            r.add(new String[] {"pipeline_2gpu", "pipeline_1gpu"});
            for (int p : new int[] {2, 4}) {
                r.add(new String[] {"flink_p" + p + "_2gpu", "pipeline_2gpu"});
                r.add(new String[] {"flink_p" + p + "_2gpu", "flink_p" + p + "_1gpu"});
            }
        }
        return r;
    }

    private static Timing runOnce(Way w, Options o, int work, List<float[]> pool,
            Map<Way, GpuPipeline<float[], float[]>> pipelines, MiniCluster flink) throws Exception {
        return w.flink() ? runJob(flink, o, work, w) : runPipeline(pipelines.get(w), o, work, pool);
    }

    // ---------------------------------------------------------------- the plain pipeline

    private static GpuPipeline<float[], float[]> pipeline(List<DeviceContext> contexts, Options o, int work) {
        return GpuPipeline.builder(contexts).lanes(o.lanes()).chunkElements(o.floats(), DType.F32).inPlace().kernel(SpinLoad.SPIN)
                .stage((lane, in, out) -> SpinLoad.spin(lane.stream(), lane.function(SpinLoad.SPIN), in, in, lane.elements(), work))
                .build(Chunks.floats());
    }

    private static Timing runPipeline(GpuPipeline<float[], float[]> p, Options o, int work, List<float[]> pool) {
        List<float[]> batches = new ArrayList<>(o.batches());
        for (int i = 0; i < o.batches(); i++) {
            batches.add(pool.get(i % SpinLoad.POOL));
        }
        float[] expected = SpinLoad.expected(work);
        LongAdder count = new LongAdder();
        LongAdder indexes = new LongAdder();
        long t0 = System.nanoTime();
        p.processUnordered(Flux.fromIterable(batches)).doOnNext(r -> {
            indexes.add(check(r, expected));
            count.increment();
        }).blockLast(Duration.ofMinutes(10));
        double ms = (System.nanoTime() - t0) / 1e6;
        checkTotals("pipeline", o.batches(), count.sum(), indexes.sum());
        return new Timing(ms, ms);
    }

    // ---------------------------------------------------------------- the Flink job

    private static Timing runJob(MiniCluster flink, Options o, int work, Way w) throws Exception {
        int devices = w.devices();
        int parallelism = w.parallelism();
        // Flink copies each element through its type's serializer as the async operator takes it (object reuse on), a
        // 4 MiB copy on the subtask's thread for a float[]; arrays declared immutable are handed on as they are.
        TypeInformation<float[]> arrays = w.immutable()
                ? ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                : PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        env.setParallelism(parallelism);
        env.getConfig().enableObjectReuse(); // chained operators hand the arrays on, as the pipeline's Flux does

        DataStream<float[]> batches = env.fromSequence(0, o.batches() - 1)
                .map(new Batches(o.floats())).returns(arrays);
        DeviceAssignment assignment = devices == 1 ? DeviceAssignment.fixed(0) : (subtask, present) -> subtask % 2;
        SluiceAsyncFunction<float[], float[]> gpu = new SluiceAsyncFunction<>(new SpinStage(work), o.lanes(), assignment,
                o.api().id());
        AsyncDataStream.unorderedWait(batches, gpu, 10, TimeUnit.MINUTES, gpu.lanes())
                .returns(arrays)
                .process(new CheckResults(work)).name("check")
                .sinkTo(new DiscardingSink<>());

        long t0 = System.nanoTime();
        JobExecutionResult done = flink.executeJobBlocking(env.getStreamGraph().getJobGraph());
        double jobMs = (System.nanoTime() - t0) / 1e6;
        long first = done.getAccumulatorResult(Batches.FIRST);
        long last = done.getAccumulatorResult(CheckResults.LAST);
        checkTotals("flink p" + parallelism + " over " + devices + " device(s)", o.batches(),
                done.<Long>getAccumulatorResult(CheckResults.COUNT), done.<Long>getAccumulatorResult(CheckResults.INDEXES));
        return new Timing((last - first) / 1e6, jobMs);
    }

    /** Batch number {@code i} to the subtask's array {@code i % SpinLoad.POOL}; notes when the first batch left the source. */
    static final class Batches extends RichMapFunction<Long, float[]> {
        @Serial
        private static final long serialVersionUID = 1L;
        static final String FIRST = "first batch, ns";
        private final int floats;
        private final LongMinimum first = new LongMinimum();
        private transient List<float[]> pool;
        private transient boolean started;

        Batches(int floats) {
            this.floats = floats;
        }

        @Override
        public void open(OpenContext openContext) {
            getRuntimeContext().addAccumulator(FIRST, first);
            pool = pool(floats); // each subtask its own, filled before the clock starts
        }

        @Override
        public float[] map(Long i) {
            if (!started) {
                started = true;
                first.add(System.nanoTime()); // one JVM: the subtasks' clocks are one clock
            }
            return pool.get((int) (i % SpinLoad.POOL));
        }
    }

    /** Checks each result as the pipeline's are checked; counts them and notes when the last one came. */
    static final class CheckResults extends ProcessFunction<float[], Void> {
        @Serial
        private static final long serialVersionUID = 1L;
        static final String COUNT = "results";
        static final String INDEXES = "batch indexes";
        static final String LAST = "last result, ns";
        private final int work;
        private final LongCounter count = new LongCounter();
        private final LongCounter indexes = new LongCounter();
        private final LongMaximum last = new LongMaximum();
        private transient float[] expected;

        CheckResults(int work) {
            this.work = work;
        }

        @Override
        public void open(OpenContext openContext) {
            getRuntimeContext().addAccumulator(COUNT, count);
            getRuntimeContext().addAccumulator(INDEXES, indexes);
            getRuntimeContext().addAccumulator(LAST, last);
            expected = SpinLoad.expected(work);
        }

        @Override
        public void processElement(float[] r, Context ctx, Collector<Void> out) {
            indexes.add(check(r, expected));
            count.add(1);
            last.add(System.nanoTime());
        }
    }

    /**
     * The Flink side's stage, doing what the pipeline's lanes do: the array into the lane's pinned staging on the lanes'
     * copy threads (split over several for a large batch), then, from there, uploaded, the kernel {@code work} times in
     * place and downloaded into the staging as one repeated work of the lane (a replayed graph), and copied out into a
     * new array on the copy threads: neither the task thread nor the device's completion thread copies a large batch.
     */
    static final class SpinStage implements GpuStage<float[], float[]> {
        @Serial
        private static final long serialVersionUID = 1L;
        private final int work;

        SpinStage(int work) {
            this.work = work;
        }

        @Override
        public List<Kernel> kernels() {
            return List.of(SpinLoad.SPIN);
        }

        @Override
        public CompletableFuture<float[]> apply(GpuLane lane, float[] in) {
            int n = in.length;
            HostBuffer staging = lane.staging(0, DType.F32, n);
            DeviceBuffer buffer = lane.deviceBuffer(0, DType.F32, n);
            DeviceFunction f = lane.function(SpinLoad.SPIN);
            // The result array is made off the task thread, while the device works: zeroing 4 MiB takes about as long
            // as filling it, and the task thread has Flink's own copy of every element to make.
            CompletableFuture<float[]> out = CompletableFuture.supplyAsync(() -> new float[n]);
            return DeviceLane.copy(MemorySegment.ofArray(in), staging.segment())
                    .thenCompose(v -> lane.repeat(s -> {
                        s.enqueueCopy(staging, buffer);
                        SpinLoad.spin(s, f, buffer, buffer, n, work);
                        return s.enqueueCopy(buffer, staging);
                    }))
                    .thenCombine(out, (v, o) -> o)
                    .thenCompose(o -> DeviceLane.copy(staging.segment(), MemorySegment.ofArray(o)).thenApply(v -> o));
        }
    }

    // ---------------------------------------------------------------- the load, shared


    /** {@link SpinLoad#POOL} arrays of {@code floats}, array {@code k} holding {@code k + 1} everywhere. */
    static List<float[]> pool(int floats) {
        List<float[]> pool = new ArrayList<>(SpinLoad.POOL);
        for (int k = 0; k < SpinLoad.POOL; k++) {
            float[] a = new float[floats];
            Arrays.fill(a, k + 1);
            pool.add(a);
        }
        return pool;
    }


    /** The pool index {@code r} came from, by its first and last value; fails if neither matches one. */
    static int check(float[] r, float[] expected) {
        for (int k = 0; k < expected.length; k++) {
            if (r[0] == expected[k] && r[r.length - 1] == expected[k]) {
                return k;
            }
        }
        throw new IllegalStateException("a result of " + r.length + " floats begins with " + r[0] + " and ends with "
                + r[r.length - 1] + "; expected one of " + Arrays.toString(expected) + " at both ends");
    }

    /** Every batch came back once: the count, and the pool indexes summed as the batch numbers give them. */
    private static void checkTotals(String way, int batches, long count, long indexes) {
        long expected = 0;
        for (int i = 0; i < batches; i++) {
            expected += i % SpinLoad.POOL;
        }
        if (count != batches || indexes != expected) {
            throw new IllegalStateException(way + ": " + count + " results of " + batches + " batches, their pool indexes"
                    + " summing to " + indexes + " rather than " + expected);
        }
    }

    /**
     * One batch alone on {@code context}: milliseconds of its upload and download from pinned memory, and of its
     * {@code work} launches; medians of 5 after a warm-up.
     */
    private static double[] probe(DeviceContext context, int floats, int work) {
        try (DeviceBuffer d = context.allocate(DType.F32, floats); HostBuffer h = context.allocateHost(DType.F32, floats);
             DeviceStream s = context.createStream(); DeviceFunction f = context.compile(SpinLoad.SPIN)) {
            double[] copies = new double[6];
            double[] kernels = new double[6];
            for (int r = 0; r < copies.length; r++) {
                long t0 = System.nanoTime();
                s.enqueueCopy(h, d);
                s.enqueueCopy(d, h).join();
                long t1 = System.nanoTime();
                DeviceFuture<Void> last = SpinLoad.spin(s, f, d, d, floats, work);
                if (last != null) {
                    last.join();
                }
                copies[r] = (t1 - t0) / 1e6;
                kernels[r] = (System.nanoTime() - t1) / 1e6;
            }
            return new double[] {median(Arrays.copyOfRange(copies, 1, 6)), median(Arrays.copyOfRange(kernels, 1, 6))};
        }
    }

    // ---------------------------------------------------------------- options

    /** Parses the options (see the class comment); the defaults depend on the backend. */
    static Options options(String[] args) {
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (!List.of("--api", "--batches", "--floats", "--work", "--runs", "--devices", "--lanes").contains(name)) {
                throw new InvalidArgumentException(name, "no such option; the options: --api, --batches, --floats,"
                        + " --work, --runs, --devices, --lanes");
            }
            if (i + 1 == args.length) {
                throw new InvalidArgumentException(name, "needs a value");
            }
            given.put(name, args[++i]);
        }
        if (System.getProperty(SluiceProperties.CPU_DEVICES) == null) {
            // Before any context opens, which reads it; no other backend does.
            System.setProperty(SluiceProperties.CPU_DEVICES, "2");
        }
        Api api;
        if (given.containsKey("--api")) {
            api = Api.of(given.get("--api"));
        } else {
            try (DeviceContext probe = DeviceContext.open()) {
                api = probe.api();
            }
        }
        boolean gpu = api != Api.CPU;
        int present = DeviceContext.deviceCount(api);
        int batches = positive(given, "--batches", gpu ? 256 : 32, Integer.MAX_VALUE);
        int floats = positive(given, "--floats", gpu ? 1 << 20 : 4096, Integer.MAX_VALUE / Float.BYTES);
        List<Integer> work = new ArrayList<>();
        for (String w : given.getOrDefault("--work", gpu ? "1,128" : "1").split(",")) {
            work.add(number("--work", w.strip(), 0, 100_000));
        }
        int runs = positive(given, "--runs", gpu ? 5 : 3, 1000);
        int devices = positive(given, "--devices", Math.min(2, present), 2);
        if (devices > present) {
            throw new InvalidArgumentException("--devices", devices + ", but " + api.id() + " has " + present
                    + " device(s) here");
        }
        int lanes = positive(given, "--lanes", gpu ? 4 : 2, 64);
        return new Options(api, batches, floats, List.copyOf(work), runs, devices, lanes);
    }

    private static int positive(Map<String, String> given, String name, int fallback, int max) {
        return given.containsKey(name) ? number(name, given.get(name), 1, max) : fallback;
    }

    private static int number(String name, String value, int min, int max) {
        int v;
        try {
            v = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new InvalidArgumentException(name, "'" + value + "' is not a whole number");
        }
        if (v < min || v > max) {
            throw new InvalidArgumentException(name, "value " + v + " is outside " + min + " to " + max);
        }
        return v;
    }

    /** Bytes as KiB or MiB, for the table's heading. */
    private static String size(long bytes) {
        return bytes >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20))
                : String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }

    private static String format(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
