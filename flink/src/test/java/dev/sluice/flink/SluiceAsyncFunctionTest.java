package dev.sluice.flink;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceException;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.testing.ExpectWarning;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SluiceAsyncFunction in an embedded Flink cluster of one TaskManager with 4 slots, on the backend of
 * {@link TestBackend}: by default two simulated CPU devices ({@code sluice.cpu.devices=2}, set by the module's Surefire
 * configuration), on a GPU host its devices. The jobs have no restart strategy: an element's failure fails the job, and
 * the tests read the failure's message from the job's exception. The tests of sticky faults fault a context through a
 * kernel that throws on the simulator, and skip on other backends.
 */
class SluiceAsyncFunctionTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());

    /** out[i] = in[i] * in[i] for i below n. */
    static final Kernel SQUARE = TestJobs.squareKernel("square");

    /**
     * Like {@link #SQUARE}, but a thread that reads 5.0 faults the context, as an illegal address would: on the CPU
     * simulator only (a GPU's sticky fault would leave every context of this JVM unusable for the tests after it).
     */
    static final Kernel SQUARE_OR_FAULT_AT_FIVE = Kernel.named("square_or_fault_at_five")
            .param(KernelParam.pointer("in", DType.F32))
            .param(KernelParam.pointer("out", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(2)) {
                    float v = t.pointer(0).getAtIndex(JAVA_FLOAT, i);
                    if (v == 5f) {
                        throw new IllegalStateException("illegal address at 5.0");
                    }
                    t.pointer(1).setAtIndex(JAVA_FLOAT, i, v * v);
                }
            })
            .build();

    /** The device of a job of parallelism 1 (subtask 0's). */
    static final String FIRST_DEVICE = TestBackend.device(0);

    static final Set<String> DEVICES = ConcurrentHashMap.newKeySet();
    static final AtomicInteger STARTED = new AtomicInteger();

    @AfterEach
    void everyContextClosed() throws InterruptedException {
        TestJobs.assertEveryContextClosed();
    }

    /** Batches {@code [b, b + 1/8, ...]} of {@code size} elements, b = 0 to count - 1. */
    private static DataStream<float[]> batches(StreamExecutionEnvironment env, int count, int size) {
        List<float[]> data = new ArrayList<>();
        for (int b = 0; b < count; b++) {
            float[] batch = new float[size];
            for (int i = 0; i < size; i++) {
                batch[i] = b + i / 8f;
            }
            data.add(batch);
        }
        return env.fromData(data, PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO).setParallelism(1);
    }

    private static List<float[]> collect(DataStream<float[]> results) throws Exception {
        List<float[]> out = new ArrayList<>();
        try (CloseableIterator<float[]> it = results.executeAndCollect()) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    private static void assertSquares(float[] result, int size) {
        assertEquals(size, result.length);
        float b = (float) Math.floor(Math.sqrt(result[0]) + 1e-3);
        for (int i = 0; i < size; i++) {
            float v = b + i / 8f;
            assertEquals(v * v, result[i], 1e-3f * Math.max(1f, v * v), "element " + i + " of batch " + b);
        }
    }

    /** The stage of {@link #SQUARE} written against the lane directly: upload, launch, download into staging. */
    static CompletableFuture<float[]> square(GpuLane lane, float[] batch) {
        return square(lane, batch, SQUARE);
    }

    /** The stage of {@code kernel}, {@code (in, out, long n)}. */
    static CompletableFuture<float[]> square(GpuLane lane, float[] batch, Kernel kernel) {
        DeviceStream s = lane.stream();
        int n = batch.length;
        DeviceBuffer in = lane.deviceBuffer(0, DType.F32, n);
        DeviceBuffer out = lane.deviceBuffer(1, DType.F32, n);
        HostBuffer staging = lane.staging(0, DType.F32, n);
        s.enqueueCopy(HostData.of(batch), in);
        s.enqueueLaunch(lane.function(kernel), LaunchConfig.forElements(n), in, out, (long) n);
        return s.enqueueCopy(out, staging).thenApply(v -> staging.segment().toArray(JAVA_FLOAT));
    }

    private static SluiceAsyncFunction<float[], float[]> squareBuilt() {
        return SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE)
                .input(DType.F32, HostData::of)
                .output(DType.F32, (in, result, n) -> result.toArray(JAVA_FLOAT))
                .lanes(2)
                .build();
    }

    @Test
    void resultsAreCorrectAndEveryDeviceIsUsed() throws Exception {
        DEVICES.clear();
        StreamExecutionEnvironment env = TestJobs.environment(4);
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> {
            DEVICES.add(lane.deviceName());
            return square(lane, in);
        }, 2);
        List<float[]> out = collect(AsyncDataStream.unorderedWait(batches(env, 40, 33), f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO));
        assertEquals(40, out.size());
        out.forEach(r -> assertSquares(r, 33));
        assertEquals(Set.copyOf(TestBackend.devicesOf(4)), DEVICES, "4 subtasks round robin over the devices");
    }

    static final Set<Integer> LANES_USED = ConcurrentHashMap.newKeySet();

    @Test
    void whatTheBuilderLeavesUnsetComesFromTheJobsParameters() throws Exception {
        DEVICES.clear();
        LANES_USED.clear();
        StreamExecutionEnvironment env = TestJobs.environment(2);
        Configuration parameters = new Configuration();
        parameters.set(SluiceOptions.LANES, 1);
        parameters.set(SluiceOptions.DEVICE_ASSIGNMENT, "fixed:1");
        env.getConfig().setGlobalJobParameters(parameters);
        // Each element holds its lane 30 ms past its device work: with more than one lane, the next elements (the
        // operator's capacity is 4) would take another.
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> {
            DEVICES.add(lane.deviceName());
            LANES_USED.add(lane.index());
            return square(lane, in).thenApplyAsync(r -> r,
                    CompletableFuture.delayedExecutor(30, TimeUnit.MILLISECONDS));
        });
        List<float[]> out = collect(AsyncDataStream.unorderedWait(batches(env, 8, 5), f, 30, TimeUnit.SECONDS, 4)
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO));
        assertEquals(8, out.size());
        out.forEach(r -> assertSquares(r, 5));
        assertEquals(Set.of(TestBackend.device(1)), DEVICES, "sluice.device-assignment fixed:1, for both subtasks");
        assertEquals(Set.of(0), LANES_USED, "sluice.lanes 1");
    }

    @Test
    void orderedWaitKeepsTheOrderOfTheBuiltStage() throws Exception {
        StreamExecutionEnvironment env = TestJobs.environment(1);
        SluiceAsyncFunction<float[], float[]> f = squareBuilt();
        List<float[]> out = collect(AsyncDataStream.orderedWait(batches(env, 30, 17), f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO));
        assertEquals(30, out.size());
        for (int b = 0; b < out.size(); b++) {
            assertSquares(out.get(b), 17);
            assertEquals((float) b * b, out.get(b)[0], 1e-3f, "batch " + b + " in its place");
        }
    }

    static final Set<String> READ_THREADS = ConcurrentHashMap.newKeySet();

    @Test
    void largeBatchesGivenAsBytesAreStagedAndReadOffTheTaskAndCompletionThreads() throws Exception {
        READ_THREADS.clear();
        StreamExecutionEnvironment env = TestJobs.environment(1);
        int size = 300_000; // 1.2 MiB: over the threshold of the lanes' parallel copies
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE)
                .inputBytes(DType.F32, MemorySegment::ofArray)
                .output(DType.F32, (in, result, n) -> {
                    READ_THREADS.add(Thread.currentThread().getName());
                    return result.toArray(JAVA_FLOAT);
                })
                .lanes(2)
                .build();
        List<float[]> out = collect(AsyncDataStream.orderedWait(batches(env, 6, size), f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO));
        assertEquals(6, out.size());
        for (int b = 0; b < out.size(); b++) {
            assertSquares(out.get(b), size);
            assertEquals((float) b * b, out.get(b)[0], 1e-3f, "batch " + b + " in its place");
        }
        assertTrue(!READ_THREADS.isEmpty() && READ_THREADS.stream().allMatch(t -> t.startsWith("sluice-host-copy-")),
                () -> "results read on " + READ_THREADS);
    }

    @Test
    void unorderedWaitLosesNothingWhenResultsFinishOutOfOrder() throws Exception {
        StreamExecutionEnvironment env = TestJobs.environment(2);
        // Even batches finish 15 ms late, so that later batches overtake them.
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> square(lane, in)
                .thenApplyAsync(r -> r, CompletableFuture.delayedExecutor(((int) in[0]) % 2 == 0 ? 15 : 0,
                        TimeUnit.MILLISECONDS)), 3);
        List<float[]> out = collect(AsyncDataStream.unorderedWait(batches(env, 30, 5), f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO));
        assertEquals(30, out.size());
        boolean[] seen = new boolean[30];
        for (float[] r : out) {
            assertSquares(r, 5);
            int b = Math.round((float) Math.sqrt(r[0]));
            assertTrue(!seen[b], "batch " + b + " twice");
            seen[b] = true;
        }
    }

    /**
     * Runs batches {@code [b, b + 1/8, b + 2/8, b + 3/8]} through {@code f}, expecting it to fail early; the failure's
     * messages, causes included. The source has far more batches than the job gets to: a source that ran out first
     * would ask its coordinator for another split, and the task's failure could then reach the job as a lost event.
     */
    private static String failedJob(SluiceAsyncFunction<float[], float[]> f) {
        return failedJob(f, 30_000);
    }

    /** {@link #failedJob(SluiceAsyncFunction)} with elements timing out after {@code timeoutMillis}. */
    private static String failedJob(SluiceAsyncFunction<float[], float[]> f, long timeoutMillis) {
        return failedJob(f, timeoutMillis, f.lanes());
    }

    /** {@link #failedJob(SluiceAsyncFunction, long)} with the operator's capacity {@code capacity}. */
    private static String failedJob(SluiceAsyncFunction<float[], float[]> f, long timeoutMillis, int capacity) {
        StreamExecutionEnvironment env = TestJobs.environment(1);
        DataStream<float[]> batches = env.fromSequence(0, 99_999).setParallelism(1)
                .map(b -> new float[] {b, b + 1 / 8f, b + 2 / 8f, b + 3 / 8f})
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO);
        AsyncDataStream.orderedWait(batches, f, timeoutMillis, TimeUnit.MILLISECONDS, capacity)
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .sinkTo(new DiscardingSink<>());
        Exception e = assertThrows(Exception.class, env::execute);
        StringBuilder messages = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.append(t).append('\n');
        }
        return messages.toString();
    }

    // The failing jobs' source gives batch b as the subtask's element b: the messages name it by that number.

    @Test
    void aStageThatThrowsFailsItsElementWithTheElementAndDevice() throws Exception {
        String why = failedJob(SluiceAsyncFunction.of((lane, in) -> {
            if (in[0] == 5f) {
                throw new IllegalStateException("no batch five");
            }
            return square(lane, in);
        }, 2));
        assertTrue(why.contains("GpuStageException: sluice-flink: the stage failed on element 5 of subtask 0 (float[4])"
                + " on device " + FIRST_DEVICE + ", lane "), why);
        assertTrue(why.contains("no batch five"), why);
    }

    @Test
    void aStageThatReturnsNullFailsItsElement() throws Exception {
        String why = failedJob(SluiceAsyncFunction.of((lane, in) -> in[0] == 3f ? null : square(lane, in), 2));
        assertTrue(why.contains("the stage returned null instead of a future for element 3 of subtask 0 (float[4]) on"
                + " device " + FIRST_DEVICE + ", lane "), why);
    }

    @Test
    void aFutureThatCompletesWithNullFailsItsElement() throws Exception {
        String why = failedJob(SluiceAsyncFunction.of(
                (lane, in) -> in[0] == 2f ? CompletableFuture.completedFuture(null) : square(lane, in), 2));
        assertTrue(why.contains("the stage's future completed with null for element 2 of subtask 0 (float[4]) on device "
                + FIRST_DEVICE + ", lane "), why);
    }

    @Test
    void aFutureThatFailsNamesItsElement() throws Exception {
        String why = failedJob(SluiceAsyncFunction.of((lane, in) -> in[0] == 4f
                ? CompletableFuture.failedFuture(new IllegalStateException("download lost"))
                : square(lane, in), 2));
        assertTrue(why.contains("GpuStageException: sluice-flink: element 4 of subtask 0 (float[4]) failed on device "
                + FIRST_DEVICE + ", lane "), why);
        assertTrue(why.contains("download lost"), why);
    }

    @Test
    void badInputOfTheBuiltStageNamesTheArgumentAndTheElement() throws Exception {
        // Byte data of 6 bytes is no whole number of F32 elements.
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE)
                .input(DType.F32, in -> in[0] == 1f ? HostData.of(new byte[6]) : HostData.of(in))
                .output(DType.F32, (in, result, n) -> result.toArray(JAVA_FLOAT))
                .build();
        String why = failedJob(f);
        assertTrue(why.contains("the stage failed on element 1 of subtask 0 (float[4]) on device " + FIRST_DEVICE), why);
        assertTrue(why.contains("input: 6 bytes, not a positive whole number of F32 elements of 4 bytes"), why);
    }

    @Test
    void anElementIsNamedByItsOwnSubtasksIndexAndCount() {
        // Parallelism 2, every batch sent to subtask 1: batch 6 is its element 6; subtask 0 is given nothing.
        StreamExecutionEnvironment env = TestJobs.environment(2);
        DataStream<float[]> batches = env.fromSequence(0, 99_999).setParallelism(1)
                .map(b -> new float[] {b, b + 1 / 8f}).returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .setParallelism(1)
                .partitionCustom((Long key, int partitions) -> 1, in -> (long) in[0]);
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> {
            if (in[0] == 6f) {
                throw new IllegalStateException("no batch six");
            }
            return square(lane, in);
        }, 2);
        AsyncDataStream.orderedWait(batches, f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .sinkTo(new DiscardingSink<>());
        String why = ExceptionUtils.stringifyException(assertThrows(Exception.class, env::execute));
        assertTrue(why.contains("the stage failed on element 6 of subtask 1 (float[2]) on device "), why);
    }

    static final List<StickyDeviceFaultError> FATAL_ERRORS = new CopyOnWriteArrayList<>();
    static final List<String> FATAL_ERROR_THREADS = new CopyOnWriteArrayList<>();

    /**
     * {@code f} with the fatal error of a sticky fault recorded, with the thread that took it, and an ordinary exception
     * thrown in its place: the real error would halt this JVM.
     */
    private static SluiceAsyncFunction<float[], float[]> recordingFatalErrors(SluiceAsyncFunction<float[], float[]> f) {
        FATAL_ERRORS.clear();
        FATAL_ERROR_THREADS.clear();
        return f.fatalErrorSignal(error -> {
            FATAL_ERRORS.add(error);
            FATAL_ERROR_THREADS.add(Thread.currentThread().getName());
            return new IllegalStateException("fatal error signalled: " + error.getMessage());
        });
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    @ExpectWarning(logger = "dev.sluice.flink", containing = "a sticky device fault on device cpu:0")
    void aStickyFaultIsFatalToTheTaskManagerWhenSwitchedOn() {
        TestBackend.assumeCpuSimulator("the sticky fault is a kernel that throws on the simulator");
        String why = failedJob(recordingFatalErrors(SluiceAsyncFunction.<float[], float[]>of(
                (lane, in) -> square(lane, in, SQUARE_OR_FAULT_AT_FIVE), 2).fatalOnStickyFault(true)));
        assertTrue(why.contains("fatal error signalled: sluice-flink: a sticky device fault on device cpu:0, lane "), why);
        assertTrue(!FATAL_ERRORS.isEmpty(), "the fatal error was signalled");
        StickyDeviceFaultError fatal = FATAL_ERRORS.get(0);
        assertTrue(ExceptionUtils.isJvmFatalError(fatal), "Flink holds it fatal to the JVM, and halts the TaskManager");
        // Batch 5's own fault, or that of a batch after it refused by the faulted context.
        assertTrue(fatal.getMessage().matches("(?s).*, at element \\d+ of subtask 0 \\(float\\[4\\]\\), leaves this"
                + " process's device state unusable: .*"), fatal.getMessage());
        GpuStageException element = assertInstanceOf(GpuStageException.class, fatal.getCause());
        DeviceException sticky = assertInstanceOf(DeviceException.class, element.getCause());
        assertTrue(sticky.isSticky());
        // Flink's Task halts the JVM for a fatal error that its task thread throws, and for no other thread's.
        assertTrue(FATAL_ERROR_THREADS.get(0).contains("async wait operator"),
                "thrown on the task thread, not " + FATAL_ERROR_THREADS.get(0));
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void aStickyFaultFailsOnlyItsElementsOnTheCpuSimulatorByDefault() {
        TestBackend.assumeCpuSimulator("the simulator's own default, with a kernel that throws on it");
        String why = failedJob(recordingFatalErrors(SluiceAsyncFunction.of(
                (lane, in) -> square(lane, in, SQUARE_OR_FAULT_AT_FIVE), 2)));
        // Batch 5's own failure, or that of a batch after it refused by the faulted context: either names the fault.
        assertTrue(why.contains("GpuStageException: sluice-flink: "), why);
        assertTrue(why.contains(" of subtask 0 (float[4])") && why.contains("device " + FIRST_DEVICE), why);
        assertTrue(why.contains("illegal address at 5.0"), why);
        assertEquals(List.of(), FATAL_ERRORS);
    }

    @Test
    void aNonStickyDeviceErrorFailsOnlyItsElementEvenWhereStickyFaultsAreFatal() {
        String why = failedJob(recordingFatalErrors(SluiceAsyncFunction.<float[], float[]>of((lane, in) -> {
            if (in[0] == 5f) {
                throw new DeviceException("launch refused", "TEST_NOT_STICKY", 1, false, null);
            }
            return square(lane, in);
        }, 2).fatalOnStickyFault(true)));
        assertTrue(why.contains("GpuStageException: sluice-flink: the stage failed on element 5 of subtask 0 (float[4])"
                + " on device " + FIRST_DEVICE + ", lane "), why);
        assertTrue(why.contains("launch refused"), why);
        assertEquals(List.of(), FATAL_ERRORS);
    }

    @Test
    void stickyFaultsAreFatalByDefaultOnEveryBackendButTheCpuSimulator() {
        assertTrue(SluiceAsyncFunction.stickyFaultIsFatalByDefault("cuda"));
        assertTrue(SluiceAsyncFunction.stickyFaultIsFatalByDefault("hip"));
        assertTrue(!SluiceAsyncFunction.stickyFaultIsFatalByDefault("cpu"));
    }

    @Test
    void aTimeoutNamesDeviceStreamAndInFlight() {
        String why = failedJob(SluiceAsyncFunction.of(
                (lane, in) -> in[0] == 0f ? new CompletableFuture<>() : square(lane, in), 2), 200);
        assertTrue(why.contains("TimeoutException: sluice-flink: element 0 of subtask 0 (float[4]) timed out on device "
                + FIRST_DEVICE
                + ", stream DeviceStream[" + FIRST_DEVICE + " #"), why);
        // Batch 1 has finished (held behind batch 0 by orderedWait), batch 2 waits for capacity: one on a lane.
        assertTrue(why.contains(", with 1 element(s) in flight over 2 lane(s)"), why);
    }

    static volatile CountDownLatch JOB_ENDED = new CountDownLatch(1);
    static volatile CountDownLatch LATE_STAGE_RETURNED = new CountDownLatch(1);

    @Test
    void anElementThatGetsALaneAsItsTaskEndsThrowsNothingOnItsThread() throws InterruptedException {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
        try {
            // One lane, capacity 2: batch 1 waits for the lane of batch 0, which fails 100 ms later and fails the task.
            // Batch 1 then starts on the freed lane, on a thread of the function's, and its stage holds that thread
            // (a test's device: stages must not block) until the job has ended, the task's mailbox closed with it.
            // Whether the freed lane reaches batch 1 before the task's close takes the lanes is a race: a run where it
            // does not tests nothing, so the job runs again, up to five times, until one does.
            boolean started = false;
            for (int attempt = 0; attempt < 5 && !started; attempt++) {
                JOB_ENDED = new CountDownLatch(1);
                LATE_STAGE_RETURNED = new CountDownLatch(1);
                String why = failedJob(SluiceAsyncFunction.<float[], float[]>of((lane, in) -> {
                    if (in[0] == 0f) {
                        return CompletableFuture.<float[]>supplyAsync(() -> {
                            throw new IllegalStateException("batch 0 fails late");
                        }, CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
                    }
                    if (in[0] == 1f) {
                        CountDownLatch returned = LATE_STAGE_RETURNED;
                        try {
                            JOB_ENDED.await(30, TimeUnit.SECONDS);
                        } finally {
                            returned.countDown();
                        }
                    }
                    return square(lane, in);
                }, 1), 30_000, 2);
                assertTrue(why.contains("batch 0 fails late"), why);
                JOB_ENDED.countDown();
                started = LATE_STAGE_RETURNED.await(5, TimeUnit.SECONDS);
            }
            assertTrue(started, "in none of five runs did batch 1 start on the freed lane");
            Thread.sleep(200); // its failure, on the same thread, just after
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
        assertEquals(List.of(), uncaught, "the late element's failure threw on its thread");
    }

    @Test
    void cancellingWithElementsInFlightClosesEveryContext() throws Exception {
        STARTED.set(0);
        int hookBefore = SharedContexts.releasedByHook();
        StreamExecutionEnvironment env = TestJobs.environment(4);
        // Each element holds its lane's stream for 50 ms on the device (a host wait the stream runs behind).
        SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.of((lane, in) -> {
            STARTED.incrementAndGet();
            lane.stream().waitFor(CompletableFuture.runAsync(() -> { },
                    CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS)));
            return square(lane, in);
        }, 2);
        DataStream<float[]> endless = env.fromSequence(0, Long.MAX_VALUE).setParallelism(1)
                .map(i -> new float[] {i % 1000, 1f}).returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO);
        AsyncDataStream.unorderedWait(endless, f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (STARTED.get() < 16) {
            if (System.nanoTime() > deadline) {
                fail("only " + STARTED.get() + " elements started");
            }
            Thread.sleep(10);
        }
        assertTrue(SharedContexts.openCount() > 0, "the running job holds its contexts");
        job.cancel().get(30, TimeUnit.SECONDS);
        while (job.getJobStatus().get(30, TimeUnit.SECONDS) != JobStatus.CANCELED) {
            Thread.sleep(10);
        }
        TestJobs.assertEveryContextClosed();
        assertEquals(hookBefore, SharedContexts.releasedByHook(), "the functions' close() gave back every context,"
                + " leaving nothing to the class loader's release hook");
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.flink", containing = "left open by a job whose class loader is released")
    void theReleaseHookGivesBackWhatAJobLeftOpenAndNoOtherJobs() {
        ClassLoader job = new ClassLoader(null) { };
        ClassLoader other = new ClassLoader(null) { };
        SharedContexts.Reference left = SharedContexts.acquire(TestBackend.API, 0, job);
        SharedContexts.Reference kept = SharedContexts.acquire(TestBackend.API, 0, other);
        SharedContexts.releaseAll(job);
        assertEquals(1, SharedContexts.openCount(), "the other job's reference keeps the context");
        assertTrue(!kept.context().isClosed());
        SharedContexts.releaseAll(other);
        assertEquals(0, SharedContexts.openCount());
        assertTrue(left.context().isClosed());
        left.close(); // a second close after the hook's is a no-op
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void aFaultedSharedContextIsReplacedForNewSubtasksAndClosedByItsOldHolders() {
        TestBackend.assumeCpuSimulator("the fault is a kernel that throws on the simulator");
        ClassLoader job = new ClassLoader(null) { };
        SharedContexts.Reference old = SharedContexts.acquire("cpu", 0, job);
        dev.sluice.Kernel boom = dev.sluice.Kernel.named("boom").java(t -> {
            throw new IllegalStateException("device fault");
        }).build();
        try (dev.sluice.DeviceFunction f = old.context().compile(boom)) {
            assertThrows(Exception.class, () -> old.context().stream().enqueueLaunch(f, dev.sluice.LaunchConfig.of(1, 1)).join());
        }
        assertTrue(old.context().isFaulted());
        SharedContexts.Reference restarted = SharedContexts.acquire("cpu", 0, job);
        assertTrue(restarted.context() != old.context() && !restarted.context().isFaulted(),
                "a restarted subtask gets a usable context");
        old.close();
        assertTrue(old.context().isClosed(), "the faulted one closes with its last holder");
        assertTrue(!restarted.context().isClosed());
        restarted.close();
        assertEquals(0, SharedContexts.openCount());
    }

    @Test
    void badArgumentsAreNamed() {
        InvalidArgumentException lanes = assertThrows(InvalidArgumentException.class,
                () -> SluiceAsyncFunction.of((lane, in) -> CompletableFuture.completedFuture(in), 0));
        assertEquals("lanes: value 0 is outside 1 to 64", lanes.getMessage());
        InvalidArgumentException input = assertThrows(InvalidArgumentException.class,
                () -> SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE).build());
        assertEquals("input: not given: call input(type, data) or inputBytes(type, bytes)", input.getMessage());
        InvalidArgumentException position = assertThrows(InvalidArgumentException.class, () -> DeviceAssignment.fixed(-1));
        assertEquals("position", position.argument());
    }
}
