package dev.sluice.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedWidthVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ArrowColumnsTest extends PinnedArrowTest {

    /** How the source vector's memory reaches the device. */
    enum Source { PINNED, STAGED, REGISTERED }

    static Stream<Arguments> primitiveTypes() {
        List<BiFunction<String, BufferAllocator, FieldVector>> makers = List.of(TinyIntVector::new, UInt1Vector::new,
                SmallIntVector::new, UInt2Vector::new, IntVector::new, UInt4Vector::new, BigIntVector::new,
                UInt8Vector::new, Float2Vector::new, Float4Vector::new, Float8Vector::new);
        List<DType> types = List.of(DType.I8, DType.U8, DType.I16, DType.U16, DType.I32, DType.U32, DType.I64, DType.U64,
                DType.F16, DType.F32, DType.F64);
        return Stream.of(Source.values()).flatMap(s -> java.util.stream.IntStream.range(0, makers.size())
                .mapToObj(i -> Arguments.of(s, types.get(i), makers.get(i))));
    }

    @ParameterizedTest(name = "{1} from {0}")
    @MethodSource("primitiveTypes")
    void everyPrimitiveTypeRoundTripsWithItsNulls(Source source, DType type,
            BiFunction<String, BufferAllocator, FieldVector> make) throws Exception {
        try (FieldVector in = make.apply("x", source == Source.PINNED ? pinned : plain);
                FieldVector out = make.apply("y", pinned)) {
            fill(in, 1000, 7);
            assertEquals(type, ArrowColumns.elementType(in));
            DeviceColumn column;
            if (source == Source.REGISTERED) {
                try (RegisteredColumn r = ArrowColumns.registerHost(ctx, in)) {
                    assertInstanceOf(HostBuffer.class, r.data().data(), "registered memory is pinned");
                    column = ArrowColumns.upload(stream, in);
                }
            } else {
                column = ArrowColumns.upload(stream, in);
            }
            try (column) {
                assertEquals(type, column.data().dtype());
                ArrowColumns.download(stream, column, out).get(10, TimeUnit.SECONDS);
            }
            assertSameColumn(in, out);
            assertTrue(out.getNullCount() > 0, "the nulls came back");
        }
    }

    @Test
    void fixedWidthTypesMapToTheirElementTypesAndOthersToNone() {
        assertEquals(DType.I8, ArrowColumns.fixedWidthType(new ArrowType.Int(8, true)).orElseThrow());
        assertEquals(DType.U16, ArrowColumns.fixedWidthType(new ArrowType.Int(16, false)).orElseThrow());
        assertEquals(DType.U64, ArrowColumns.fixedWidthType(new ArrowType.Int(64, false)).orElseThrow());
        assertEquals(DType.F16,
                ArrowColumns.fixedWidthType(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)).orElseThrow());
        assertEquals(DType.F64,
                ArrowColumns.fixedWidthType(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)).orElseThrow());
        assertTrue(ArrowColumns.fixedWidthType(ArrowType.Utf8.INSTANCE).isEmpty(), "variable width: none");
        assertTrue(ArrowColumns.fixedWidthType(ArrowType.Bool.INSTANCE).isEmpty(), "bits: none");
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> ArrowColumns.fixedWidthType(null));
        assertTrue(e.getMessage().contains("type"), e.getMessage());
    }

    @Test
    void pinnedVectorsAreViewedAsPinnedHostBuffers() {
        try (Float4Vector pinnedX = new Float4Vector("x", pinned); Float4Vector plainX = new Float4Vector("x", plain)) {
            fill(pinnedX, 10, 1);
            fill(plainX, 10, 1);
            ColumnData p = ArrowColumns.hostData(pinnedX);
            HostBuffer data = assertInstanceOf(HostBuffer.class, p.data());
            assertEquals(DType.F32, data.dtype());
            assertEquals(10, data.count());
            assertEquals(pinnedX.get(3), data.getFloat(3));
            assertFalse(ArrowColumns.hostData(plainX).data() instanceof HostBuffer, "other memory is staged");
            assertEquals(2, p.validity().byteSize());
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Source.class)
    void variableWidthColumnsTravelAsOffsetsAndBytes(Source source) throws Exception {
        try (VarCharVector in = new VarCharVector("s", source == Source.PINNED ? pinned : plain);
                VarCharVector out = new VarCharVector("t", pinned);
                LargeVarCharVector large = new LargeVarCharVector("l", plain);
                LargeVarCharVector largeOut = new LargeVarCharVector("m", pinned)) {
            in.allocateNew(3);
            large.allocateNew(3);
            String[] values = {"alpha", null, "", "gamma ñ"};
            for (int i = 0; i < values.length; i++) {
                if (values[i] != null) {
                    in.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
                    large.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
                }
            }
            in.setValueCount(values.length);
            large.setValueCount(values.length);
            RegisteredColumn r = source == Source.REGISTERED ? ArrowColumns.registerHost(ctx, in) : null;
            try (DeviceColumn c = ArrowColumns.upload(stream, in); DeviceColumn l = ArrowColumns.upload(stream, large)) {
                assertEquals(DType.I32, c.offsets().dtype());
                assertEquals(DType.I64, l.offsets().dtype());
                assertEquals(5 + 7 + 1, c.data().count(), "the bytes of every value");
                ArrowColumns.download(stream, c, out).get(10, TimeUnit.SECONDS);
                ArrowColumns.download(stream, l, largeOut).get(10, TimeUnit.SECONDS);
            } finally {
                if (r != null) {
                    r.close();
                }
            }
            for (int i = 0; i < values.length; i++) {
                assertEquals(values[i], out.getObject(i) == null ? null : out.getObject(i).toString(), "value " + i);
                assertEquals(values[i], largeOut.getObject(i) == null ? null : largeOut.getObject(i).toString());
            }
        }
    }

    @Test
    void slicesTravelFromTheirOwnOffset() throws Exception {
        try (IntVector in = new IntVector("x", pinned); IntVector out = new IntVector("y", pinned);
                VarCharVector s = new VarCharVector("s", plain); VarCharVector sOut = new VarCharVector("t", pinned)) {
            fill(in, 100, 3);
            s.allocateNew(100);
            for (int i = 0; i < 100; i++) {
                s.setSafe(i, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            s.setValueCount(100);
            TransferPair pair = in.getTransferPair(pinned);
            TransferPair strings = s.getTransferPair(plain);
            pair.splitAndTransfer(13, 40); // a start that is not a whole byte of the bitmap
            strings.splitAndTransfer(21, 9);
            try (IntVector slice = (IntVector) pair.getTo(); VarCharVector sSlice = (VarCharVector) strings.getTo();
                    DeviceColumn c = ArrowColumns.upload(stream, slice); DeviceColumn sc = ArrowColumns.upload(stream, sSlice)) {
                ArrowColumns.download(stream, c, out).get(10, TimeUnit.SECONDS);
                ArrowColumns.download(stream, sc, sOut).get(10, TimeUnit.SECONDS);
                assertSameColumn(slice, out);
                for (int i = 0; i < 40; i++) {
                    assertEquals(in.getObject(13 + i), out.getObject(i));
                }
                for (int i = 0; i < 9; i++) {
                    assertEquals("v" + (21 + i), sOut.getObject(i).toString());
                }
            }
        }
    }

    @Test
    void emptyAndOneRowBatchesRoundTrip() throws Exception {
        for (int rows : new int[] {0, 1}) {
            try (VectorSchemaRoot in = VectorSchemaRoot.create(schema(), pinned);
                    VectorSchemaRoot out = VectorSchemaRoot.create(schema(), pinned)) {
                in.allocateNew();
                if (rows == 1) {
                    ((Float4Vector) in.getVector("x")).set(0, 2.5f);
                    ((VarCharVector) in.getVector("s")).setSafe(0, "one".getBytes(StandardCharsets.UTF_8));
                }
                in.setRowCount(rows);
                try (DeviceBatch batch = ArrowColumns.upload(stream, in)) {
                    assertEquals(rows, batch.rowCount());
                    if (rows == 0) {
                        assertNull(batch.column("x").data(), "an empty column has no device memory");
                    }
                    ArrowColumns.download(stream, batch, out).get(10, TimeUnit.SECONDS);
                }
                assertEquals(rows, out.getRowCount());
                assertEquals(in.contentToTSVString(), out.contentToTSVString());
            }
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = Source.class, names = {"PINNED", "STAGED"})
    void aVectorClosedWhileItsCopyIsHeldIsFreedOnlyAfterTheCopy(Source source) throws Exception {
        BufferAllocator allocator = source == Source.PINNED ? pinned : plain;
        Float8Vector in = new Float8Vector("x", allocator);
        fill(in, 4096, 11);
        byte[] expected = bytes(in);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        stream.waitFor(gate);
        try (DeviceColumn column = ArrowColumns.upload(stream, in); Float8Vector out = new Float8Vector("y", pinned)) {
            in.close(); // while the copy waits behind the gate
            Thread.sleep(50);
            gate.complete(null);
            ArrowColumns.download(stream, column, out).get(10, TimeUnit.SECONDS);
            assertArrayEquals(expected, bytes(out), "the copy read the closed vector's memory intact");
        }
        stream.synchronize();
        awaitReleased(allocator);
    }

    @Test
    void aRegisteredVectorKeepsItsMemoryUntilTheRegistrationIsReleased() throws Exception {
        IntVector in = new IntVector("x", plain);
        fill(in, 1000, 5);
        long allocated = plain.getAllocatedMemory();
        RegisteredColumn registration = ArrowColumns.registerHost(ctx, in);
        HostBuffer data = (HostBuffer) registration.data().data();
        assertTrue(data.isRegistered());
        CompletableFuture<Void> gate = new CompletableFuture<>();
        stream.waitFor(gate);
        try (dev.sluice.DeviceBuffer d = ctx.allocate(DType.I32, 1000)) {
            stream.enqueueCopy(data, d);
            in.close();
            registration.close();
            assertEquals(allocated, plain.getAllocatedMemory(), "freed while registered and copied");
            gate.complete(null);
            stream.synchronize();
        }
        awaitReleased(plain);
    }

    @Test
    void anAllocatorClosedWithLiveBuffersReportsThemAsArrowDoes() {
        RootAllocator root = PinnedAllocationFactory.of(ctx).newRootAllocator(Long.MAX_VALUE);
        BufferAllocator child = root.newChildAllocator("columns", 0, 1 << 20);
        IntVector leaked = new IntVector("leaked", child);
        leaked.allocateNew(100);
        IllegalStateException e = assertThrows(IllegalStateException.class, child::close);
        assertTrue(e.getMessage().contains("Memory was leaked") && e.getMessage().contains("Allocator(columns)"),
                e.getMessage());
        e = assertThrows(IllegalStateException.class, root::close);
        assertTrue(e.getMessage().contains("Memory was leaked"), e.getMessage());
        // The leaked pinned memory goes back with the context's close.
    }

    @Test
    void theAllocatorsLimitIsArrows() {
        try (RootAllocator small = PinnedAllocationFactory.of(ctx).newRootAllocator(4096);
                IntVector v = new IntVector("x", small)) {
            assertThrows(org.apache.arrow.memory.OutOfMemoryException.class, () -> v.allocateNew(100_000));
            v.allocateNew(100);
            assertTrue(small.getAllocatedMemory() > 0);
        }
    }

    @Test
    void badInputIsRefusedNamingTheArgumentAndChangesNothing() {
        try (BitVector bits = new BitVector("flags", pinned); VectorSchemaRoot batch = VectorSchemaRoot.create(schema(), pinned)) {
            bits.allocateNew(8);
            bits.setValueCount(8);
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> ArrowColumns.upload(stream, bits));
            assertEquals("vector", e.argument());
            assertTrue(e.getMessage().contains("Bool"), e.getMessage());

            batch.allocateNew();
            ((Float4Vector) batch.getVector("x")).set(0, 1f);
            batch.setRowCount(3);
            batch.getVector("s").setValueCount(2);
            e = assertThrows(InvalidArgumentException.class, () -> ArrowColumns.upload(stream, batch));
            assertEquals("batch", e.argument());
            assertTrue(e.getMessage().contains("column s has 2 values but the batch has 3 rows"), e.getMessage());
            assertEquals(1f, ((Float4Vector) batch.getVector("x")).get(0), "nothing lost");

            ArrowBuf released = pinned.buffer(64);
            released.close();
            e = assertThrows(InvalidArgumentException.class, () -> ArrowColumns.hostData(released, 64, DType.U8));
            assertEquals("buffer", e.argument());

            DeviceColumn closed = DeviceColumn.allocate(ctx, DType.F32, 3, false);
            closed.close();
            try (Float4Vector out = new Float4Vector("y", pinned)) {
                e = assertThrows(InvalidArgumentException.class, () -> ArrowColumns.download(stream, closed, out));
                assertEquals("column", e.argument());
                try (DeviceColumn ints = DeviceColumn.allocate(ctx, DType.I32, 3, false)) {
                    e = assertThrows(InvalidArgumentException.class, () -> ArrowColumns.download(stream, ints, out));
                    assertEquals("into", e.argument());
                }
            }
        }
        stream.synchronize();
        assertFalse(ctx.isFaulted());
    }

    private static org.apache.arrow.vector.types.pojo.Schema schema() {
        return new org.apache.arrow.vector.types.pojo.Schema(List.of(
                org.apache.arrow.vector.types.pojo.Field.nullable("x",
                        new org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint(
                                org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE)),
                org.apache.arrow.vector.types.pojo.Field.nullable("s",
                        new org.apache.arrow.vector.types.pojo.ArrowType.Utf8())));
    }

    /** Random values with every third one null. */
    private static void fill(FieldVector v, int n, long seed) {
        ((FixedWidthVector) v).allocateNew(n);
        int width = ColumnLayout.elementType(v.getField().getType()).byteSize();
        Random r = new Random(seed);
        ArrowBuf data = v.getDataBuffer();
        for (long b = 0; b < (long) n * width; b++) {
            data.setByte(b, r.nextInt());
        }
        for (int i = 0; i < n; i++) {
            BitVectorHelper.setValidityBit(v.getValidityBuffer(), i, i % 3 == 1 ? 0 : 1);
        }
        v.setValueCount(n);
    }

    private static byte[] bytes(FieldVector v) {
        int width = ColumnLayout.elementType(v.getField().getType()).byteSize();
        byte[] out = new byte[v.getValueCount() * width];
        v.getDataBuffer().getBytes(0, out);
        return out;
    }

    /** Same value count, same nulls, same bytes for every value that is not null. */
    private static void assertSameColumn(FieldVector expected, FieldVector actual) {
        assertEquals(expected.getValueCount(), actual.getValueCount());
        int width = ColumnLayout.elementType(expected.getField().getType()).byteSize();
        for (int i = 0; i < expected.getValueCount(); i++) {
            assertEquals(expected.isNull(i), actual.isNull(i), "null at " + i);
            if (!expected.isNull(i)) {
                for (int b = 0; b < width; b++) {
                    assertEquals(expected.getDataBuffer().getByte((long) i * width + b),
                            actual.getDataBuffer().getByte((long) i * width + b), "byte " + b + " of value " + i);
                }
            }
        }
    }

    /** Arrow memory released by a copy's completion is released on the completion thread, just after the future. */
    private static void awaitReleased(BufferAllocator allocator) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (allocator.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, allocator.getAllocatedMemory(), "released once the copy finished");
        assertNotEquals(-1, allocator.getPeakMemoryAllocation());
    }
}
