package dev.sluice.arrow;

import static dev.sluice.testing.Attacks.assertRefused;
import static dev.sluice.testing.Attacks.atOnceFromTwoThreads;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import dev.sluice.InvalidArgumentException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every public call of {@link ArrowColumns}, {@link DeviceColumn}, {@link DeviceBatch}, {@link RegisteredColumn} and
 * {@link PinnedAllocationFactory} with bad arguments, closed objects and concurrent closes: refused at the call by an
 * {@link InvalidArgumentException} naming the argument, with nothing allocated or enqueued; nothing leaks (Arrow's leak
 * check when the allocators close after each test).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArrowColumnsArgumentsTest extends PinnedArrowTest {

    private static final ArrowType.Int I32 = new ArrowType.Int(32, true);

    private static IntVector ints(BufferAllocator allocator, String name, int n) {
        IntVector v = new IntVector(name, allocator);
        v.allocateNew(n);
        for (int i = 0; i < n; i++) {
            v.set(i, i);
        }
        v.setValueCount(n);
        return v;
    }

    @Test
    void uploadToAClosedStreamIsRefusedNamingTheStream() {
        try (IntVector v = ints(pinned, "x", 10); DeviceStream closed = ctx.createStream()) {
            closed.close();
            assertRefused("stream", () -> ArrowColumns.upload(closed, v), "is closed");
            try (VectorSchemaRoot root = VectorSchemaRoot.of(ints(pinned, "y", 10))) {
                assertRefused("stream", () -> ArrowColumns.upload(closed, root), "is closed");
            }
        }
    }

    @Test
    void uploadOfABatchWithTwoColumnsOfOneNameIsRefusedBeforeAllocating() {
        try (VectorSchemaRoot root = new VectorSchemaRoot(List.of(Field.nullable("a", I32), Field.nullable("a", I32)),
                List.<FieldVector>of(ints(plain, "a", 10), ints(plain, "a", 10)), 10)) {
            // Once the second column replaced the first in the batch's map, whose device memory nothing then closed.
            assertRefused("batch", () -> ArrowColumns.upload(stream, root), "two columns named 'a'");
        }
    }

    @Test
    void downloadOfABatchWithAClosedColumnEnqueuesNothing() {
        try (IntVector a = ints(pinned, "a", 10); IntVector b = ints(pinned, "b", 10)) {
            DeviceColumn da = ArrowColumns.upload(stream, a);
            DeviceColumn db = ArrowColumns.upload(stream, b);
            Map<String, DeviceColumn> columns = new LinkedHashMap<>();
            columns.put("a", da);
            columns.put("b", db);
            try (DeviceBatch batch = DeviceBatch.of(columns);
                    VectorSchemaRoot into = VectorSchemaRoot.create(new Schema(List.of(Field.nullable("a", I32),
                            Field.nullable("b", I32))), pinned)) {
                db.close();
                assertRefused("batch", () -> ArrowColumns.download(stream, batch, into), "column b", "is closed");
                assertEquals(0, into.getVector("a").getValueCount(), "column a was not downloaded");
                assertRefused("stream", () -> ArrowColumns.download(null, batch, into), "must not be null");
            }
        }
    }

    @Test
    void downloadWithAClosedStreamOrAColumnOfAnotherContextIsRefusedNamingIt() throws Exception {
        try (IntVector a = ints(pinned, "a", 10); DeviceColumn column = ArrowColumns.upload(stream, a);
                IntVector into = new IntVector("into", pinned);
                DeviceContext other = DeviceContext.open(Api.CPU, 0); DeviceStream closed = ctx.createStream()) {
            closed.close();
            assertRefused("stream", () -> ArrowColumns.download(closed, column, into), "is closed");
            assertEquals(0, into.getValueCapacity(), "into was left as it was");
            DeviceStream foreign = other.createStream();
            assertRefused("column", () -> ArrowColumns.download(foreign, column, into), "another context");
            assertEquals(0, into.getValueCapacity(), "into was left as it was");
            ArrowColumns.download(stream, column, into).get(10, TimeUnit.SECONDS);
            assertEquals(9, into.get(9));
        }
    }

    @Test
    void downloadIntoAVectorOfAClosedAllocatorIsRefusedNamingIntoAndEnqueuesNothing() {
        try (IntVector a = ints(pinned, "a", 10); IntVector b = ints(pinned, "b", 10);
                IntVector intoA = new IntVector("a", pinned)) {
            BufferAllocator child = pinned.newChildAllocator("closed", 0, Long.MAX_VALUE);
            IntVector intoB = new IntVector("b", child);
            child.close();
            Map<String, DeviceColumn> columns = new LinkedHashMap<>();
            columns.put("a", ArrowColumns.upload(stream, a));
            columns.put("b", ArrowColumns.upload(stream, b));
            try (DeviceBatch batch = DeviceBatch.of(columns);
                    VectorSchemaRoot into = new VectorSchemaRoot(List.of(intoA.getField(), intoB.getField()),
                            List.<FieldVector>of(intoA, intoB), 0)) {
                assertRefused("into", () -> ArrowColumns.download(stream, batch.column("b"), intoB), "vector b",
                        "allocator closed is closed");
                // A batch's download makes room in every vector before enqueuing: b's closed allocator leaves a as it was.
                assertRefused("into", () -> ArrowColumns.download(stream, batch, into), "vector b", "is closed");
                assertEquals(0, intoA.getValueCount(), "column a was not downloaded");
            }
        }
    }

    @Test
    void allocatingOrRegisteringOnAClosedContextIsRefusedNamingTheContext() {
        DeviceContext closed = DeviceContext.open(Api.CPU, 0);
        closed.close();
        assertRefused("context", () -> DeviceColumn.allocate(closed, DType.F32, 10, true), "is closed");
        assertRefused("valueCount", () -> DeviceColumn.allocate(ctx, DType.F32, Integer.MIN_VALUE, false),
                String.valueOf(Integer.MIN_VALUE));
        try (IntVector v = ints(plain, "x", 10)) {
            assertRefused("context", () -> ArrowColumns.registerHost(closed, v), "is closed");
            assertRefused("vector", () -> ArrowColumns.registerHost(ctx, null), "must not be null");
        }
    }

    @Test
    void hostDataOfBadLengthsNamesTheLength() {
        try (ArrowBuf buf = plain.buffer(64)) {
            assertRefused("length", () -> ArrowColumns.hostData(buf, 0, DType.U8), "0");
            assertRefused("length", () -> ArrowColumns.hostData(buf, Long.MIN_VALUE, DType.U8), String.valueOf(Long.MIN_VALUE));
            assertRefused("length", () -> ArrowColumns.hostData(buf, 6, DType.I32), "6", "4 bytes");
            assertRefused("buffer", () -> ArrowColumns.hostData(buf, Long.MAX_VALUE, DType.U8),
                    String.valueOf(Long.MAX_VALUE));
            assertRefused("type", () -> ArrowColumns.hostData(buf, 8, null), "must not be null");
        }
    }

    @Test
    void deviceBatchRefusesNullsAndNamesAMissingColumn() {
        Map<String, DeviceColumn> withNull = new LinkedHashMap<>();
        withNull.put("a", null);
        assertRefused("columns", () -> DeviceBatch.of(withNull), "null");
        assertRefused("columns", () -> DeviceBatch.of(Map.of()), "is empty");
        assertRefused("columns", () -> DeviceBatch.of(null), "must not be null");
        try (DeviceBatch b = DeviceBatch.of(Map.of("a", DeviceColumn.allocate(ctx, DType.F32, 4, false)))) {
            assertRefused("name", () -> b.column(null), "must not be null");
            assertRefused("name", () -> b.column("z"), "no column z", "[a]");
        }
    }

    @Test
    void closesAreIdempotentAndSafeFromTwoThreadsAtOnce() throws Exception {
        DeviceBatch batch = DeviceBatch.of(Map.of("a", DeviceColumn.allocate(ctx, DType.F32, 100, true)));
        atOnceFromTwoThreads(batch::close, 10);
        batch.close();
        assertTrue(batch.column("a").isClosed());
        try (IntVector v = ints(plain, "x", 100)) {
            RegisteredColumn r = ArrowColumns.registerHost(ctx, v);
            atOnceFromTwoThreads(r::close, 10);
            r.close();
            assertTrue(r.isClosed());
        }
        PinnedAllocationFactory f = PinnedAllocationFactory.of(ctx, 1 << 20);
        try (RootAllocator a = f.newRootAllocator(1 << 20)) {
            a.buffer(100).close(); // pooled
            atOnceFromTwoThreads(f::close, 10);
            f.close();
            a.buffer(100).close(); // the allocator keeps working after its factory's close
        }
    }

    @Test
    void closingAfterTheContextClosedIsQuietAndIdempotent() {
        DeviceContext other = DeviceContext.open(Api.CPU, 0);
        PinnedAllocationFactory f = PinnedAllocationFactory.of(other);
        RootAllocator a = f.newRootAllocator(Long.MAX_VALUE);
        try (IntVector v = ints(plain, "x", 100)) {
            RegisteredColumn r = ArrowColumns.registerHost(other, v);
            DeviceColumn column = DeviceColumn.allocate(other, DType.F32, 10, true);
            DeviceBatch batch = DeviceBatch.of(Map.of("c", DeviceColumn.allocate(other, DType.I32, 10, false)));
            ArrowPipeline p = ArrowPipeline.builder(other, a).capacity(10, 1024).output(Field.nullable("y", I32))
                    .stage((lane, in, out) -> null).build();
            a.close();
            other.close();
            for (int k = 0; k < 2; k++) {
                r.close();
                column.close();
                batch.close();
                p.close();
                f.close();
            }
            assertTrue(r.isClosed() && column.isClosed() && batch.column("c").isClosed() && p.isClosed());
        }
        // plain's close (after the test) fails if the registration still holds a reference to the vector's buffers.
    }

    @Test
    void aVectorWhoseContextFreedItsPinnedMemoryIsRefusedBeforeItIsRead() {
        DeviceContext other = DeviceContext.open(Api.CPU, 0);
        PinnedAllocationFactory f = PinnedAllocationFactory.of(other);
        RootAllocator a = f.newRootAllocator(Long.MAX_VALUE);
        org.apache.arrow.vector.VarCharVector s = new org.apache.arrow.vector.VarCharVector("s", a);
        s.allocateNew(8_000, 1000);
        for (int i = 0; i < 1000; i++) {
            s.setSafe(i, new byte[] {'a', 'b'});
        }
        s.setValueCount(1000);
        IntVector into = new IntVector("into", a);
        into.allocateNew(1000);
        // Misuse the class comment warns of: the context closes first and frees the vectors' memory. On a GPU that
        // memory may be unmapped: reading a string's offsets from it, or copying from it, crashed the JVM.
        other.close();
        String freed = "is closed and has freed it";
        assertRefused("vector", () -> ArrowColumns.upload(stream, s), "vector s", freed);
        assertRefused("vector", () -> ArrowColumns.hostData(s), freed);
        assertRefused("vector", () -> ArrowColumns.registerHost(ctx, s), freed);
        try (IntVector x = ints(pinned, "x", 1000); DeviceColumn column = ArrowColumns.upload(stream, x)) {
            assertRefused("into", () -> ArrowColumns.download(stream, column, into), "vector into", freed);
        }
        try (ArrowPipeline p = ArrowPipeline.builder(ctx, pinned).capacity(1000, 64 * 1024).passThrough("s")
                .stage((lane, in, out) -> null).build()) {
            VectorSchemaRoot batch = new VectorSchemaRoot(List.of(s.getField()), List.<FieldVector>of(s), 1000);
            reactor.test.StepVerifier.create(p.process(reactor.core.publisher.Flux.just(batch)))
                    .expectErrorSatisfies(e -> {
                        InvalidArgumentException iae = org.junit.jupiter.api.Assertions.assertInstanceOf(
                                InvalidArgumentException.class, e);
                        assertEquals("batch", iae.argument());
                        assertTrue(e.getMessage().contains(freed), e.getMessage());
                    })
                    .verify(java.time.Duration.ofSeconds(30));
        }
        // Closing them now gives the freed memory back to nothing: quiet, and Arrow's accounting balances.
        s.close();
        into.close();
        a.close();
        f.close();
    }

    @Test
    void pinnedAllocationFactoryRefusesBadArgumentsNamingThem() {
        DeviceContext closed = DeviceContext.open(Api.CPU, 0);
        closed.close();
        assertRefused("context", () -> PinnedAllocationFactory.of(closed), "is closed");
        assertRefused("context", () -> PinnedAllocationFactory.of((DeviceContext) null), "must not be null");
        assertRefused("poolLimit", () -> PinnedAllocationFactory.of(ctx, Long.MIN_VALUE), String.valueOf(Long.MIN_VALUE));
        try (PinnedAllocationFactory f = PinnedAllocationFactory.of(ctx, 0)) {
            assertRefused("limit", () -> f.newRootAllocator(-1), "-1");
            // Arrow's own entry point, public as the interface is: refused before the pool gives any memory out.
            assertRefused("accountingAllocator", () -> f.create(null, 64), "must not be null");
            assertRefused("size", () -> f.create(pinned, 0), "value 0", "at least 1");
            assertRefused("size", () -> f.create(pinned, Long.MIN_VALUE), "value " + Long.MIN_VALUE);
            assertEquals(0, f.allocations(), "nothing was pinned");
        }
    }

    @Test
    void columnDataRefusesWhatNoColumnCanBeNamingIt() {
        assertRefused("valueCount", () -> new ColumnData(-1, DType.F32, null, null, null, null), "value -1",
                "negative");
        assertRefused("type", () -> new ColumnData(0, null, null, null, null, null), "must not be null");
        assertRefused("offsetType", () -> new ColumnData(0, DType.U8, DType.F32, null, null, null), "F32",
                "neither I32 nor I64");
        assertEquals(DType.I64, new ColumnData(0, DType.U8, DType.I64, null, null, null).offsetType());
    }

    @Test
    void elementTypeRefusesNullsAndUnsupportedVectorsNamingThem() {
        assertRefused("vector", () -> ArrowColumns.elementType(null), "must not be null");
        assertRefused("vector", () -> ArrowColumns.hostData((FieldVector) null), "must not be null");
        assertRefused("stream", () -> ArrowColumns.upload(null, (FieldVector) null), "must not be null");
        assertRefused("batch", () -> ArrowColumns.upload(stream, (VectorSchemaRoot) null), "must not be null");
        try (VectorSchemaRoot empty = new VectorSchemaRoot(List.of(), List.of(), 0)) {
            assertRefused("batch", () -> ArrowColumns.upload(stream, empty), "has no columns");
        }
        try (Float4Vector f = new Float4Vector("f", plain)) {
            assertEquals(DType.F32, ArrowColumns.elementType(f));
        }
    }
}
