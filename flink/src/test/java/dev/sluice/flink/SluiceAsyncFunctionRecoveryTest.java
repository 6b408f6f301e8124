package dev.sluice.flink;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.cpu.InjectedCpuFaults;
import dev.sluice.testing.ExpectWarning;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly once across a restart: a checkpointed source of small batches, checkpoints every 50 ms, a kernel fault
 * injected through the CPU simulator's fault plan partway through, a fixed-delay restart strategy, and a two-phase
 * committing sink whose committed output is the only output trusted. Every batch's result must be committed exactly
 * once, and the job must have restarted from a checkpoint to get there. On the CPU simulator only: the fault plan is
 * the simulator's, and a GPU's sticky fault would leave every context of the test JVM unusable.
 */
class SluiceAsyncFunctionRecoveryTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());

    static final int BATCHES = 3000;
    static final int BATCH_SIZE = 8;
    /** The fault strikes the first batch from this one on that starts once a checkpoint has been committed. */
    static final long FAULT_FROM = 1000;

    /** out[i] = in[i] * in[i] for i below n. */
    static final Kernel SQUARE = TestJobs.squareKernel("square");
    /**
     * The same kernel under another name: the fault plan of every context of the first attempt makes each launch of
     * it throw, and the stage launches it for one batch only.
     */
    static final Kernel SQUARE_AT_FAULT = TestJobs.squareKernel("square_at_fault");

    /** Committed batches of result ids, by committable: a committable re-committed after a restore counts once. */
    static final Map<String, long[]> COMMITTED = new ConcurrentHashMap<>();
    static final AtomicInteger COMMITS = new AtomicInteger();
    static final AtomicBoolean FAULT_PENDING = new AtomicBoolean();
    static final List<String> FAILURES = new CopyOnWriteArrayList<>();
    static final AtomicInteger HIGHEST_ATTEMPT = new AtomicInteger();

    @AfterEach
    void everyContextClosed() throws InterruptedException {
        TestJobs.assertEveryContextClosed();
    }

    /** Batch {@code id}: {@code [id, id + 1/8, ..., id + 7/8]}, exact in floats for ids below 2^20. */
    static float[] batch(long id) {
        float[] b = new float[BATCH_SIZE];
        for (int i = 0; i < BATCH_SIZE; i++) {
            b[i] = id + i / 8f;
        }
        return b;
    }

    /** Squares {@code batch} with {@code kernel} on the lane; its id once every square is checked. */
    static CompletableFuture<Long> squareAndCheck(GpuLane lane, float[] batch, Kernel kernel) {
        DeviceStream s = lane.stream();
        int n = batch.length;
        DeviceBuffer in = lane.deviceBuffer(0, DType.F32, n);
        DeviceBuffer out = lane.deviceBuffer(1, DType.F32, n);
        HostBuffer staging = lane.staging(0, DType.F32, n);
        s.enqueueCopy(HostData.of(batch), in);
        s.enqueueLaunch(lane.function(kernel), LaunchConfig.forElements(n), in, out, (long) n);
        return s.enqueueCopy(out, staging).thenApply(v -> {
            float[] r = staging.segment().toArray(JAVA_FLOAT);
            for (int i = 0; i < n; i++) {
                if (r[i] != batch[i] * batch[i]) {
                    throw new AssertionError("batch " + batch[0] + " element " + i + ": " + r[i]);
                }
            }
            return (long) batch[0];
        });
    }

    /**
     * The function with the fault plan armed for the contexts its subtasks open in the job's first attempt; a
     * restarted attempt opens new contexts (the faulted one is replaced), with no plan.
     */
    static final class FaultOnFirstAttempt extends SluiceAsyncFunction<float[], Long> {
        FaultOnFirstAttempt(GpuStage<float[], Long> stage, int lanes) {
            super(stage, lanes, DeviceAssignment.roundRobin(), null);
        }

        @Override
        public void open(OpenContext openContext) throws Exception {
            int attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
            HIGHEST_ATTEMPT.accumulateAndGet(attempt, Math::max);
            if (attempt == 0) {
                InjectedCpuFaults.throwInKernelOfNextContext(SQUARE_AT_FAULT.name(), 0, 0);
            }
            try {
                super.open(openContext);
            } finally {
                InjectedCpuFaults.disarm();
            }
        }
    }

    @Test
    @ExpectWarning(logger = "dev.sluice.DeviceContext", containing = " faulted: ")
    void aKernelFaultRestartsFromACheckpointAndEveryResultIsCommittedExactlyOnce() throws Exception {
        TestBackend.assumeCpuSimulator("the fault is injected through the simulator's fault plan");
        COMMITTED.clear();
        COMMITS.set(0);
        FAILURES.clear();
        HIGHEST_ATTEMPT.set(0);
        FAULT_PENDING.set(true);

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(50);

        // About two seconds of batches, so that checkpoints complete before and after the fault.
        DataGeneratorSource<float[]> source = new DataGeneratorSource<>(SluiceAsyncFunctionRecoveryTest::batch, BATCHES,
                RateLimiterStrategy.perSecond(1500), PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO);
        DataStream<float[]> batches = env.fromSource(source, WatermarkStrategy.noWatermarks(), "batches")
                .setParallelism(1);
        SluiceAsyncFunction<float[], Long> f = new FaultOnFirstAttempt((lane, in) -> {
            boolean fault = in[0] >= FAULT_FROM && COMMITS.get() > 0 && FAULT_PENDING.compareAndSet(true, false);
            try {
                return squareAndCheck(lane, in, fault ? SQUARE_AT_FAULT : SQUARE).whenComplete((id, failure) -> {
                    if (failure != null) {
                        FAILURES.add(String.valueOf(failure));
                    }
                });
            } catch (RuntimeException refused) { // the launch faulted the context before the download was enqueued
                FAILURES.add(String.valueOf(refused));
                throw refused;
            }
        }, 2);
        AsyncDataStream.unorderedWait(batches, f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(Types.LONG)
                .sinkTo(new CommittedIds());
        env.execute("exactly once across a restart");

        assertTrue(!FAULT_PENDING.get(), "the fault was injected");
        assertTrue(FAILURES.stream().anyMatch(m -> m.contains("injected fault in kernel square_at_fault")),
                "the injected kernel fault failed its batch: " + FAILURES);
        assertTrue(HIGHEST_ATTEMPT.get() >= 1, "the job restarted");
        int[] times = new int[BATCHES];
        for (long[] ids : COMMITTED.values()) {
            for (long id : ids) {
                times[(int) id]++;
            }
        }
        List<String> wrong = new ArrayList<>();
        for (int id = 0; id < BATCHES; id++) {
            if (times[id] != 1) {
                wrong.add(id + " x" + times[id]);
            }
        }
        assertTrue(wrong.isEmpty(), "batches not committed exactly once: " + wrong.subList(0, Math.min(20, wrong.size()))
                + (wrong.size() > 20 ? " and " + (wrong.size() - 20) + " more" : ""));
    }

    // ---------------------------------------------------------------- a two-phase committing sink of ids

    /** A set of ids written between two checkpoints, under a key that makes its commit idempotent. */
    record IdBatch(String key, long[] ids) {
    }

    /**
     * Writes ids into the pending batch of the current checkpoint; the checkpoint's barrier makes it a committable,
     * kept in Flink's state, and its commit (once the checkpoint completes, again after a restore) records it. Ids
     * written after the last completed checkpoint are lost with a failure, and replayed from the source.
     */
    static final class CommittedIds implements Sink<Long>, SupportsCommitter<IdBatch> {
        @Override
        public CommittingSinkWriter<Long, IdBatch> createWriter(WriterInitContext context) {
            return new CommittingSinkWriter<>() {
                private final List<Long> pending = new ArrayList<>();

                @Override
                public void write(Long id, Context context) {
                    pending.add(id);
                }

                @Override
                public void flush(boolean endOfInput) {
                }

                @Override
                public Collection<IdBatch> prepareCommit() {
                    long[] ids = pending.stream().mapToLong(Long::longValue).toArray();
                    pending.clear();
                    return ids.length == 0 ? List.of() : List.of(new IdBatch(UUID.randomUUID().toString(), ids));
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Committer<IdBatch> createCommitter(CommitterInitContext context) {
            return new Committer<>() {
                @Override
                public void commit(Collection<CommitRequest<IdBatch>> requests) {
                    for (CommitRequest<IdBatch> r : requests) {
                        COMMITTED.putIfAbsent(r.getCommittable().key(), r.getCommittable().ids());
                    }
                    if (!requests.isEmpty()) {
                        COMMITS.incrementAndGet();
                    }
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public SimpleVersionedSerializer<IdBatch> getCommittableSerializer() {
            return new SimpleVersionedSerializer<>() {
                @Override
                public int getVersion() {
                    return 1;
                }

                @Override
                public byte[] serialize(IdBatch batch) throws IOException {
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    try (DataOutputStream out = new DataOutputStream(bytes)) {
                        out.writeUTF(batch.key());
                        out.writeInt(batch.ids().length);
                        for (long id : batch.ids()) {
                            out.writeLong(id);
                        }
                    }
                    return bytes.toByteArray();
                }

                @Override
                public IdBatch deserialize(int version, byte[] serialized) throws IOException {
                    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                        String key = in.readUTF();
                        long[] ids = new long[in.readInt()];
                        for (int i = 0; i < ids.length; i++) {
                            ids[i] = in.readLong();
                        }
                        return new IdBatch(key, ids);
                    }
                }
            };
        }
    }
}
