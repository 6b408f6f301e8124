package dev.sluice.arrow;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.jspecify.annotations.Nullable;

/**
 * Arrow vectors as Sluice host data, and columns and record batches to and from the device.
 *
 * <p>Supported vectors: every Arrow type Sluice has an element type for (Int of 8 to 64 bits, signed or not, as I8 to
 * U64; FloatingPoint HALF, SINGLE, DOUBLE as F16, F32, F64), and the variable-width Utf8, Binary, LargeUtf8 and
 * LargeBinary as offsets (I32 or I64) and bytes (U8). Validity bitmaps travel as they are (U8, one bit per value).
 * Arrow's BitVector (one bit per boolean, where Sluice's BOOL is a byte) and nested types are refused, naming the
 * argument and the type.
 *
 * <p>A vector of a {@link PinnedAllocationFactory} allocator is copied by DMA; a vector of any other allocator is
 * staged through pinned memory, or registered in place with {@link #registerHost}. <b>Resources:</b> a copy keeps the
 * memory it reads or writes until it has finished, whoever closes the vector meanwhile: pinned memory by Sluice's rule
 * for host buffers, another allocator's memory by a reference to each buffer that the copy holds and releases when it
 * is done. Host code must not change a source vector, or read a destination, until the copies' futures have completed.
 */
public final class ArrowColumns {

    private ArrowColumns() {
    }

    /**
     * The element type of {@code vector}'s values: U8 (bytes) for a variable-width vector.
     *
     * @throws InvalidArgumentException naming {@code vector} if it is null or of a type Sluice has no element type for
     */
    public static DType elementType(FieldVector vector) {
        if (vector == null) {
            throw new InvalidArgumentException("vector", "must not be null");
        }
        DType t = ColumnLayout.elementType(vector.getField().getType());
        if (t == null) {
            ColumnLayout.of("vector", vector); // throws, naming the type
        }
        return Objects.requireNonNull(t);
    }

    /**
     * The element type of a fixed-width Arrow type that Sluice has one for: signed and unsigned integers of 8 to 64 bits,
     * half, single and double floats; empty for any other type (variable-width, nested, boolean, decimal...).
     *
     * @throws InvalidArgumentException naming {@code type} if it is null
     */
    public static Optional<DType> fixedWidthType(ArrowType type) {
        if (type == null) {
            throw new InvalidArgumentException("type", "must not be null");
        }
        return Optional.ofNullable(ColumnLayout.fixedWidth(type));
    }

    /**
     * {@code length} bytes of {@code buffer} from its start as host data of element {@code type}: a pinned
     * {@link HostBuffer} for a buffer of a {@link PinnedAllocationFactory} allocator, else untyped memory (copied to
     * and from a device buffer of any type of the same byte size).
     *
     * @throws InvalidArgumentException naming {@code buffer} if it is null, released or shorter than {@code length}, or
     *                                  {@code length} if it is not positive or not a whole number of {@code type}
     */
    public static HostData hostData(ArrowBuf buffer, long length, DType type) {
        if (buffer == null) {
            throw new InvalidArgumentException("buffer", "must not be null");
        }
        if (type == null) {
            throw new InvalidArgumentException("type", "must not be null");
        }
        if (length <= 0 || length % type.byteSize() != 0) {
            throw new InvalidArgumentException("length", "value " + length + " is not a positive whole number of " + type
                    + " elements (" + type.byteSize() + " bytes each)");
        }
        if (buffer.refCnt() == 0 || buffer.capacity() < length) {
            throw new InvalidArgumentException("buffer", buffer + (buffer.refCnt() == 0 ? " is released"
                    : " holds " + buffer.capacity() + " bytes, fewer than " + length));
        }
        return view(buffer, length, type);
    }

    /**
     * The host memory of {@code vector}: views of its validity, offsets and data buffers, as long as its value count
     * needs. Valid while the vector keeps those buffers (until it is closed, cleared or reallocated).
     *
     * @throws InvalidArgumentException naming {@code vector} if it is null, of an unsupported type, its buffers do not
     *                                  hold its value count, or they are pinned memory that its context freed when it
     *                                  closed (nothing reads such memory)
     */
    public static ColumnData hostData(FieldVector vector) {
        return hostData(ColumnLayout.of("vector", vector));
    }

