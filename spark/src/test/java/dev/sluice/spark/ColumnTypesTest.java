package dev.sluice.spark;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Kernels;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Booleans, dates, timestamps (with and without a time zone), strings and binaries through both stages: as the kernel's
 * inputs and outputs, passed through and carried, with nulls (SQL's semantics, as {@link NullableColumnsTest} checks for
 * numbers); and the types the stages refuse, at build. Batches of 64 rows.
 */
class ColumnTypesTest {

    private static final int BATCH = 64;
    private static final int ROWS = 4 * BATCH - 20;

    static final Field B = Field.nullable("b", ArrowType.Bool.INSTANCE);
    static final Field D = Field.nullable("d", new ArrowType.Date(DateUnit.DAY));
    static final Field T = Field.nullable("t", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
    static final Field N = Field.nullable("ntz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
    static final Field S = Field.nullable("s", ArrowType.Utf8.INSTANCE);
    static final Field BIN = Field.nullable("bin", ArrowType.Binary.INSTANCE);

    /** {@code nb = !b; d1 = d + 1; t1 = t + 1.5 s; ntz1 = ntz - 60 s}. */
    static final Kernel TEMPORAL = Kernels.elementwise("temporal")
            .input(KernelParam.pointer("b", DType.BOOL)).input(KernelParam.pointer("d", DType.I32))
            .input(KernelParam.pointer("t", DType.I64)).input(KernelParam.pointer("ntz", DType.I64))
            .output(KernelParam.pointer("nb", DType.BOOL)).output(KernelParam.pointer("d1", DType.I32))
            .output(KernelParam.pointer("t1", DType.I64)).output(KernelParam.pointer("ntz1", DType.I64))
            .body("nb = !b; d1 = d + 1; t1 = t + 1500000L; ntz1 = ntz - 60000000L")
            .build();

    static final Field NB = Field.nullable("nb", ArrowType.Bool.INSTANCE);
    static final Field D1 = Field.nullable("d1", new ArrowType.Date(DateUnit.DAY));
    static final Field T1 = Field.nullable("t1", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
    static final Field N1 = Field.nullable("ntz1", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));

    /**
     * Per row, of string s (offsets, bytes) and binary bin: s's length in bytes, its count of 'a' bytes, and the sum of
     * bin's bytes (unsigned).
     */
    static final Kernel STRINGS = Kernel.named("strings")
            .param(KernelParam.pointer("s_offsets", DType.I32)).param(KernelParam.pointer("s_bytes", DType.U8))
            .param(KernelParam.pointer("bin_offsets", DType.I32)).param(KernelParam.pointer("bin_bytes", DType.U8))
            .param(KernelParam.pointer("len", DType.I32)).param(KernelParam.pointer("as", DType.I32))
            .param(KernelParam.pointer("sum", DType.I64)).param(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void strings(const int* s_offsets, const unsigned char* s_bytes,
                            const int* bin_offsets, const unsigned char* bin_bytes, int* len, int* as, long long* sum,
                            long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i >= n) return;
                        int a = 0;
                        for (int k = s_offsets[i]; k < s_offsets[i + 1]; k++) a += s_bytes[k] == 'a';
                        len[i] = s_offsets[i + 1] - s_offsets[i];
                        as[i] = a;
                        long long total = 0;
                        for (int k = bin_offsets[i]; k < bin_offsets[i + 1]; k++) total += bin_bytes[k];
                        sum[i] = total;
                    }""")
            .java(t -> {
                long i = t.globalIdX();
                if (i >= t.longArg(7)) {
                    return;
                }
                MemorySegment so = t.pointer(0);
                MemorySegment sb = t.pointer(1);
                MemorySegment bo = t.pointer(2);
                MemorySegment bb = t.pointer(3);
                int a = 0;
                for (int k = so.getAtIndex(JAVA_INT, i); k < so.getAtIndex(JAVA_INT, i + 1); k++) {
                    a += sb.get(JAVA_BYTE, k) == 'a' ? 1 : 0;
                }
                t.pointer(4).setAtIndex(JAVA_INT, i, so.getAtIndex(JAVA_INT, i + 1) - so.getAtIndex(JAVA_INT, i));
                t.pointer(5).setAtIndex(JAVA_INT, i, a);
                long total = 0;
                for (int k = bo.getAtIndex(JAVA_INT, i); k < bo.getAtIndex(JAVA_INT, i + 1); k++) {
                    total += Byte.toUnsignedInt(bb.get(JAVA_BYTE, k));
                }
                t.pointer(6).setAtIndex(JAVA_LONG, i, total);
            })
            .build();

    /** The most rows a batch of the byte-bounded test held (all tasks run in this JVM: local mode). */
    static final AtomicInteger MOST_ROWS = new AtomicInteger();

    @RegisterExtension
    static final LocalSpark LOCAL = new LocalSpark("ColumnTypesTest", 2, 1);

    // Each column has nulls of its own; a batch's first row (0, 64, ...) is null in b, and row 100 in every column.
    static boolean bNull(int i) {
        return i % BATCH == 0 || i % 7 == 3 || i == 100;
    }

    static boolean dNull(int i) {
        return i % 11 == 5 || i == 100;
    }

    static boolean tNull(int i) {
        return i % 13 == 6 || i == 100;
    }

    static boolean nNull(int i) {
        return i % 17 == 8 || i == 100 || i == ROWS - 1;
    }

    static boolean sNull(int i) {
        return i % 5 == 1 || i == 100;
    }

    static boolean binNull(int i) {
        return i % 6 == 2 || i == 100;
    }

    static boolean anyTemporalNull(int i) {
        return bNull(i) || dNull(i) || tNull(i) || nNull(i);
    }

    static boolean b(int i) {
        return i % 3 == 0;
    }

    /** Dates from 1969-12-01 on: before 1970 the days are negative. */
    static LocalDate d(int i) {
        return LocalDate.of(1969, 12, 1).plusDays(i);
    }

    /** Instants from 10 s before 1970 on, with microseconds. */
    static Instant t(int i) {
        return Instant.ofEpochSecond(-10 + i, i * 1_234_000L);
    }

    static LocalDateTime n(int i) {
        return LocalDateTime.of(1969, 12, 31, 23, 0).plusSeconds(37L * i).plusNanos(i * 1000L);
    }

    /** Strings of 0 to 9 characters, some of two-byte UTF-8 ('é'). */
    static String s(int i) {
        return ("ab" + (i % 2 == 0 ? "é" : "a") + "cada").substring(0, Math.min(7, i % 10));
    }

    static byte[] bin(int i) {
        byte[] b = new byte[i % 4];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (250 + k + i % 3);
        }
        return b;
    }

    private static StructType allTypes() {
        return DataTypes.createStructType(List.of(
                DataTypes.createStructField("id", DataTypes.LongType, false),
                DataTypes.createStructField("b", DataTypes.BooleanType, true),
                DataTypes.createStructField("d", DataTypes.DateType, true),
                DataTypes.createStructField("t", DataTypes.TimestampType, true),
                DataTypes.createStructField("ntz", DataTypes.TimestampNTZType, true),
                DataTypes.createStructField("s", DataTypes.StringType, true),
                DataTypes.createStructField("bin", DataTypes.BinaryType, true)));
    }

    private static Row row(int i, boolean java8) {
        Object date = java8 ? d(i) : Date.valueOf(d(i));
        Object ts = java8 ? t(i) : Timestamp.from(t(i));
        return RowFactory.create((long) i, bNull(i) ? null : b(i), dNull(i) ? null : date, tNull(i) ? null : ts,
                nNull(i) ? null : n(i), sNull(i) ? null : s(i), binNull(i) ? null : bin(i));
    }

    private static GpuPartitionStage.Builder<Row> temporalStage() {
        return GpuPartitionStage.<Row>kernel(() -> TEMPORAL)
                .carry(TestStages.ID).carry(S).carry(BIN)
                .input(B).input(D).input(T).input(N).passThrough("b").passThrough("d")
                .output(NB).output(D1).output(T1).output(N1).batchRows(BATCH).lanes(2);
    }

    @Test
    void booleansDatesAndTimestampsThroughTheKernelAndStringsCarriedComeBackWithTheirNulls() {
        Dataset<Row> df = LOCAL.spark().createDataFrame(java.util.stream.IntStream.range(0, ROWS).mapToObj(i -> row(i, false))
                .toList(), allTypes()).coalesce(1);
        GpuPartitionStage<Row, Row> stage = temporalStage().buildRows();
        List<DataType> types = java.util.Arrays.stream(stage.outputSchema().fields()).map(f -> f.dataType()).toList();
        assertEquals(List.of(DataTypes.LongType, DataTypes.StringType, DataTypes.BinaryType, DataTypes.BooleanType,
                DataTypes.DateType, DataTypes.BooleanType, DataTypes.DateType, DataTypes.TimestampType,
                DataTypes.TimestampNTZType), types);
        List<Row> rows = df.mapPartitions(stage, stage.rowEncoder()).collectAsList();
        assertEquals(ROWS, rows.size());
        for (int i = 0; i < ROWS; i++) {
            Row r = rows.get(i);
            assertEquals(i, r.getLong(0));
            checkCarried(i, r.isNullAt(1) ? null : r.getString(1), r.isNullAt(2) ? null : (byte[]) r.get(2));
            assertEquals(bNull(i) ? null : b(i), r.get(3), "b passed through, row " + i);
            assertEquals(dNull(i) ? null : Date.valueOf(d(i)), r.get(4), "d passed through, row " + i);
            if (anyTemporalNull(i)) {
                for (int c = 5; c < 9; c++) {
                    assertTrue(r.isNullAt(c), "an input is null in row " + i + ", so every output: " + r);
                }
            } else {
                assertEquals(!b(i), r.getBoolean(5), "nb, row " + i);
                assertEquals(Date.valueOf(d(i).plusDays(1)), r.getDate(6), "d1, row " + i);
                assertEquals(Timestamp.from(t(i).plusMillis(1500)), r.getTimestamp(7), "t1, row " + i);
                assertEquals(n(i).minusSeconds(60), r.get(8), "ntz1, row " + i);
            }
        }
    }

    private static void checkCarried(int i, String s, byte[] bin) {
        assertEquals(sNull(i) ? null : s(i), s, "s carried, row " + i);
        if (binNull(i)) {
            assertEquals(null, bin, "bin carried, row " + i);
        } else {
            assertArrayEquals(bin(i), bin, "bin carried, row " + i);
        }
    }

    @Test
    void withJavaTimeObjectsOnDatesAndTimestampsAreLocalDatesAndInstants() {
        LOCAL.spark().conf().set(SparkTypes.JAVA8_API, "true");
        try {
            Dataset<Row> df = LOCAL.spark().createDataFrame(java.util.stream.IntStream.range(0, ROWS)
                    .mapToObj(i -> row(i, true)).toList(), allTypes()).coalesce(1);
            GpuPartitionStage<Row, Row> stage = temporalStage().buildRows();
            List<Row> rows = df.mapPartitions(stage, stage.rowEncoder()).collectAsList();
            assertEquals(ROWS, rows.size());
            for (int i = 0; i < ROWS; i++) {
                Row r = rows.get(i);
                assertEquals(dNull(i) ? null : d(i), r.get(4), "d passed through, row " + i);
                if (!anyTemporalNull(i)) {
                    assertEquals(d(i).plusDays(1), r.get(6), "d1, row " + i);
                    assertEquals(t(i).plusMillis(1500), r.get(7), "t1, row " + i);
                }
            }
        } finally {
            LOCAL.spark().conf().unset(SparkTypes.JAVA8_API);
        }
    }

    @Test
    void typedObjectsGiveJavaValuesAndReadSparksColumns() {
        GpuPartitionStage<Long, String> stage = GpuPartitionStage.<Long>kernel(() -> TEMPORAL)
                .input(B, id -> bNull(id.intValue()) ? null : b(id.intValue()))
                .input(D, id -> d(id.intValue()))
                .input(T, id -> t(id.intValue()))
                .input(N, id -> n(id.intValue()))
                .output(NB).output(D1).output(T1).output(N1).batchRows(BATCH)
                .build((batch, row) -> batch.column(0).isNullAt(row) ? "null" : batch.column(0).getBoolean(row) + " "
                        + batch.column(1).getInt(row) + " " + batch.column(2).getLong(row) + " "
                        + batch.column(3).getLong(row));
        List<String> out = LOCAL.spark().range(0, ROWS, 1, 1).mapPartitions(stage, Encoders.STRING()).collectAsList();
        for (int i = 0; i < ROWS; i++) {
            String want = bNull(i) ? "null" : !b(i) + " " + (d(i).toEpochDay() + 1) + " " + (micros(t(i)) + 1_500_000)
                    + " " + (micros(n(i).toInstant(java.time.ZoneOffset.UTC)) - 60_000_000);
            assertEquals(want, out.get(i), "row " + i);
        }
    }

    static long micros(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }

    @Test
    void arrowBatchesOfBooleansDatesTimestampsAndStringsComeBackAsSparksColumnTypes() {
        GpuArrowStage stage = GpuPartitionStage.<Row>kernel(() -> TEMPORAL)
                .input(B).input(D).input(T).input(N).carry(S).carry(BIN).passThrough("b").passThrough("d")
                .output(NB).output(D1).output(T1).output(N1).batchRows(BATCH).lanes(2).buildArrow();
        List<String> checked = LOCAL.spark().range(0, 1, 1, 1).mapPartitions((MapPartitionsFunction<Long, String>) in -> {
            List<String> out = new ArrayList<>();
            try (BufferAllocator a = new RootAllocator()) {
                List<VectorSchemaRoot> batches = arrowBatches(a);
                var results = stage.processColumnar(batches.iterator());
                int first = 0;
                while (results.hasNext()) {
                    try (ColumnarBatch c = results.next()) {
                        for (int r = 0; r < c.numRows(); r++) {
                            checkArrowRow(first + r, c, r);
                        }
                        out.add(c.numRows() + " " + java.util.stream.IntStream.range(0, c.numCols())
                                .mapToObj(k -> c.column(k).dataType().simpleString()).toList());
                        first += c.numRows();
                    }
                }
                batches.forEach(VectorSchemaRoot::close);
            }
            return out.iterator();
        }, Encoders.STRING()).collectAsList();
        String types = " [string, binary, boolean, date, boolean, date, timestamp, timestamp_ntz]";
        assertEquals(List.of(BATCH + types, BATCH + types, BATCH + types, (ROWS - 3 * BATCH) + types), checked);
    }

    /** Row {@code i} of the partition, row {@code r} of {@code c}: (s, bin, b, d, nb, d1, t1, ntz1). */
    private static void checkArrowRow(int i, ColumnarBatch c, int r) {
        check(i, "s", c.column(0), r, sNull(i), cv -> cv.getUTF8String(r).toString().equals(s(i)));
        check(i, "bin", c.column(1), r, binNull(i), cv -> java.util.Arrays.equals(cv.getBinary(r), bin(i)));
        check(i, "b", c.column(2), r, bNull(i), cv -> cv.getBoolean(r) == b(i));
        check(i, "d", c.column(3), r, dNull(i), cv -> cv.getInt(r) == d(i).toEpochDay());
        boolean out = anyTemporalNull(i);
        check(i, "nb", c.column(4), r, out, cv -> cv.getBoolean(r) == !b(i));
        check(i, "d1", c.column(5), r, out, cv -> cv.getInt(r) == d(i).toEpochDay() + 1);
        check(i, "t1", c.column(6), r, out, cv -> cv.getLong(r) == micros(t(i)) + 1_500_000);
        check(i, "ntz1", c.column(7), r, out, cv -> cv.getLong(r) == micros(n(i).toInstant(java.time.ZoneOffset.UTC))
                - 60_000_000);
        // A null's slot reaches the device as 0 (the batch held a true, 7 and "junk" there): the pass-through shows it.
        var s = ((ArrowColumnVector) c.column(0)).getValueVector();
        var b = ((ArrowColumnVector) c.column(2)).getValueVector();
        var d = ((ArrowColumnVector) c.column(3)).getValueVector();
        if (bNull(i) && (((BitVector) b).getDataBuffer().getByte(r / 8) >> (r % 8) & 1) != 0
                || dNull(i) && ((DateDayVector) d).getDataBuffer().getInt(4L * r) != 0
                || sNull(i) && ((VarCharVector) s).getOffsetBuffer().getInt(4L * r)
                        != ((VarCharVector) s).getOffsetBuffer().getInt(4L * r + 4)) {
            throw new AssertionError("row " + i + ": a null's slot is not 0 or empty on the device");
        }
        if (!(c.column(6) instanceof ArrowColumnVector t1 && t1.getValueVector() instanceof TimeStampMicroTZVector)) {
            throw new AssertionError("t1 is no TimeStampMicroTZVector");
        }
    }

    private static void check(int i, String column, ColumnVector v, int r, boolean isNull,
            java.util.function.Predicate<ColumnVector> value) {
        if (v.isNullAt(r) != isNull || !isNull && !value.test(v)) {
            throw new AssertionError("row " + i + ", column " + column + ": null " + v.isNullAt(r) + " (expected "
                    + isNull + ")" + (isNull ? "" : ", value as expected " + value.test(v)));
        }
    }

    /**
     * Rows 0 to ROWS - 1 in batches of BATCH rows of b, d, t, ntz, s and bin, with a true, 7, 7, 7 and "junk" in the null
     * slots.
     */
    static List<VectorSchemaRoot> arrowBatches(BufferAllocator a) {
        List<VectorSchemaRoot> batches = new ArrayList<>();
        for (int first = 0; first < ROWS; first += BATCH) {
            int n = Math.min(BATCH, ROWS - first);
            VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(B, D,
                    Field.nullable("t", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "Europe/Paris")), N, S, BIN)), a);
            root.getFieldVectors().forEach(v -> v.setInitialCapacity(n));
            root.allocateNew();
            BitVector b = (BitVector) root.getVector(0);
            DateDayVector d = (DateDayVector) root.getVector(1);
            TimeStampMicroTZVector t = (TimeStampMicroTZVector) root.getVector(2);
            TimeStampMicroVector nt = (TimeStampMicroVector) root.getVector(3);
            VarCharVector s = (VarCharVector) root.getVector(4);
            VarBinaryVector bin = (VarBinaryVector) root.getVector(5);
            for (int r = 0; r < n; r++) {
                int i = first + r;
                b.setSafe(r, bNull(i) || b(i) ? 1 : 0);
                d.setSafe(r, dNull(i) ? 7 : (int) d(i).toEpochDay());
                t.setSafe(r, tNull(i) ? 7 : micros(t(i)));
                nt.setSafe(r, nNull(i) ? 7 : micros(n(i).toInstant(java.time.ZoneOffset.UTC)));
                s.setSafe(r, (sNull(i) ? "junk" : s(i)).getBytes(StandardCharsets.UTF_8));
                if (!binNull(i)) {
                    bin.setSafe(r, bin(i));
                }
                setNullIf(b, r, bNull(i));
                setNullIf(d, r, dNull(i));
                setNullIf(t, r, tNull(i));
                setNullIf(nt, r, nNull(i));
                setNullIf(s, r, sNull(i));
                setNullIf(bin, r, binNull(i));
            }
            root.setRowCount(n);
            batches.add(root);
        }
        return batches;
    }

    private static void setNullIf(FieldVector v, int r, boolean isNull) {
        if (isNull) {
            v.setNull(r);
        }
    }

    @Test
    void stringsAndBinariesReachTheKernelAsOffsetsAndBytes() {
        StructType schema = DataTypes.createStructType(List.of(
                DataTypes.createStructField("s", DataTypes.StringType, true),
                DataTypes.createStructField("bin", DataTypes.BinaryType, true)));
        // Batch 1 (rows 64 to 127) has only empty strings and binaries: no bytes at all.
        java.util.function.IntPredicate empty = i -> i >= BATCH && i < 2 * BATCH;
        List<Row> data = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            data.add(RowFactory.create(sNull(i) ? null : empty.test(i) ? "" : s(i),
                    binNull(i) ? null : empty.test(i) ? new byte[0] : bin(i)));
        }
        Dataset<Row> df = LOCAL.spark().createDataFrame(data, schema).coalesce(1);
        GpuPartitionStage<Row, Row> stage = stringStage(BATCH).buildRows();
        List<Row> rows = df.mapPartitions(stage, stage.rowEncoder()).collectAsList();
        assertEquals(ROWS, rows.size());
        for (int i = 0; i < ROWS; i++) {
            Row r = rows.get(i);
            if (sNull(i) || binNull(i)) {
                assertTrue(r.isNullAt(1) && r.isNullAt(2) && r.isNullAt(3), "an input is null in row " + i + ": " + r);
                continue;
            }
            String s = empty.test(i) ? "" : s(i);
            assertEquals(s.getBytes(StandardCharsets.UTF_8).length, r.getInt(1), "len, row " + i);
            assertEquals(s.chars().filter(ch -> ch == 'a').count(), r.getInt(2), "as, row " + i);
            long sum = 0;
            for (byte x : empty.test(i) ? new byte[0] : bin(i)) {
                sum += Byte.toUnsignedInt(x);
            }
            assertEquals(sum, r.getLong(3), "sum, row " + i);
            assertEquals(s, r.getString(0), "s passed through, row " + i);
        }
    }

    private static GpuPartitionStage.Builder<Row> stringStage(int batchRows) {
        return GpuPartitionStage.<Row>kernel(() -> STRINGS).input(S).input(BIN).passThrough("s")
                .output(Field.nullable("len", new ArrowType.Int(32, true)))
                .output(Field.nullable("as", new ArrowType.Int(32, true)))
                .output(Field.nullable("sum", new ArrowType.Int(64, true))).batchRows(batchRows);
    }

    @Test
    void aBatchEndsWhereItsStringsWouldPassMaxBatchBytesAndARowLargerThanABatchFailsTheTask() {
        // Strings of 50 to 299 bytes: 64 rows take more than 4 KB, so batches of 4 KB hold fewer rows.
        MOST_ROWS.set(0);
        GpuPartitionStage<String, Integer> stage = GpuPartitionStage.<String>kernel(() -> STRINGS)
                .input(S, s -> s).input(BIN, s -> new byte[0])
                .output(Field.nullable("len", new ArrowType.Int(32, true)))
                .output(Field.nullable("as", new ArrowType.Int(32, true)))
                .output(Field.nullable("sum", new ArrowType.Int(64, true))).batchRows(BATCH).maxBatchBytes(4096)
                .build((batch, row) -> {
                    MOST_ROWS.accumulateAndGet(batch.numRows(), Math::max);
                    return batch.column(0).getInt(row);
                });
        List<String> strings = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "a".repeat(50 + i % 250)).toList();
        List<Integer> lens = LOCAL.spark().createDataset(strings, Encoders.STRING()).coalesce(1)
                .mapPartitions(stage, Encoders.INT()).collectAsList();
        assertEquals(strings.stream().map(String::length).toList(), lens);
        assertTrue(MOST_ROWS.get() > 1 && MOST_ROWS.get() < BATCH, "batches held at most " + MOST_ROWS.get() + " rows");

        Exception e = assertThrows(Exception.class, () -> LOCAL.spark().createDataset(List.of("a", "b".repeat(5000)),
                Encoders.STRING()).coalesce(1).mapPartitions(stage, Encoders.INT()).collectAsList());
        assertTrue(e.getMessage().contains("rows 1 to 1 of the partition, on device cpu:0: row 1's strings or binaries"
                + " take a batch of 5312 bytes on the device (each buffer rounded up to 64), more than the stage's"
                + " maxBatchBytes 4096: raise maxBatchBytes"), e.getMessage());
    }

    @Test
    void anArrowBatchOverMaxBatchBytesFailsTheTaskNamingItsBytesAndTheLimit() {
        GpuArrowStage stage = stringStage(BATCH).maxBatchBytes(1024).buildArrow();
        Exception e = assertThrows(Exception.class, () -> LOCAL.spark().range(0, 1, 1, 1)
                .mapPartitions((MapPartitionsFunction<Long, Long>) in -> {
                    try (BufferAllocator a = new RootAllocator();
                            VectorSchemaRoot batch = VectorSchemaRoot.create(new Schema(List.of(S, BIN)), a)) {
                        VarCharVector s = (VarCharVector) batch.getVector(0);
                        VarBinaryVector bin = (VarBinaryVector) batch.getVector(1);
                        for (int r = 0; r < BATCH; r++) {
                            s.setSafe(r, "x".repeat(40).getBytes(StandardCharsets.UTF_8));
                            bin.setSafe(r, new byte[0]);
                        }
                        batch.setRowCount(BATCH);
                        var results = stage.process(List.of(batch).iterator());
                        while (results.hasNext()) {
                            results.next().close();
                        }
                    }
                    return List.<Long>of().iterator();
                }, Encoders.LONG()).collectAsList());
        // s: bitmap 64, offsets 320, bytes 2560; bin: bitmap 64, offsets 320, no bytes.
        assertTrue(e.getMessage().contains("rows 0 to 63 of the partition, on device cpu:0) takes 3328 bytes on the device"
                + " (each buffer rounded up to 64), more than the stage's maxBatchBytes 1024"), e.getMessage());
    }

    @Test
    void aKernelIsCheckedAgainstTwoPointersAStringWhateverTheColumnsName() {
        Field name = Field.nullable("first name", ArrowType.Utf8.INSTANCE); // no C identifier
        List<Field> outputs = List.of(Field.nullable("len", new ArrowType.Int(32, true)),
                Field.nullable("as", new ArrowType.Int(32, true)), Field.nullable("sum", new ArrowType.Int(64, true)));
        new StageSpec(List.of(name, BIN), outputs, List.of(), List.of(), () -> STRINGS, null, BATCH, 0, 1, null)
                .deviceWork();
        StageSpec onePointer = new StageSpec(List.of(name), List.of(TestStages.Y), List.of(), List.of(),
                () -> TestStages.QUADRATIC, null, BATCH, 0, 1, null);
        var e = assertThrows(InvalidArgumentException.class, onePointer::deviceWork);
        assertTrue(e.getMessage().startsWith("kernel: quadratic takes [const float* x, float* y, long long n]; the stage"
                + " passes [I32* (first name's offsets), U8* (first name's bytes), F32* (y), long n]: a pointer per input"
                + " column [first name: Utf8] (two for a string or binary"), e.getMessage());
    }

    @Test
    void typesTheStagesDoNotTakeAreRefusedAtBuildNamingColumnTypeAndWhatIsSupported() {
        var builder = GpuPartitionStage.<Row>kernel(() -> TestStages.QUADRATIC);
        var e = assertThrows(InvalidArgumentException.class,
                () -> builder.input(Field.nullable("price", new ArrowType.Decimal(10, 2, 128))));
        assertTrue(e.getMessage().startsWith("field: column price is of type Decimal(10, 2, 128) (Spark's"
                + " DecimalType(10,2)), which the stages do not support; a stage's columns are Int of 8, 16, 32 or 64 bits,"
                + " signed"), e.getMessage());
        assertTrue(e.getMessage().contains("Bool (BooleanType), Date(DAY) (DateType), Timestamp(MICROSECOND, zone)"
                + " (TimestampType; without a zone TimestampNTZType), Utf8 (StringType), Binary (BinaryType)"), e.getMessage());
        Field list = new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(Field.nullable("item", ArrowType.Utf8.INSTANCE)));
        e = assertThrows(InvalidArgumentException.class, () -> builder.carry(list));
        assertTrue(e.getMessage().startsWith("field: column tags is of type List (Spark's ArrayType): nested types are"
                + " not supported; a stage's columns are "), e.getMessage());
        Field struct = new Field("point", FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(Field.nullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))));
        e = assertThrows(InvalidArgumentException.class, () -> builder.input(struct));
        assertTrue(e.getMessage().startsWith("field: column point is of type Struct (Spark's StructType): nested"),
                e.getMessage());
        e = assertThrows(InvalidArgumentException.class,
                () -> builder.input(Field.nullable("day", new ArrowType.Date(DateUnit.MILLISECOND))));
        assertTrue(e.getMessage().startsWith("field: column day is of type Date(MILLISECOND), which the stages do not"
                + " support"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class,
                () -> builder.input(Field.nullable("at", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"))));
        assertTrue(e.getMessage().startsWith("field: column at is of type Timestamp(NANOSECOND, UTC), which"),
                e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> builder.output(S));
        assertTrue(e.getMessage().equals("field: column s is of type Utf8: a column the device writes is fixed-width (a"
                + " number, a boolean, a date or a timestamp); strings and binaries are inputs and carried columns"),
                e.getMessage());
        // What the builder refused left nothing behind: with a string carried it still builds.
        builder.carry(S).input(TestStages.X).output(TestStages.Y).buildRows();
    }
}
