package dev.sluice.arrow;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.InvalidArgumentException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;
import org.jspecify.annotations.Nullable;

/**
 * Where the buffers of one record batch lie in an {@link ArrowPipeline} chunk, and those of its result: each column's
 * validity bitmap, offsets and values one after the other, each at a multiple of {@value #ALIGN} bytes (Arrow's
 * alignment, and enough for any element type on the device). A chunk is at least {@value #ALIGN} bytes, so that a batch
 * of 0 rows is a chunk too (the pipeline keeps results in input order).
 */
record BatchLayout(int rows, List<Segment> input, long inputBytes, List<Segment> output, long outputBytes) {

    static final long ALIGN = 64;

    /** One column's buffers in a chunk: byte offsets and lengths (a length of 0: the column has no such buffer). */
    record Segment(Field field, DType type, @Nullable DType offsetType, long validityAt, long validityBytes,
            long offsetsAt, long offsetBytes, long dataAt, long dataBytes, long end) {

        /** The column as a view of {@code chunk} (U8): no allocation, nothing to close. */
        DeviceColumn on(DeviceBuffer chunk, int rows) {
            if (rows == 0) {
                return new DeviceColumn(type, offsetType, 0, null, null, null);
            }
            DeviceBuffer validity = validityBytes > 0 ? chunk.slice(validityAt, validityBytes) : null;
            DeviceBuffer offsets = offsetType != null ? chunk.slice(offsetsAt, offsetBytes).reinterpret(offsetType) : null;
            DeviceBuffer data = dataBytes > 0 ? chunk.slice(dataAt, dataBytes).reinterpret(type) : null;
            return new DeviceColumn(type, offsetType, rows, validity, offsets, data);
        }

        /** A vector of {@code rows} values whose buffers are slices of {@code body} (which it references). */
        FieldVector load(ArrowBuf body, int rows, BufferAllocator allocator) {
            FieldVector v = field.createVector(allocator);
            if (rows == 0) {
                return v;
            }
            try {
                ArrowBuf empty = allocator.getEmpty();
                ArrowBuf validity = validityBytes > 0 ? body.slice(validityAt, validityBytes) : empty;
                // Arrow allocates an all-valid bitmap of its own where the null count is 0 (and an all-null one for n).
                int nulls = validityBytes > 0 ? BitVectorHelper.getNullCount(validity, rows) : 0;
                ArrowBuf data = dataBytes > 0 ? body.slice(dataAt, dataBytes) : empty;
                List<ArrowBuf> buffers = offsetType != null ? List.of(validity, body.slice(offsetsAt, offsetBytes), data)
                        : List.of(validity, data);
                v.loadFieldBuffers(new ArrowFieldNode(rows, nulls), buffers);
                return v;
            } catch (RuntimeException e) {
                v.close();
                throw e;
            }
        }
    }