    private static ColumnData hostData(ColumnLayout l) {
        if (l.valueCount() == 0) {
            return new ColumnData(0, l.type(), l.offsetType(), null, null, null);
        }
        FieldVector v = l.vector();
        HostData validity = l.hasValidity() ? view(v.getValidityBuffer(), l.validityBytes(), DType.U8) : null;
        HostData offsets = l.offsetType() != null ? view(v.getOffsetBuffer(), l.offsetBytes(), l.offsetType()) : null;
        HostData data = l.dataBytes() > 0 ? view(v.getDataBuffer(), l.dataBytes(), l.type()) : null;
        return new ColumnData(l.valueCount(), l.type(), l.offsetType(), validity, offsets, data);
    }

    private static HostData view(ArrowBuf buffer, long length, DType type) {
        HostBuffer pinned = PinnedAllocationFactory.pinnedBytes(buffer);
        if (pinned != null) {
            long offset = buffer.memoryAddress() - pinned.segment().address();
            return pinned.slice(offset, length).asType(type);
        }
        // Memory Arrow owns: the copy stages it, and the caller keeps it alive (ArrowColumns retains it while copying).
        return HostData.of(MemorySegment.ofAddress(buffer.memoryAddress()).reinterpret(length));
    }

    /**
     * Pins {@code vector}'s memory in place for copies by DMA ({@link DeviceContext#registerHost}); buffers that share
     * a memory page are registered together. See {@link RegisteredColumn} for who closes what.
     *
     * @throws InvalidArgumentException naming {@code context} if it is null or closed, or {@code vector} as
     *                                  {@link #hostData}; nothing is registered then
     */
    public static RegisteredColumn registerHost(DeviceContext context, FieldVector vector) {
        checkContext(context);
        ColumnLayout l = ColumnLayout.of("vector", vector);
        if (l.valueCount() == 0 || PinnedAllocationFactory.pinnedBytes(vector.getDataBuffer()) != null) {
            return new RegisteredColumn(hostData(l), List.of(), List.of());
        }
        List<Piece> pieces = new ArrayList<>(3);
        if (l.hasValidity()) {
            pieces.add(new Piece(vector.getValidityBuffer(), l.validityBytes(), DType.U8));
        }
        if (l.offsetType() != null) {
            pieces.add(new Piece(vector.getOffsetBuffer(), l.offsetBytes(), l.offsetType()));
        }
        if (l.dataBytes() > 0) {
            pieces.add(new Piece(vector.getDataBuffer(), l.dataBytes(), l.type()));
        }
        List<ArrowBuf> retained = retain(pieces.stream().map(Piece::buffer).toList());
        List<HostBuffer> spans = new ArrayList<>(3);
        try {
            Map<Piece, HostData> views = new LinkedHashMap<>();
            for (List<Piece> group : byPage(pieces)) {
                long lo = group.getFirst().address();
                long hi = group.stream().mapToLong(Piece::end).max().orElseThrow();
                HostBuffer span = context.registerHost(MemorySegment.ofAddress(lo).reinterpret(hi - lo), DType.U8);
                spans.add(span);
                for (Piece p : group) {
                    views.put(p, span.slice(p.address() - lo, p.length()).asType(p.type()));
                }
            }
            HostData validity = l.hasValidity() ? views.get(pieces.getFirst()) : null;
            HostData offsets = l.offsetType() != null ? views.get(pieces.get(l.hasValidity() ? 1 : 0)) : null;
            HostData data = l.dataBytes() > 0 ? views.get(pieces.getLast()) : null;
            return new RegisteredColumn(new ColumnData(l.valueCount(), l.type(), l.offsetType(), validity, offsets, data),
                    spans, retained);
        } catch (RuntimeException e) {
            spans.forEach(HostBuffer::close);
            release(retained);
            throw e;
        }
    }

