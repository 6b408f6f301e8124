package dev.sluice.flink;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceFigure;
import dev.sluice.HostData;
import dev.sluice.testing.ExpectWarning;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The metrics of SluiceAsyncFunction's subtasks, read through Flink's {@link InMemoryReporter} (which keeps a job's
 * metrics after it ends) from an embedded cluster of one TaskManager with 4 slots on {@link TestBackend}'s devices (two
 * simulated CPU devices by default).
 */
class SluiceAsyncFunctionMetricsTest {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());

    static final CountDownLatch LATE_RESULT = new CountDownLatch(1);

    @AfterEach
    void everyContextClosed() throws InterruptedException {
        TestJobs.assertEveryContextClosed();
    }

    /** {@code count} batches of {@code size} floats, the first element of batch b being b. */
    private static DataStream<float[]> batches(StreamExecutionEnvironment env, int count, int size) {
        List<float[]> data = new ArrayList<>();
        for (int b = 0; b < count; b++) {
            float[] batch = new float[size];
            batch[0] = b;
            data.add(batch);
        }
        return env.fromData(data, PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO).setParallelism(1);
    }

    /** The metrics named {@code name} of the job, by identifier (one per subtask, or per subtask and direction). */
    private static Map<String, Metric> metrics(JobID job, String name) {
        return REPORTER.findMetrics(job, "\\." + name.replace(".", "\\.") + "$");
    }

    private static long sum(JobID job, String name) {
        return metrics(job, name).values().stream().mapToLong(m -> ((Counter) m).getCount()).sum();
    }

    private static long bytes(JobID job, String direction) {
        return metrics(job, "direction." + direction + "." + StageMetrics.COPY_BYTES).values().stream()
                .mapToLong(m -> ((Counter) m).getCount()).sum();
    }

    private static JobID runToTheEnd(StreamExecutionEnvironment env, boolean expectFailure) throws Exception {
        JobClient job = env.executeAsync();
        if (expectFailure) {
            assertThrows(ExecutionException.class, () -> job.getJobExecutionResult().get(30, TimeUnit.SECONDS));
        } else {
            job.getJobExecutionResult().get(30, TimeUnit.SECONDS);
        }
        return job.getJobID();
    }

    @Test
    void aJobsBytesElementsAndLatenciesAddUpOverItsSubtasks() throws Exception {
        int elements = 24;
        int floats = 64;
        StreamExecutionEnvironment env = TestJobs.environment(4);
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.<float[], float[]>kernel(
                        () -> SluiceAsyncFunctionTest.SQUARE)
                .input(DType.F32, HostData::of)
                .output(DType.F32, (in, result, n) -> result.toArray(JAVA_FLOAT))
                .lanes(2)
                .build();
        AsyncDataStream.unorderedWait(batches(env, elements, floats), f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .sinkTo(new DiscardingSink<>());
        JobID job = runToTheEnd(env, false);

        // Subtasks share each device's context (two on each of two devices, four on one): a listener that counted the
        // context's copies rather than its own lanes' would count every byte more than once.
        long each = (long) elements * floats * Float.BYTES;
        assertEquals(each, bytes(job, "upload"), "bytes uploaded, all subtasks");
        assertEquals(each, bytes(job, "download"), "bytes downloaded, all subtasks");
        assertEquals(elements, sum(job, StageMetrics.COMPLETED));
        assertEquals(0, sum(job, StageMetrics.FAILED));

        Map<String, Metric> latencies = metrics(job, StageMetrics.LATENCY);
        assertEquals(4, latencies.size(), "one histogram per subtask: " + latencies.keySet());
        assertEquals(elements, latencies.values().stream().mapToLong(m -> ((Histogram) m).getCount()).sum());
        for (Metric m : latencies.values()) {
            Histogram h = (Histogram) m;
            assertEquals(h.getCount(), h.getStatistics().size(), "every element of a short job is in the window");
        }
        TreeSet<String> devices = new TreeSet<>();
        for (Map.Entry<String, Metric> e : metrics(job, StageMetrics.IN_FLIGHT).entrySet()) {
            assertEquals(0, ((Gauge<?>) e.getValue()).getValue(), e.getKey());
            devices.add(e.getKey().replaceAll(".*\\.device\\.([^.]+)\\..*", "$1"));
        }
        assertEquals(TestBackend.devicesOf(4), List.copyOf(devices), "the device tag of the 4 subtasks");

        // The shared contexts' gauges: every subtask shows its context's figures, the same in each subtask of a device.
        Map<String, Long> completedByDevice = new TreeMap<>();
        Map<String, Metric> contextCompleted = metrics(job, DeviceFigure.OPERATIONS_COMPLETED.groupName());
        assertEquals(4, contextCompleted.size(), "one gauge per subtask: " + contextCompleted.keySet());
        for (Map.Entry<String, Metric> e : contextCompleted.entrySet()) {
            long value = gauge(e.getValue());
            Long before = completedByDevice.putIfAbsent(device(e.getKey()), value);
            assertTrue(before == null || before == value, "subtasks of one device show one value: " + contextCompleted);
        }
        assertEquals(TestBackend.devicesOf(4), List.copyOf(completedByDevice.keySet()));
        long operations = completedByDevice.values().stream().mapToLong(Long::longValue).sum();
        assertTrue(operations >= 3L * elements, "an upload, a launch and a download per element: " + operations);
        for (String name : List.of(DeviceFigure.OPERATIONS_FAILED.groupName(), DeviceFigure.OPERATIONS_IN_FLIGHT.groupName(),
                DeviceFigure.FAULTS.groupName(), DeviceFigure.MEMORY_ALLOCATED.groupName())) {
            Map<String, Metric> gauges = metrics(job, name);
            assertEquals(4, gauges.size(), name);
            gauges.values().forEach(m -> assertEquals(0, gauge(m), name + " once the job has ended"));
        }
        // Read after the job: the contexts have closed, and no longer ask the device.
        metrics(job, DeviceFigure.MEMORY_DEVICE_USED.groupName()).values().forEach(m ->
                assertTrue(Double.isNaN(((Number) ((Gauge<?>) m).getValue()).doubleValue())));
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void aFaultShowsInTheContextsGauges() throws Exception {
        TestBackend.assumeCpuSimulator("the fault is a kernel that throws on the simulator");
        StreamExecutionEnvironment env = TestJobs.environment(1);
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> SluiceAsyncFunctionTest.square(
                lane, in, SluiceAsyncFunctionTest.SQUARE_OR_FAULT_AT_FIVE), 2);
        AsyncDataStream.orderedWait(batches(env, 8, 4), f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .sinkTo(new DiscardingSink<>());
        JobID job = runToTheEnd(env, true);
        assertEquals(1, gauge(metrics(job, DeviceFigure.FAULTS.groupName()).values().iterator().next()));
        assertTrue(gauge(metrics(job, DeviceFigure.OPERATIONS_FAILED.groupName()).values().iterator().next()) >= 1,
                "the faulting launch, and what its stream held behind it");
    }

    /** A gauge's value, a whole number. */
    private static long gauge(Metric m) {
        return ((Number) ((Gauge<?>) m).getValue()).longValue();
    }

    /** The device tag in a metric's identifier. */
    private static String device(String identifier) {
        return identifier.replaceAll(".*\\.device\\.([^.]+)\\..*", "$1");
    }

    @Test
    void aStageThatThrowsCountsOneFailedElement() throws Exception {
        StreamExecutionEnvironment env = TestJobs.environment(1);
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> {
            if (in[0] == 5f) {
                throw new IllegalStateException("no batch five");
            }
            return SluiceAsyncFunctionTest.square(lane, in);
        }, 2);
        AsyncDataStream.orderedWait(batches(env, 8, 4), f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .sinkTo(new DiscardingSink<>());
        JobID job = runToTheEnd(env, true);
        assertEquals(1, sum(job, StageMetrics.FAILED));
        long completed = sum(job, StageMetrics.COMPLETED);
        assertTrue(completed >= 5 && completed <= 7, "batches 0 to 4 completed before batch 5 failed: " + completed);
    }

    @Test
    void aTimedOutElementCountsAsFailedOnceAndNotAsCompletedWhenItsWorkEnds() throws Exception {
        StreamExecutionEnvironment env = TestJobs.environment(1);
        // Batch 0's result comes 600 ms late, after its 150 ms timeout has failed it (and the job).
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> {
            CompletableFuture<float[]> r = SluiceAsyncFunctionTest.square(lane, in);
            if (in[0] != 0f) {
                return r;
            }
            return r.thenApplyAsync(v -> {
                LATE_RESULT.countDown();
                return v;
            }, CompletableFuture.delayedExecutor(600, TimeUnit.MILLISECONDS));
        }, 2);
        AsyncDataStream.unorderedWait(batches(env, 3, 4), f, 150, TimeUnit.MILLISECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .sinkTo(new DiscardingSink<>());
        JobID job = runToTheEnd(env, true);
        assertTrue(LATE_RESULT.await(10, TimeUnit.SECONDS));
        Thread.sleep(200); // the function's own completion of batch 0 runs just after the stage's future completes
        assertEquals(1, sum(job, StageMetrics.FAILED));
        assertEquals(2, sum(job, StageMetrics.COMPLETED), "batches 1 and 2; batch 0 was counted as failed");
    }
}