    /**
     * The layout of {@code batch} and of its result, checked.
     *
     * @throws InvalidArgumentException naming {@code batch} if it is null, has no columns, has more rows than
     *                                  {@code maxRows}, a column whose value count differs from its row count (a closed
     *                                  vector's is 0), a column of an unsupported type, more bytes than
     *                                  {@code maxBatchBytes}, or lacks a column to pass through
     */
    static BatchLayout of(@Nullable VectorSchemaRoot batch, List<ArrowPipeline.Output> outputs, int maxRows,
            long maxBatchBytes) {
        if (batch == null) {
            throw new InvalidArgumentException("batch", "must not be null");
        }
        int rows = batch.getRowCount();
        if (rows > maxRows) {
            throw new InvalidArgumentException("batch", "has " + rows + " rows, more than the pipeline's maxRows " + maxRows);
        }
        List<FieldVector> vectors = batch.getFieldVectors();
        if (vectors.isEmpty()) {
            throw new InvalidArgumentException("batch", "has no columns");
        }
        Map<String, Segment> input = new LinkedHashMap<>();
        long at = 0;
        for (FieldVector v : vectors) {
            if (v.getValueCount() != rows) {
                throw new InvalidArgumentException("batch", "column " + v.getName() + " has " + v.getValueCount()
                        + " values but the batch has " + rows + " rows" + (v.getValueCount() == 0 ? " (a closed vector has 0)" : ""));
            }
            if (input.containsKey(v.getName())) {
                throw new InvalidArgumentException("batch", "has two columns named '" + v.getName() + "': a stage and a"
                        + " pass-through find columns by name");
            }
            ColumnLayout l = ColumnLayout.of("batch", v);
            Segment s = place(v.getField(), l.type(), l.offsetType(), at, l.validityBytes(), l.offsetBytes(), l.dataBytes());
            input.put(v.getName(), s);
            at = s.end();
        }
        long inputBytes = Math.max(at, ALIGN);
        if (inputBytes > maxBatchBytes) {
            throw new InvalidArgumentException("batch", "its columns take " + inputBytes + " bytes (each buffer rounded up to "
                    + ALIGN + "), more than the pipeline's maxBatchBytes " + maxBatchBytes);
        }
        List<Segment> output = new ArrayList<>(outputs.size());
        at = 0;
        for (ArrowPipeline.Output o : outputs) {
            Segment s;
            if (o.passThrough()) {
                Segment in = input.get(o.field().getName());
                if (in == null) {
                    throw new InvalidArgumentException("batch", "has no column " + o.field().getName()
                            + " to pass through; its columns are " + input.keySet());
                }
                s = place(in.field(), in.type(), in.offsetType(), at, in.validityBytes(), in.offsetBytes(), in.dataBytes());
            } else {
                s = place(o.field(), o.type(), null, at, o.field().isNullable() && rows > 0 ? (rows + 7L) / 8 : 0, 0,
                        (long) rows * o.type().byteSize());
            }
            output.add(s);
            at = s.end();
        }
        return new BatchLayout(rows, List.copyOf(input.values()), inputBytes, List.copyOf(output), Math.max(at, ALIGN));
    }

    /**
     * The most bytes a result of {@code maxRows} rows takes (pass-through columns at most {@code maxBatchBytes});
     * {@code Long.MAX_VALUE} where the sum would overflow (the builder refuses such a capacity).
     */
    static long outputCapacity(List<ArrowPipeline.Output> outputs, int maxRows, long maxBatchBytes) {
        long bytes = 0;
        boolean passes = false;
        for (ArrowPipeline.Output o : outputs) {
            if (o.passThrough()) {
                passes = true;
            } else {
                bytes = saturatedAdd(bytes, align((maxRows + 7L) / 8) + align((long) maxRows * o.type().byteSize()));
            }
        }
        return Math.max(saturatedAdd(bytes, passes ? maxBatchBytes : 0), ALIGN);
    }

    /** {@code a + b} of two sizes (not negative), {@code Long.MAX_VALUE} where it overflows. */
    static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** {@code a * b} of two sizes (not negative), {@code Long.MAX_VALUE} where it overflows. */
    static long saturatedMultiply(long a, long b) {
        return Math.multiplyHigh(a, b) != 0 || a * b < 0 ? Long.MAX_VALUE : a * b;
    }

    private static Segment place(Field field, DType type, @Nullable DType offsetType, long at, long validityBytes,
            long offsetBytes, long dataBytes) {
        long validityAt = at;
        long offsetsAt = validityAt + align(validityBytes);
        long dataAt = offsetsAt + align(offsetBytes);
        return new Segment(field, type, offsetType, validityAt, validityBytes, offsetsAt, offsetBytes, dataAt, dataBytes,
                dataAt + align(dataBytes));
    }

    static long align(long bytes) {
        return (bytes + ALIGN - 1) / ALIGN * ALIGN;
    }

    /** The input column named {@code name}. */
    Segment input(String name) {
        for (Segment s : input) {
            if (s.field().getName().equals(name)) {
                return s;
            }
        }
        throw new IllegalStateException("no input column " + name);
    }

    /** The batch's columns as views of the lane's input buffer. */
    DeviceBatch deviceInput(DeviceBuffer chunk) {
        return views(input, chunk);
    }

    /** The result's columns as views of the lane's output buffer. */
    DeviceBatch deviceOutput(DeviceBuffer chunk) {
        return views(output, chunk);
    }

    private DeviceBatch views(List<Segment> segments, DeviceBuffer chunk) {
        Map<String, DeviceColumn> columns = new LinkedHashMap<>();
        for (Segment s : segments) {
            columns.put(s.field().getName(), s.on(chunk, rows));
        }
        return DeviceBatch.of(columns);
    }
}