    /** One buffer's range that a copy moves. */
    private record Piece(ArrowBuf buffer, long length, DType type) {
        long address() {
            return buffer.memoryAddress();
        }

        long end() {
            return address() + length;
        }
    }

    /** The pieces grouped so that no two groups share a memory page (registering a page twice fails on CUDA). */
    private static List<List<Piece>> byPage(List<Piece> pieces) {
        long page = 4096;
        List<Piece> sorted = new ArrayList<>(pieces);
        sorted.sort(Comparator.comparingLong(Piece::address));
        List<List<Piece>> groups = new ArrayList<>();
        long groupEnd = Long.MIN_VALUE;
        for (Piece p : sorted) {
            if (groups.isEmpty() || Math.floorDiv(p.address(), page) > Math.floorDiv(groupEnd - 1, page)) {
                groups.add(new ArrayList<>());
            }
            groups.getLast().add(p);
            groupEnd = Math.max(groupEnd, p.end());
        }
        return groups;
    }

    /**
     * Copies {@code vector} to new device memory in {@code stream}'s order: its bitmap (if it has one), offsets and
     * values. The vector must not change until the stream's work enqueued after this has completed; closing it
     * meanwhile is safe. A vector of 0 values gives a column with no buffers, and enqueues nothing.
     *
     * @throws InvalidArgumentException naming {@code stream} if it is null or closed, or {@code vector} as
     *                                  {@link #hostData}; nothing is allocated or enqueued then
     */
    public static DeviceColumn upload(DeviceStream stream, FieldVector vector) {
        checkStream(stream);
        return upload(stream, ColumnLayout.of("vector", vector));
    }

    private static DeviceColumn upload(DeviceStream stream, ColumnLayout l) {
        ColumnData host = hostData(l);
        if (l.valueCount() == 0) {
            return new DeviceColumn(l.type(), l.offsetType(), 0, null, null, null);
        }
        DeviceContext ctx = stream.context();
        List<DeviceBuffer> made = new ArrayList<>(3);
        List<ArrowBuf> retained = List.of();
        List<CompletableFuture<Void>> copies = new ArrayList<>(3);
        try {
            DeviceBuffer validity = host.validity() == null ? null : add(made, ctx.allocate(DType.U8, l.validityBytes()));
            DeviceBuffer offsets = host.offsets() == null ? null
                    : add(made, ctx.allocate(l.offsetType(), l.valueCount() + 1L));
            DeviceBuffer data = host.data() == null ? null
                    : add(made, ctx.allocate(l.type(), l.dataBytes() / l.type().byteSize()));
            retained = retainUnpinned(l);
            if (validity != null) {
                copies.add(stream.enqueueCopy(host.validity(), validity));
            }
            if (offsets != null) {
                copies.add(stream.enqueueCopy(host.offsets(), offsets));
            }
            if (data != null) {
                copies.add(stream.enqueueCopy(host.data(), data));
            }
            releaseAfter(copies, retained);
            return new DeviceColumn(l.type(), l.offsetType(), l.valueCount(), validity, offsets, data);
        } catch (RuntimeException e) {
            made.forEach(DeviceBuffer::close); // freed in stream order, after the copies already enqueued
            releaseAfter(copies, retained); // those copies may still read the Arrow memory: keep it until they finish
            throw e;
        }
    }

