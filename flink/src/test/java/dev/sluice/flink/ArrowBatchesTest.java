package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.HostBufferPool;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Kernels;
import dev.sluice.reactive.DeviceLane;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.jspecify.annotations.Nullable;

/**
 * Arrow record batches through {@link ArrowBatches#kernel} in an embedded Flink cluster of one TaskManager with 4
 * slots on {@link TestBackend}'s devices (two simulated CPU devices by default), and the stage alone on one lane. Each job's subtasks close their pinned Arrow
 * allocators when they end; a buffer still allocated fails the close, and with it the job.
 */
class ArrowBatchesTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());

    /** y = a * b + 1, written once. */
    static final Kernel FMA = Kernels.elementwise("fma_plus_one")
            .input(KernelParam.pointer("a", DType.F32))
            .input(KernelParam.pointer("b", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = a * b + 1.0f")
            .build();

    static final ArrowType FLOAT = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    static final Schema INPUT = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(32, true)),
            Field.nullable("a", FLOAT), Field.nullable("b", FLOAT)));

    @AfterEach
    void everyContextClosed() throws InterruptedException {
        TestJobs.assertEveryContextClosed();
    }

    private static SluiceAsyncFunction<ArrowBatch, ArrowBatch> fma() {
        return ArrowBatches.kernel(() -> FMA)
                .columns("a", "b")
                .output(Field.nullable("y", FLOAT))
                .passThrough("id")
                .lanes(2)
                .build();
    }

    /** Batch k: {@link #rows(int)} rows, id = 1000 k + i, a = k + i / 4 (null where i % 3 == 1), b = 2 - i (null where i % 5 == 4). */
    static ArrowBatch batch(BufferAllocator allocator, int k) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(INPUT, allocator)) {
            int rows = rows(k);
            root.allocateNew();
            IntVector id = (IntVector) root.getVector("id");
            Float4Vector a = (Float4Vector) root.getVector("a");
            Float4Vector b = (Float4Vector) root.getVector("b");
            for (int i = 0; i < rows; i++) {
                id.setSafe(i, 1000 * k + i);
                if (i % 3 == 1) {
                    a.setNull(i);
                } else {
                    a.setSafe(i, k + i / 4.0f);
                }
                if (i % 5 == 4) {
                    b.setNull(i);
                } else {
                    b.setSafe(i, 2.0f - i);
                }
            }
            root.setRowCount(rows);
            return ArrowBatch.of(root);
        }
    }

    /** Rows of batch k: 1 to 150, and none for batch 3. */
    static int rows(int k) {
        return k == 3 ? 0 : 1 + (k * 37) % 150;
    }

    static List<ArrowBatch> batches(int count) {
        try (RootAllocator allocator = new RootAllocator()) {
            List<ArrowBatch> out = new ArrayList<>();
            for (int k = 0; k < count; k++) {
                out.add(batch(allocator, k));
            }
            return out;
        }
    }

    /** Checks {@code result} as the result of batch k; returns k, read from the ids (or the row count, for no rows). */
    static int check(BufferAllocator allocator, ArrowBatch result, int expectedK) {
        try (VectorSchemaRoot root = result.read(allocator)) {
            assertEquals(List.of("id", "y"), root.getSchema().getFields().stream().map(Field::getName).toList());
            IntVector id = (IntVector) root.getVector("id");
            Float4Vector y = (Float4Vector) root.getVector("y");
            int k = root.getRowCount() == 0 ? 3 : id.get(0) / 1000;
            if (expectedK >= 0) {
                assertEquals(expectedK, k, "batch in its place");
            }
            assertEquals(rows(k), root.getRowCount(), "rows of batch " + k);
            for (int i = 0; i < root.getRowCount(); i++) {
                assertEquals(1000 * k + i, id.get(i));
                if (i % 3 == 1 || i % 5 == 4) {
                    assertTrue(y.isNull(i), "y null where a or b is, row " + i + " of batch " + k);
                } else {
                    assertFalse(y.isNull(i), "row " + i + " of batch " + k);
                    assertEquals((k + i / 4.0f) * (2.0f - i) + 1, y.get(i), 1e-3f, "row " + i + " of batch " + k);
                }
            }
            return k;
        }
    }

    private static List<ArrowBatch> collect(DataStream<ArrowBatch> results) throws Exception {
        List<ArrowBatch> out = new ArrayList<>();
        try (CloseableIterator<ArrowBatch> it = results.executeAndCollect()) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    @Test
    void theFunctionDeclaresArrowBatchAsItsType() {
        SluiceAsyncFunction<ArrowBatch, ArrowBatch> f = fma().backend("cpu");
        assertEquals(ArrowBatch.TYPE, ((org.apache.flink.api.java.typeutils.ResultTypeQueryable<?>) f).getProducedType(),
                "no .returns(ArrowBatch.TYPE) needed after the operator");
    }

    @Test
    void batchesWithNullsComeBackRightThroughOrderedWait() throws Exception {
        StreamExecutionEnvironment env = TestJobs.environment(1);
        SluiceAsyncFunction<ArrowBatch, ArrowBatch> f = fma();
        DataStream<ArrowBatch> in = env.fromData(batches(24), ArrowBatch.TYPE).setParallelism(1);
        List<ArrowBatch> out = collect(AsyncDataStream.orderedWait(in, f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(ArrowBatch.TYPE));
        assertEquals(24, out.size());
        try (RootAllocator allocator = new RootAllocator()) {
            for (int k = 0; k < out.size(); k++) {
                check(allocator, out.get(k), k);
            }
        } // the test's own allocator: every result root read was closed
    }

    @Test
    void batchesWithNullsComeBackRightThroughUnorderedWaitOverEveryDevice() throws Exception {
        StreamExecutionEnvironment env = TestJobs.environment(4);
        SluiceAsyncFunction<ArrowBatch, ArrowBatch> f = fma();
        DataStream<ArrowBatch> in = env.fromData(batches(40), ArrowBatch.TYPE).setParallelism(1);
        List<ArrowBatch> out = collect(AsyncDataStream.unorderedWait(in, f, 30, TimeUnit.SECONDS, f.lanes())
                .returns(ArrowBatch.TYPE));
        assertEquals(40, out.size());
        Set<Integer> seen = new HashSet<>();
        try (RootAllocator allocator = new RootAllocator()) {
            for (ArrowBatch r : out) {
                assertTrue(seen.add(check(allocator, r, -1)), "a batch twice");
            }
        }
        assertEquals(40, seen.size());
    }

    /** Batch k's root with column b one value short of the batch's 4 rows. */
    static ArrowBatch ragged(BufferAllocator allocator) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(INPUT, allocator)) {
            root.allocateNew();
            for (int i = 0; i < 4; i++) {
                ((IntVector) root.getVector("id")).setSafe(i, i);
                ((Float4Vector) root.getVector("a")).setSafe(i, i);
                ((Float4Vector) root.getVector("b")).setSafe(i, i);
            }
            root.setRowCount(4);
            root.getVector("b").setValueCount(3);
            return ArrowBatch.of(root);
        }
    }

    @Test
    void aBatchWhoseColumnsDifferInLengthFailsTheJobWithTheColumnAndTheBatch() {
        List<ArrowBatch> good = batches(4);
        ArrowBatch bad;
        try (RootAllocator allocator = new RootAllocator()) {
            bad = ragged(allocator);
        }
        StreamExecutionEnvironment env = TestJobs.environment(1);
        // Far more elements than the job gets to (as in SluiceAsyncFunctionTest's failing jobs).
        DataStream<ArrowBatch> in = env.fromSequence(0, 99_999).setParallelism(1)
                .map(k -> k == 5 ? bad : good.get((int) (k % 4))).returns(ArrowBatch.TYPE);
        SluiceAsyncFunction<ArrowBatch, ArrowBatch> f = fma();
        AsyncDataStream.orderedWait(in, f, 30, TimeUnit.SECONDS, f.lanes()).returns(ArrowBatch.TYPE)
                .sinkTo(new DiscardingSink<>());
        Exception e = assertThrows(Exception.class, env::execute);
        StringBuilder why = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            why.append(t).append('\n');
        }
        assertTrue(why.toString().contains("the stage failed on element 5 of subtask 0 (ArrowBatch[4 rows, 3 columns, "), why.toString());
        assertTrue(why.toString().contains("batch: column b has 3 values but the batch has 4 rows"), why.toString());
    }

    /** The stage alone, on one lane of a context of device 0, as a subtask runs it. */
    private record OneLane(DeviceContext context, ArrowKernelStage stage, GpuLane lane) implements AutoCloseable {
        static OneLane open() {
            return open(null, new Configuration());
        }

        /** With the builder's close timeout {@code closeTimeout} (null: none) and the subtask's {@code settings}. */
        static OneLane open(@Nullable Duration closeTimeout, Configuration settings) {
            DeviceContext ctx = DeviceContext.open(TestBackend.select(), 0);
            ArrowKernelStage stage = new ArrowKernelStage(() -> FMA, List.of("a", "b"), Field.nullable("y", FLOAT),
                    List.of("id"), closeTimeout);
            stage.configure(settings); // as the function does, before open
            stage.open(ctx);
            // A pool that keeps nothing: what the lane gives back is freed.
            DeviceLane lane = DeviceLane.open(ctx.createStream(), 0, HostBufferPool.of(ctx, 0), true, true);
            return new OneLane(ctx, stage, new GpuLane(lane, ctx::compile));
        }

        @Override
        public void close() {
            try {
                lane.close();
                stage.close();
            } finally {
                context.close();
            }
        }
    }

    @Test
    void aRaggedBatchFailsAloneAndTheLaneGoesOnWithTheNextBatches() {
        try (RootAllocator allocator = new RootAllocator(); OneLane one = OneLane.open()) {
            check(allocator, one.stage().apply(one.lane(), batch(allocator, 1)).join(), 1);
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> one.stage().apply(one.lane(), ragged(allocator)));
            assertEquals("batch", e.argument());
            assertTrue(e.getMessage().contains("column b has 3 values but the batch has 4 rows"), e.getMessage());
            check(allocator, one.stage().apply(one.lane(), batch(allocator, 2)).join(), 2);
            assertEquals(0, one.stage().allocator().getAllocatedMemory(), "the refused batch's memory went back");
        } // stage.close() closes its allocator: a leak would throw here
    }

    @Test
    void aColumnOfAnotherTypeThanTheKernelsParameterFailsNamingBoth() {
        Schema ints = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(32, true)),
                Field.nullable("a", new ArrowType.Int(32, true)), Field.nullable("b", FLOAT)));
        try (RootAllocator allocator = new RootAllocator(); OneLane one = OneLane.open();
             VectorSchemaRoot root = VectorSchemaRoot.create(ints, allocator)) {
            root.allocateNew();
            root.setRowCount(2);
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> one.stage().apply(one.lane(), ArrowBatch.of(root)));
            assertTrue(e.getMessage().contains("column a is Int(32, true) (I32) but the kernel's parameter a takes F32"),
                    e.getMessage());
        }
    }

    @Test
    void memoryLeftInTheSubtasksAllocatorFailsTheCloseWithArrowsReport() {
        OneLane one = OneLane.open();
        ArrowBuf leaked = one.stage().allocator().buffer(64);
        one.lane().close();
        IllegalStateException e = assertThrows(IllegalStateException.class, one.stage()::close);
        assertTrue(e.getMessage().contains("the subtask's Arrow allocator closed with memory still allocated"),
                e.getMessage());
        assertTrue(e.getMessage().contains("Memory was leaked"), e.getMessage());
        assertNull(one.stage().allocator());
        assertEquals(1, leaked.refCnt(), "Arrow's to report, not ours to release");
        one.context().close(); // frees the pinned memory the leaked buffer still held

    }

    @Test
    void theCloseWaitsForAnUnfinishedElementAsLongAsConfiguredThenNamesTheOption() throws Exception {
        Configuration settings = new Configuration();
        settings.setString(SluiceOptions.ARROW_CLOSE_TIMEOUT.key(), "300 ms");
        OneLane one = OneLane.open(null, settings);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        CompletableFuture<ArrowBatch> held;
        try (RootAllocator allocator = new RootAllocator()) {
            one.lane().stream().waitFor(gate); // the element's download waits behind it: the element stays unfinished
            held = one.stage().apply(one.lane(), batch(allocator, 1));
        }
        long start = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class, one.stage()::close);
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waitedMillis >= 300 && waitedMillis < 10_000, "waited " + waitedMillis + " ms for 300 ms");
        assertTrue(e.getMessage().contains("by 1 element(s) not finished after 300 ms (sluice.arrow.close-timeout)"),
                e.getMessage());
        gate.complete(null);
        held.handle((r, failure) -> null).get(30, TimeUnit.SECONDS); // its work ends; it lets go of its vectors late
        one.lane().close();
        one.context().close(); // frees the pinned memory the late element held
    }

    @Test
    void theBuildersCloseTimeoutWinsOverTheJobsAndBadOnesAreRefusedNamingIt() {
        Configuration job = new Configuration();
        job.setString(SluiceOptions.ARROW_CLOSE_TIMEOUT.key(), "5 s");
        try (OneLane builder = OneLane.open(Duration.ofMillis(20), job); OneLane unset = OneLane.open(null, job);
                OneLane neither = OneLane.open(null, new Configuration())) {
            assertEquals(Duration.ofMillis(20), builder.stage().closeWait());
            assertEquals(Duration.ofSeconds(5), unset.stage().closeWait());
            assertEquals(Duration.ofSeconds(10), neither.stage().closeWait(), "the default");
        }
        InvalidArgumentException negative = assertThrows(InvalidArgumentException.class,
                () -> ArrowBatches.kernel(() -> FMA).closeTimeout(Duration.ofSeconds(-1)));
        assertEquals("closeTimeout: value -1 s must be from 0 to 1 h", negative.getMessage());
        InvalidArgumentException none = assertThrows(InvalidArgumentException.class,
                () -> ArrowBatches.kernel(() -> FMA).closeTimeout(null));
        assertEquals("closeTimeout", none.argument());
    }

    @Test
    void aCloseTimeoutOutOfBoundsInTheJobsParametersFailsTheSubtasksOpenNamingTheOption() {
        StreamExecutionEnvironment env = TestJobs.environment(1);
        Configuration parameters = new Configuration();
        parameters.setString(SluiceOptions.ARROW_CLOSE_TIMEOUT.key(), "2 h");
        env.getConfig().setGlobalJobParameters(parameters);
        SluiceAsyncFunction<ArrowBatch, ArrowBatch> f = fma();
        AsyncDataStream.orderedWait(env.fromData(batches(2), ArrowBatch.TYPE), f, 30, TimeUnit.SECONDS, f.lanes())
                .sinkTo(new DiscardingSink<>());
        String why = org.apache.flink.util.ExceptionUtils.stringifyException(assertThrows(Exception.class, env::execute));
        assertTrue(why.contains("InvalidArgumentException: sluice.arrow.close-timeout: value 2 h must be from 0 to 1 h"),
                why);
    }

    @Test
    void anIpcBatchRoundTripsThroughFlinksSerializer() throws IOException {
        ArrowBatch b = batches(2).get(1);
        var out = new org.apache.flink.core.memory.DataOutputSerializer(64);
        ArrowBatch.TYPE.createSerializer(new org.apache.flink.api.common.serialization.SerializerConfigImpl())
                .serialize(b, out);
        ArrowBatch back = ArrowBatchTypeInfo.Serializer.INSTANCE.deserialize(
                new org.apache.flink.core.memory.DataInputDeserializer(out.getCopyOfBuffer()));
        assertEquals(b, back);
        assertEquals(b.toString(), back.toString());
    }

    /**
     * sluice-flink without Arrow: no class of the module but those named {@code Arrow*} names an Arrow class (or one of
     * those) in its constant pool, so none of them can make the JVM load Arrow.
     */
    @Test
    void onlyTheArrowClassesNameArrow() throws IOException, URISyntaxException {
        // The module's classes are a folder in the build and a jar on a GPU host (scripts/gpu-run.sh tests-flink).
        Path location = Path.of(SluiceAsyncFunction.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> checked = new ArrayList<>();
        try (FileSystem jar = Files.isDirectory(location) ? null : FileSystems.newFileSystem(location);
             Stream<Path> files = Files.list(jar == null ? location.resolve("dev/sluice/flink")
                     : jar.getPath("dev/sluice/flink"))) {
            for (Path p : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = p.getFileName().toString();
                String pool = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
                boolean namesArrow = pool.contains("org/apache/arrow/") || pool.contains("dev/sluice/arrow/")
                        || pool.contains("dev/sluice/flink/Arrow");
                if (name.startsWith("Arrow")) {
                    continue;
                }
                assertFalse(namesArrow, name + " names an Arrow class: sluice-flink would need Arrow without Arrow elements");
                checked.add(name);
            }
        }
        assertTrue(checked.containsAll(List.of("SluiceAsyncFunction.class", "GpuStage.class", "GpuLane.class",
                "KernelStage.class", "SharedContexts.class")), "checked " + checked);
        try (InputStream stage = ArrowKernelStage.class.getResourceAsStream("ArrowKernelStage.class")) {
            assertTrue(new String(stage.readAllBytes(), StandardCharsets.ISO_8859_1).contains("org/apache/arrow/"),
                    "the scan sees a class that does name Arrow");
        }
    }
}