    /**
     * Copies every column of {@code batch} to new device memory in {@code stream}'s order, as {@link #upload(DeviceStream,
     * FieldVector)} does each.
     *
     * @throws InvalidArgumentException naming {@code stream} if it is null or closed, or {@code batch} if it is null,
     *                                  has no columns or two of one name, a column's value count differs from the
     *                                  batch's row count, or a column is of an unsupported type; nothing is allocated or
     *                                  enqueued then
     */
    public static DeviceBatch upload(DeviceStream stream, VectorSchemaRoot batch) {
        checkStream(stream);
        if (batch == null) {
            throw new InvalidArgumentException("batch", "must not be null");
        }
        List<ColumnLayout> layouts = new ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (FieldVector v : batch.getFieldVectors()) {
            if (v.getValueCount() != batch.getRowCount()) {
                throw new InvalidArgumentException("batch", "column " + v.getName() + " has " + v.getValueCount()
                        + " values but the batch has " + batch.getRowCount() + " rows");
            }
            // The batch's columns are found by name: a second column of a name would hide the first's device memory.
            if (!names.add(v.getName())) {
                throw new InvalidArgumentException("batch", "has two columns named '" + v.getName() + "'; a DeviceBatch"
                        + " holds its columns by name");
            }
            layouts.add(ColumnLayout.of("batch", v));
        }
        if (layouts.isEmpty()) {
            throw new InvalidArgumentException("batch", "has no columns");
        }
        Map<String, DeviceColumn> columns = new LinkedHashMap<>();
        try {
            for (ColumnLayout l : layouts) {
                columns.put(l.vector().getName(), upload(stream, l));
            }
        } catch (RuntimeException e) {
            columns.values().forEach(DeviceColumn::close);
            throw e;
        }
        return DeviceBatch.of(columns);
    }

    /**
     * Copies {@code column} into {@code into} in {@code stream}'s order, allocating {@code into}'s buffers (from its own
     * allocator) where they are too small; {@code into}'s value count is {@code column}'s once the future has completed
     * (a fixed-width vector's at once). A column without a bitmap comes back with every value valid. Read
     * {@code into} only after the future has completed. Use a vector of a {@link PinnedAllocationFactory} allocator for a
     * copy by DMA.
     *
     * @return completes once {@code into} holds the column
     * @throws InvalidArgumentException naming {@code stream} if it is null or closed, {@code column} if it is null,
     *                                  closed or memory of another context than {@code stream}'s, or {@code into} if it
     *                                  is null, of another layout than the column (element type, offsets), pinned memory
     *                                  that its context freed when it closed, or too small and of a closed allocator;
     *                                  nothing is enqueued and {@code into} is unchanged then
     */
    public static CompletableFuture<Void> download(DeviceStream stream, DeviceColumn column, FieldVector into) {
        checkStream(stream);
        String problem = column == null ? "must not be null" : problem(stream, column);
        if (problem != null) {
            throw new InvalidArgumentException("column", problem);
        }
        if (into == null) {
            throw new InvalidArgumentException("into", "must not be null");
        }
        DType type = ColumnLayout.elementType(into.getField().getType());
        DType offsetType = ColumnLayout.offsetType(into.getField().getType());
        if (type != null) {
            ColumnLayout.checkAlive("into", into); // written below: never into memory its context has freed
        }
        if (type != column.type() || offsetType != column.offsetType()) {
            throw new InvalidArgumentException("into", "vector " + into.getName() + " of Arrow type "
                    + into.getField().getType() + " (" + type + (offsetType != null ? " with " + offsetType + " offsets" : "")
                    + ") cannot hold " + column);
        }
        int n = column.valueCount();
        long dataBytes = column.data() == null ? 0 : column.data().byteSize();
        ensureCapacity(into, n, dataBytes);
        if (n == 0) {
            into.setValueCount(0);
            return CompletableFuture.completedFuture(null);
        }
        long validityBytes = (n + 7L) / 8;
        if (column.validity() == null) {
            into.getValidityBuffer().setOne(0, validityBytes);
        }
        ColumnLayout target = new ColumnLayout(into, type, offsetType, n, column.validity() == null ? 0 : validityBytes,
                column.offsets() == null ? 0 : column.offsets().byteSize(), dataBytes);
        ColumnData host = hostData(target);
        List<ArrowBuf> retained = retainUnpinned(target);
        List<CompletableFuture<Void>> copies = new ArrayList<>(3);
        try {
            if (column.validity() != null) {
                copies.add(stream.enqueueCopy(column.validity(), Objects.requireNonNull(host.validity())));
            }
            if (column.offsets() != null) {
                copies.add(stream.enqueueCopy(column.offsets(), Objects.requireNonNull(host.offsets())));
            }
            if (column.data() != null) {
                copies.add(stream.enqueueCopy(column.data(), Objects.requireNonNull(host.data())));
            }
        } catch (RuntimeException e) {
            releaseAfter(copies, retained);
            throw e;
        }
        releaseAfter(copies, retained);
        CompletableFuture<Void> done = CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new));
        if (offsetType == null) {
            into.setValueCount(n); // a fixed-width vector's value count reads none of the memory being written
            return done;
        }
        // A variable-width vector's setValueCount reads its last offset: only once the offsets are there.
        return done.thenRun(() -> {
            if (into instanceof BaseVariableWidthVector v) {
                v.setLastSet(n - 1);
            } else if (into instanceof BaseLargeVariableWidthVector v) {
                v.setLastSet(n - 1);
            }
            into.setValueCount(n);
        });
    }

    /**
     * Copies every column of {@code batch} into the vector of the same name of {@code into}, as
     * {@link #download(DeviceStream, DeviceColumn, FieldVector)} does each, and sets {@code into}'s row count once they
     * are all there.
     *
     * @return completes once {@code into} holds the batch
     * @throws InvalidArgumentException naming {@code stream} if it is null or closed, {@code batch} if it is null or a
     *                                  column of it is closed or memory of another context than {@code stream}'s, or
     *                                  {@code into} if it is null or lacks a column of the batch or one of its vectors
     *                                  cannot hold its column; nothing is enqueued then
     */
    public static CompletableFuture<Void> download(DeviceStream stream, DeviceBatch batch, VectorSchemaRoot into) {
        checkStream(stream);
        if (batch == null) {
            throw new InvalidArgumentException("batch", "must not be null");
        }
        if (into == null) {
            throw new InvalidArgumentException("into", "must not be null");
        }
        // Every column and its target are checked, then given room, before the first is enqueued: a refusal leaves
        // nothing half downloaded.
        List<FieldVector> targets = new ArrayList<>();
        for (Map.Entry<String, DeviceColumn> e : batch.columns().entrySet()) {
            String problem = problem(stream, e.getValue());
            if (problem != null) {
                throw new InvalidArgumentException("batch", "column " + e.getKey() + ": " + problem);
            }
            FieldVector v = into.getVector(e.getKey());
            if (v == null) {
                throw new InvalidArgumentException("into", "has no column " + e.getKey() + "; its schema is " + into.getSchema());
            }
            DType type = ColumnLayout.elementType(v.getField().getType());
            if (type != e.getValue().type() || ColumnLayout.offsetType(v.getField().getType()) != e.getValue().offsetType()) {
                throw new InvalidArgumentException("into", "column " + e.getKey() + " of Arrow type " + v.getField().getType()
                        + " cannot hold " + e.getValue());
            }
            ColumnLayout.checkAlive("into", v);
            targets.add(v);
        }
        int k = 0;
        for (DeviceColumn c : batch.columns().values()) {
            ensureCapacity(targets.get(k++), c.valueCount(), c.data() == null ? 0 : c.data().byteSize());
        }
        List<CompletableFuture<Void>> all = new ArrayList<>();
        int i = 0;
        for (DeviceColumn c : batch.columns().values()) {
            all.add(download(stream, c, targets.get(i++)));
        }
        // setRowCount sets every vector's value count, which reads (and may fill) a variable-width vector's offsets.
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenRun(() -> into.setRowCount(batch.rowCount()));
    }

    /**
     * Makes {@code into} hold {@code n} values and {@code dataBytes} bytes.
     *
     * @throws InvalidArgumentException naming {@code into} if its allocator is closed (Arrow's IllegalStateException)
     */
    private static void ensureCapacity(FieldVector into, int n, long dataBytes) {
        try {
            allocate(into, n, dataBytes);
        } catch (IllegalStateException closed) {
            InvalidArgumentException e = new InvalidArgumentException("into", "vector " + into.getName() + " cannot"
                    + " allocate room for " + n + " values: its allocator " + into.getAllocator().getName() + " is closed");
            e.addSuppressed(closed); // Arrow's own report (an InvalidArgumentException has no cause)
            throw e;
        }
    }

    private static void allocate(FieldVector into, int n, long dataBytes) {
        switch (into) {
            case BaseFixedWidthVector v -> {
                if (v.getValueCapacity() < n) {
                    v.allocateNew(n);
                }
            }
            case BaseVariableWidthVector v -> {
                if (v.getValueCapacity() < n || v.getByteCapacity() < dataBytes) {
                    v.allocateNew(Math.max(dataBytes, 1), n);
                }
            }
            case BaseLargeVariableWidthVector v -> {
                if (v.getValueCapacity() < n || v.getByteCapacity() < dataBytes) {
                    v.allocateNew(Math.max(dataBytes, 1), n);
                }
            }
            default -> throw new InvalidArgumentException("into", "vector " + into.getName() + " ("
                    + into.getClass().getSimpleName() + ") is not a fixed- or variable-width vector");
        }
    }

    /** Refuses a null or closed stream, before anything is allocated or enqueued. */
    private static void checkStream(@Nullable DeviceStream stream) {
        if (stream == null) {
            throw new InvalidArgumentException("stream", "must not be null");
        }
        if (stream.isClosed()) {
            throw new InvalidArgumentException("stream", stream + " is closed");
        }
    }

    /** Refuses a null or closed context, before anything is allocated or registered. */
    static void checkContext(@Nullable DeviceContext context) {
        if (context == null) {
            throw new InvalidArgumentException("context", "must not be null");
        }
        if (context.isClosed()) {
            throw new InvalidArgumentException("context", context + " is closed");
        }
    }

    /** Why {@code column} cannot be downloaded on {@code stream}: closed, or another context's memory; null if it can. */
    private static @Nullable String problem(DeviceStream stream, DeviceColumn column) {
        if (column.isClosed()) {
            return column + " is closed";
        }
        DeviceBuffer other = otherContext(stream, column.validity());
        other = other != null ? other : otherContext(stream, column.offsets());
        other = other != null ? other : otherContext(stream, column.data());
        return other == null ? null
                : column + " is memory of " + other.context() + ", another context than " + stream + "'s";
    }

    /** {@code b} if it is memory of another context than {@code stream}'s; no array per column on a download's path. */
    private static @Nullable DeviceBuffer otherContext(DeviceStream stream, @Nullable DeviceBuffer b) {
        return b != null && b.context() != stream.context() ? b : null;
    }

    private static <T> T add(List<? super T> list, T item) {
        list.add(item);
        return item;
    }

    /** References to the buffers of a vector of another allocator than a pinned one, for the copies' duration. */
    private static List<ArrowBuf> retainUnpinned(ColumnLayout l) {
        FieldVector v = l.vector();
        if (PinnedAllocationFactory.pinnedBytes(v.getDataBuffer()) != null) {
            return List.of(); // pinned memory outlives its copies by Sluice's own rule
        }
        List<ArrowBuf> buffers = new ArrayList<>(3);
        if (l.hasValidity()) {
            buffers.add(v.getValidityBuffer());
        }
        if (l.offsetType() != null) {
            buffers.add(v.getOffsetBuffer());
        }
        buffers.add(v.getDataBuffer());
        return retain(buffers);
    }

    static List<ArrowBuf> retain(List<ArrowBuf> buffers) {
        List<ArrowBuf> out = new ArrayList<>(buffers.size());
        for (ArrowBuf b : buffers) {
            if (b.refCnt() > 0) {
                b.getReferenceManager().retain();
                out.add(b);
            }
        }
        return out;
    }

    static void release(List<ArrowBuf> retained) {
        for (ArrowBuf b : retained) {
            b.getReferenceManager().release();
        }
    }

    private static void releaseAfter(List<CompletableFuture<Void>> copies, List<ArrowBuf> retained) {
        if (retained.isEmpty()) {
            return;
        }
        CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> release(retained));
    }

}
